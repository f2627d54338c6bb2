import { Metadata } from '@grpc/grpc-js';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import {
  extractGrpcContext,
  extractTraceContext,
  getTracer,
  injectGrpcMetadata,
  injectTraceHeaders,
  withSpan,
} from '@toolhub/telemetry';
import { setupTestTracing, type TestTracing } from '@toolhub/telemetry/testing';

describe('trace propagation', () => {
  let tracing: TestTracing;
  beforeAll(() => {
    tracing = setupTestTracing();
  });
  afterEach(() => tracing.reset());
  afterAll(() => tracing.shutdown());

  it('joins a span in service B to the trace of service A through a header record', async () => {
    const tracerA = getTracer('service-a');
    const tracerB = getTracer('service-b');

    // Service A: starts a span, injects its context into the headers of an outgoing message.
    const headers: Record<string, string> = {};
    await withSpan(tracerA, 'a.call', { kind: SpanKind.CLIENT }, async () => {
      injectTraceHeaders(headers);
      await Promise.resolve();
    });

    // Service B: receives only the headers (as over NATS) and starts a child span.
    const wire = JSON.parse(JSON.stringify(headers)) as Record<string, string>;
    await withSpan(tracerB, 'b.handle', { kind: SpanKind.SERVER, parent: extractTraceContext(wire) }, async () => {
      await Promise.resolve();
    });

    const a = tracing.spans().find((s) => s.name === 'a.call');
    const b = tracing.spans().find((s) => s.name === 'b.handle');
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(b!.spanContext().traceId).toBe(a!.spanContext().traceId);
    expect(b!.parentSpanContext?.spanId).toBe(a!.spanContext().spanId);
    expect(b!.parentSpanContext?.isRemote).toBe(true);
  });

  it('writes the context passed explicitly rather than the active one', () => {
    const span = getTracer('t').startSpan('explicit');
    const headers = injectTraceHeaders({}, trace.setSpan(context.active(), span));
    span.end();
    expect(headers['traceparent']).toContain(span.spanContext().spanId);
  });

  it('carries baggage next to the trace context', () => {
    const span = getTracer('t').startSpan('with-baggage');
    const ctx = propagation.setBaggage(
      trace.setSpan(context.active(), span),
      propagation.createBaggage({ tenant: { value: 'acme' } }),
    );
    const headers = injectTraceHeaders({}, ctx);
    span.end();
    expect(propagation.getBaggage(extractTraceContext(headers))?.getEntry('tenant')?.value).toBe('acme');
  });

  it('matches header names case-insensitively', () => {
    const span = getTracer('t').startSpan('caps');
    const headers = injectTraceHeaders({}, trace.setSpan(context.active(), span));
    span.end();
    const ctx = extractTraceContext({ Traceparent: headers['traceparent'] });
    expect(trace.getSpanContext(ctx)?.spanId).toBe(span.spanContext().spanId);
  });

  it('starts a new trace when the headers carry no or a malformed context', () => {
    for (const headers of [{}, { traceparent: 'garbage' }]) {
      const span = withSpan(getTracer('t'), 'orphan', { parent: extractTraceContext(headers) }, (s) => s);
      expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    }
    const orphans = tracing.spans().filter((s) => s.name === 'orphan');
    expect(orphans).toHaveLength(2);
    expect(orphans.every((s) => s.parentSpanContext === undefined)).toBe(true);
  });

  it('does not adopt the span active in the receiving process when extracting', () => {
    withSpan(getTracer('t'), 'unrelated', {}, () => {
      expect(trace.getSpan(extractTraceContext({}))).toBeUndefined();
    });
  });

  it('round-trips the trace context through gRPC metadata', () => {
    const client = getTracer('client').startSpan('rpc');
    const metadata = injectGrpcMetadata(new Metadata(), trace.setSpan(context.active(), client));
    client.end();
    expect(metadata.get('traceparent')).toHaveLength(1);

    const server = withSpan(getTracer('server'), 'handle', { parent: extractGrpcContext(metadata) }, (s) => s);
    expect(server.spanContext().traceId).toBe(client.spanContext().traceId);
    const handled = tracing.spans().find((s) => s.name === 'handle');
    expect(handled?.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
  });

  it('ignores binary gRPC metadata values when extracting', () => {
    const metadata = new Metadata();
    metadata.set('other-bin', Buffer.from([1, 2, 3]));
    expect(trace.getSpanContext(extractGrpcContext(metadata))).toBeUndefined();
  });
});
