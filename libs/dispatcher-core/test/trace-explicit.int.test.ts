/**
 * With nothing exported, telemetry registers no tracer provider and no async context manager (both
 * would tax every call for spans that go nowhere), so the dispatcher starts no spans: it passes the
 * caller's W3C trace context on explicitly and unchanged, and an adapter still receives the caller's
 * trace over real NATS.
 */
import { context, trace } from '@opentelemetry/api';
import { tracerProviderRegistered } from '@toolhub/grpc-edge';
import { initTelemetry, type Telemetry } from '@toolhub/telemetry';

import { startTraceStack, type TraceStack } from './support/trace-stack';

describe('trace context where nothing is recorded (nothing exported)', () => {
  let telemetry: Telemetry;
  let stack: TraceStack;
  const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const traceparent = `00-${callerTraceId}-00f067aa0ba902b7-01`;

  beforeAll(async () => {
    telemetry = initTelemetry({ serviceName: 'trace-explicit', exporter: 'none', env: {} });
    stack = await startTraceStack('traceexplicit');
  });

  afterAll(async () => {
    await stack.close();
    await telemetry.shutdown();
  });

  it('registers no tracer provider and no context manager', async () => {
    expect(tracerProviderRegistered()).toBe(false);
    const span = trace.getTracer('t').startSpan('probe');
    expect(span.isRecording()).toBe(false);
    await context.with(trace.setSpan(context.active(), span), async () => {
      await Promise.resolve();
      expect(trace.getActiveSpan()).toBeUndefined();
    });
    span.end();
  });

  it("forwards the caller's trace context to the adapter unchanged", async () => {
    const seen = await stack.runTool({ traceparent, tracestate: 'vendor=abc' });
    // No span of ToolHub's in between: the caller's span stays the parent of whatever records
    // downstream, and its sampled flag goes with it.
    expect(seen).toEqual({ traceparent, tracestate: 'vendor=abc' });
  });

  it('invents no trace context for a caller that sent none, and drops a malformed one', async () => {
    expect(await stack.runTool()).toEqual({});
    expect(await stack.runTool({ traceparent: `00-${callerTraceId}-0000000000000000-01` })).toEqual({});
  });
});
