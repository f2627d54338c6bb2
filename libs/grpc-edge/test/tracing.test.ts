/** Tracing at the edge: no spans where no tracer provider is registered, the caller's trace context passed on regardless. */
import { Metadata, type ServerUnaryCall, status } from '@grpc/grpc-js';
import { propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ToolHubError } from '@toolhub/contracts';
import { type CallContext, tracerProviderRegistered, unary } from '@toolhub/grpc-edge';
import { setupTestTracing } from '@toolhub/telemetry/testing';
import { EventEmitter } from 'node:events';

import { callerTraceHeaders } from '../src/tracing';

function metadata(entries: Record<string, string>): Metadata {
  const m = new Metadata();
  for (const [k, v] of Object.entries(entries)) m.set(k, v);
  return m;
}

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** Calls a unary handler with this metadata as grpc-js would; resolves with what the handler saw and the answer. */
async function callWith(entries: Record<string, string>, result: () => object): Promise<{ ctx: CallContext; err: unknown }> {
  let ctx!: CallContext;
  const handler = unary('test/Traced', (_req: object, c) => ((ctx = c), result()));
  const call = Object.assign(new EventEmitter(), { request: {}, metadata: metadata(entries), getDeadline: () => Infinity, getPeer: () => 'test' });
  const err = await new Promise<unknown>((resolve) => handler(call as unknown as ServerUnaryCall<object, object>, (e) => resolve(e)));
  return { ctx, err };
}

// First: the edge's module-level tracer keeps the first provider it reached (OpenTelemetry's proxy
// tracers do), and the tests below register and unregister others.
describe('the unary edge and tracing', () => {
  afterEach(() => propagation.disable());

  it('records the server span, child of the caller, as before when a provider is registered', async () => {
    const tracing = setupTestTracing();
    try {
      const { ctx } = await callWith({ traceparent }, () => ({}));
      const failed = await callWith({ traceparent }, () => {
        throw new ToolHubError('not_found', 'No such tool.');
      });
      expect((failed.err as { code?: number }).code).toBe(status.NOT_FOUND);
      const [ok, error] = tracing.spans();
      expect(ok?.name).toBe('test/Traced');
      expect(ok?.attributes).toEqual({ 'rpc.system': 'grpc', 'rpc.method': 'test/Traced' });
      expect(ok?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
      expect(ctx.traceHeaders?.['traceparent']).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${ok?.spanContext().spanId}-01`);
      expect(error?.status.code).toBe(SpanStatusCode.ERROR);
      expect(error?.attributes['rpc.grpc.status_code']).toBe(status.NOT_FOUND);
    } finally {
      await tracing.shutdown();
    }
  });

  it("starts no span with no tracer provider, and hands the call the caller's trace headers", async () => {
    const { ctx, err } = await callWith({ traceparent }, () => {
      expect(trace.getActiveSpan()).toBeUndefined();
      return {};
    });
    expect(err).toBeNull();
    expect(ctx.traceHeaders).toEqual({ traceparent });
    expect((await callWith({}, () => ({}))).ctx.traceHeaders).toBeUndefined();
  });
});

describe('tracerProviderRegistered', () => {
  it('is false with only the no-op provider, true while a real one is registered', async () => {
    trace.disable();
    expect(tracerProviderRegistered()).toBe(false);
    const tracing = setupTestTracing();
    try {
      expect(tracerProviderRegistered()).toBe(true);
    } finally {
      await tracing.shutdown();
    }
    expect(tracerProviderRegistered()).toBe(false);
  });
});

describe('callerTraceHeaders', () => {
  afterEach(() => propagation.disable());

  it("passes the caller's traceparent and tracestate on unchanged, even with no propagator registered", () => {
    expect(propagation.fields()).toEqual([]);
    expect(callerTraceHeaders(metadata({ traceparent, tracestate: 'vendor=abc', other: 'x' }))).toEqual({ traceparent, tracestate: 'vendor=abc' });
  });

  it('is undefined without a trace context, or with a malformed one', () => {
    expect(callerTraceHeaders(metadata({}))).toBeUndefined();
    expect(callerTraceHeaders(metadata({ traceparent: 'garbage' }))).toBeUndefined();
    expect(callerTraceHeaders(metadata({ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }))).toBeUndefined();
  });

  it('uses the registered propagator when there is one', () => {
    const registered = new W3CTraceContextPropagator();
    const extract = jest.spyOn(registered, 'extract');
    propagation.setGlobalPropagator(registered);
    expect(callerTraceHeaders(metadata({ traceparent }))).toEqual({ traceparent });
    expect(extract).toHaveBeenCalledTimes(1);
  });
});
