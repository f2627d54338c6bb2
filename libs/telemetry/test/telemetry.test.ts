import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { initTelemetry, isTelemetryError, withSpan, type Telemetry } from '@toolhub/telemetry';
import { setupTestTracing } from '@toolhub/telemetry/testing';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('initTelemetry', () => {
  const open: Telemetry[] = [];
  /** initTelemetry with nothing exported, remembered for cleanup. */
  function init(options: Partial<Parameters<typeof initTelemetry>[0]> = {}): Telemetry {
    const t = initTelemetry({ serviceName: 'svc', env: {}, ...options });
    open.push(t);
    return t;
  }
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.shutdown()));
  });

  it('registers a global provider whose spans carry the service resource', async () => {
    const exporter = new InMemorySpanExporter();
    const t = init({ serviceName: 'dispatcher', serviceVersion: '1.2.3', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    withSpan(t.getTracer(), 'op', {}, () => undefined);
    const [span] = exporter.getFinishedSpans();
    expect(span?.resource.attributes).toMatchObject({
      'service.name': 'dispatcher',
      'service.version': '1.2.3',
      'service.namespace': 'toolhub',
    });
    expect(span?.instrumentationScope.name).toBe('dispatcher');
    // Registered globally: a tracer from the global API (not `t`) records into the same exporter.
    const global = trace.getTracer('global-check').startSpan('global-op');
    expect(global.isRecording()).toBe(true);
    global.end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('global-op');
  });

  it('is safe to call twice in one process: the second call reuses the provider', async () => {
    const exporter = new InMemorySpanExporter();
    const first = init({ serviceName: 'dispatcher', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const second = init({ serviceName: 'registry', exporter: 'console' });
    expect(first.ownsProvider).toBe(true);
    expect(second.ownsProvider).toBe(false);
    expect(second.tracerProvider).toBe(first.tracerProvider);

    // Closing one service leaves tracing working for the other.
    await first.shutdown();
    await first.shutdown();
    withSpan(second.getTracer(), 'still-traced', {}, () => undefined);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['still-traced']);
    expect(exporter.getFinishedSpans()[0]?.instrumentationScope.name).toBe('registry');

    // The last handle shuts the provider down; a new call then starts afresh.
    await second.shutdown();
    const third = init({ serviceName: 'adapter' });
    expect(third.ownsProvider).toBe(true);
    expect(third.tracerProvider).not.toBe(first.tracerProvider);
  });

  it('makes initTelemetry reuse the provider of setupTestTracing', async () => {
    const tracing = setupTestTracing();
    try {
      const t = init({ serviceName: 'dispatcher' });
      expect(t.ownsProvider).toBe(false);
      withSpan(t.getTracer(), 'seen-by-test', {}, () => undefined);
      await t.shutdown();
      expect(tracing.spans().map((s) => s.name)).toEqual(['seen-by-test']);
      expect(() => setupTestTracing()).toThrow(/already registered/);
    } finally {
      await tracing.shutdown();
    }
  });

  it('writes one JSON line per span to stderr with the console exporter, and nothing to stdout', async () => {
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = jest.spyOn(process.stdout, 'write');
    try {
      const t = init({ env: { OTEL_TRACES_EXPORTER: 'console' } });
      withSpan(t.getTracer(), 'printed', { attributes: { tool: 'x' } }, () => undefined);
      await t.forceFlush();
      const line = JSON.parse(String(err.mock.calls.at(-1)?.[0])) as Record<string, unknown>;
      expect(line).toMatchObject({ span: 'printed', service: 'svc', attributes: { tool: 'x' } });
      expect(line['trace_id']).toMatch(/^[0-9a-f]{32}$/);
      expect(out).not.toHaveBeenCalled();
    } finally {
      err.mockRestore();
      out.mockRestore();
    }
  });

  // The real OTLP export is checked in otlp.int.test.ts: the exporter loads `http` with a dynamic
  // import(), which Jest's VM refuses without --experimental-vm-modules.
  it('never rejects on shutdown when spans cannot be exported', async () => {
    const t = initTelemetry({ serviceName: 'svc', otlpEndpoint: 'http://127.0.0.1:1/v1/traces', env: {} });
    withSpan(t.getTracer(), 'lost', {}, () => undefined);
    await expect(t.shutdown()).resolves.toBeUndefined();
  });

  it('rejects an unknown exporter naming the variable', () => {
    expect(() => init({ env: { OTEL_TRACES_EXPORTER: 'zipkin' } })).toThrow(/OTEL_TRACES_EXPORTER="zipkin"/);
    const err = thrown(() => init({ exporter: 'jaeger' as never }));
    expect(isTelemetryError(err, 'invalid_option')).toBe(true);
    expect(String(err)).toContain('expected one of none, console, otlp');
  });
});

describe('initTelemetry with nothing to export', () => {
  let t: Telemetry | undefined;
  afterEach(async () => {
    await t?.shutdown();
    t = undefined;
  });

  it("does not record the spans it starts itself, but gives them valid ids for logs and propagation", () => {
    t = initTelemetry({ serviceName: 'dispatcher', env: {} });
    const span = t.getTracer().startSpan('root');
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
    span.end();
  });

  it('records a span whose remote parent is sampled, so a traced caller keeps its whole trace', () => {
    t = initTelemetry({ serviceName: 'dispatcher', env: {} });
    const parent = trace.setSpanContext(context.active(), { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true });
    const span = t.getTracer().startSpan('child', {}, parent);
    expect(span.isRecording()).toBe(true);
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    span.end();
  });

  it("leaves the global tracer provider unset, so libraries start no spans, and still registers the propagators", () => {
    t = initTelemetry({ serviceName: 'dispatcher', env: {} });
    // A library's tracer is OpenTelemetry's no-op: no ids of its own, nothing recorded...
    const root = trace.getTracer('@toolhub/lib').startSpan('root');
    expect(trace.isSpanContextValid(root.spanContext())).toBe(false);
    // ...and a caller's span context passes through it unchanged.
    const remote = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true };
    expect(trace.getTracer('@toolhub/lib').startSpan('child', {}, trace.setSpanContext(context.active(), remote)).spanContext()).toEqual(remote);
    expect(propagation.fields()).toEqual(['traceparent', 'tracestate', 'baggage']);
  });

  it('registers the provider globally when the async context is asked for (log correlation)', () => {
    t = initTelemetry({ serviceName: 'dispatcher', env: { TOOLHUB_ASYNC_CONTEXT: '1' } });
    const span = trace.getTracer('@toolhub/lib').startSpan('root');
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
    span.end();
  });

  it('leaves the choice to OTEL_TRACES_SAMPLER when it is set', () => {
    t = initTelemetry({ serviceName: 'dispatcher', env: { OTEL_TRACES_SAMPLER: 'always_on' } });
    const span = t.getTracer().startSpan('root');
    expect(span.isRecording()).toBe(true);
    span.end();
  });
});
