/**
 * A process where nobody set up OpenTelemetry at all (no tracer provider, no propagator — e.g. the
 * dispatcher embedded as a library): a traced agent's W3C trace context still crosses ToolHub to the
 * adapter, so the agent keeps one trace.
 */
import { propagation, trace } from '@opentelemetry/api';
import { tracerProviderRegistered } from '@toolhub/grpc-edge';

import { startTraceStack, type TraceStack } from './support/trace-stack';

describe('trace context with no tracer provider registered', () => {
  let stack: TraceStack;

  beforeAll(async () => {
    // Nothing registered by an earlier test in this worker.
    trace.disable();
    propagation.disable();
    stack = await startTraceStack('tracenoprovider');
  });

  afterAll(() => stack.close());

  it("forwards the incoming traceparent's trace id to the adapter", async () => {
    expect(tracerProviderRegistered()).toBe(false);
    expect(propagation.fields()).toEqual([]);
    const callerTraceId = '0af7651916cd43dd8448eb211c80319c';
    const seen = await stack.runTool({ traceparent: `00-${callerTraceId}-b7ad6b7169203331-01`, tracestate: 'congo=t61rcWkgMzE' });
    expect(seen.traceparent).toBe(`00-${callerTraceId}-b7ad6b7169203331-01`);
    expect(seen.tracestate).toBe('congo=t61rcWkgMzE');
  });
});
