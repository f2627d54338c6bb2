/** Process-wide tracing set-up: one provider per process, however many services share it. */
import { diag, trace, type Attributes, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { AlwaysOffSampler, BatchSpanProcessor, ParentBasedSampler, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { TelemetryError } from './errors';
import { createOtlpExporter, parseExporterKind, StderrSpanExporter, type TraceExporterKind } from './exporters';
import { buildResource, type EnvMap } from './resource';
import { currentState, registerProvider, releaseState, type TelemetryState } from './state';

/** Options of {@link initTelemetry}. */
export interface TelemetryOptions {
  /** `service.name` of the resource, e.g. `dispatcher`. Also the default tracer name of the handle. */
  serviceName: string;
  /** `service.version` of the resource. @default omitted */
  serviceVersion?: string;
  /**
   * Where spans go.
   * @default `OTEL_TRACES_EXPORTER` if set, else `otlp` when an OTLP endpoint is configured, else `none`
   */
  exporter?: TraceExporterKind;
  /**
   * Full OTLP/HTTP traces URL (e.g. `http://collector:4318/v1/traces`). Setting it implies
   * `exporter: 'otlp'` unless `exporter` says otherwise.
   * @default `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`,
   * else `http://localhost:4318/v1/traces` when the exporter is `otlp`
   */
  otlpEndpoint?: string;
  /** Extra resource attributes (e.g. `deployment.environment.name`); they win over everything else. */
  resourceAttributes?: Attributes;
  /** Extra span processors, added after the exporter's. @default [] */
  spanProcessors?: SpanProcessor[];
  /** Environment to read `OTEL_*` variables from. @default process.env */
  env?: EnvMap;
  /**
   * Keep the active span across async calls (an AsyncLocalStorage context manager), so spans nest
   * by themselves and log lines carry the trace id. Node 20's AsyncLocalStorage adds a hook to every
   * promise of the process — ~15% of a dispatcher's CPU per RunTool at concurrency 1 — so it is on
   * only where traces are recorded: when spans are exported or a sampler is chosen. Without it,
   * ToolHub still forwards each caller's trace context to adapters explicitly.
   * @default true when an exporter, a span processor or `OTEL_TRACES_SAMPLER` is set, or
   *   `TOOLHUB_ASYNC_CONTEXT` is `1`/`true`; else false
   */
  asyncContext?: boolean;
}

/**
 * A handle on the process's tracing. Each {@link initTelemetry} call returns its own handle; they
 * share one provider.
 */
export interface Telemetry {
  /** The `serviceName` this handle was created with. */
  readonly serviceName: string;
  /**
   * `false` when this call reused a provider set up earlier in the process (one-process mode, or a
   * test's `setupTestTracing()`); its options other than `serviceName` were then ignored.
   */
  readonly ownsProvider: boolean;
  /**
   * The process's tracer provider. It is the global one (`trace.getTracerProvider()`) only where
   * traces are recorded or the async context is on; see {@link initTelemetry}.
   */
  readonly tracerProvider: TracerProvider;
  /** A tracer of {@link tracerProvider} named `name`. @default name the handle's `serviceName` */
  getTracer(name?: string, version?: string): Tracer;
  /** Exports every finished span that is still buffered. */
  forceFlush(): Promise<void>;
  /**
   * Flushes, and when this is the last open handle shuts the provider down and unregisters it.
   * Idempotent. Never rejects, so it cannot break a shutdown sequence: a failed export is reported
   * through OpenTelemetry's `diag` logger and those spans are lost.
   */
  shutdown(): Promise<void>;
}

/**
 * Sets up tracing for this process: a `NodeTracerProvider` with a `service.name` /
 * `service.version` resource, exporting as {@link TelemetryOptions.exporter} says, the global W3C
 * TraceContext + Baggage propagators and, see {@link TelemetryOptions.asyncContext}, an
 * AsyncLocalStorage context manager.
 *
 * The provider becomes the global one only when an exporter, a span processor or
 * `OTEL_TRACES_SAMPLER` is set, or the async context is on. Otherwise its spans would go nowhere:
 * the libraries' tracers stay OpenTelemetry's no-ops, so a call creates no span objects, ids or
 * timers, and a caller's W3C trace context is passed on unchanged (the gRPC edge hands it to the
 * dispatcher as `CallContext.traceHeaders`). The handle's {@link Telemetry.getTracer} still reaches
 * the provider.
 *
 * Safe to call more than once (one-process mode starts several services in one Node process):
 * later calls reuse the first provider and only add a reference; the provider shuts down when
 * the last handle's `shutdown()` runs.
 *
 * @throws TelemetryError `invalid_option` for an unknown exporter (option or `OTEL_TRACES_EXPORTER`);
 *   `exporter_unavailable` if OTLP is asked for and the exporter package is missing.
 */
export function initTelemetry(options: TelemetryOptions): Telemetry {
  if (!options.serviceName) throw new TelemetryError('invalid_option', 'initTelemetry: serviceName is required');
  const existing = currentState();
  if (existing) {
    existing.refs += 1;
    return createHandle(existing, options.serviceName, false);
  }
  const env = options.env ?? process.env;
  const spanProcessors = [...exporterProcessors(options, env), ...(options.spanProcessors ?? [])];
  const provider = new NodeTracerProvider({
    resource: buildResource({
      serviceName: options.serviceName,
      serviceVersion: options.serviceVersion,
      attributes: options.resourceAttributes,
      env,
    }),
    spanProcessors,
    // Nothing exported here: record only the traces a caller samples. Spans this process starts
    // itself stay non-recording — valid ids for log correlation and propagation, without the
    // cost of recording (~40 µs per RunTool in the dispatcher). OTEL_TRACES_SAMPLER overrides.
    ...(spanProcessors.length === 0 && !nonEmpty(env['OTEL_TRACES_SAMPLER']) ? { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) } : {}),
  });
  const traced = spanProcessors.length > 0 || nonEmpty(env['OTEL_TRACES_SAMPLER']) !== undefined;
  const asyncContext = options.asyncContext ?? (traced || /^(1|true|yes|on)$/i.test(env['TOOLHUB_ASYNC_CONTEXT']?.trim() ?? ''));
  // Spans that go nowhere and no active span to follow: the provider stays off the global API, so
  // the libraries' tracers are OpenTelemetry's no-ops and the hot paths skip spans altogether
  // (~3% of a one-process ToolHub's CPU at concurrency 1), passing a caller's trace context on as is.
  const tracer = traced || asyncContext;
  return createHandle(registerProvider(provider, 'sdk', options.serviceName, { tracer, asyncContext }), options.serviceName, true);
}

function exporterProcessors(options: TelemetryOptions, env: EnvMap): SpanProcessor[] {
  const endpoint = options.otlpEndpoint ?? otlpEndpointFromEnv(env);
  const fromEnv = nonEmpty(env['OTEL_TRACES_EXPORTER']);
  const kind: TraceExporterKind =
    options.exporter !== undefined
      ? // Checked at run time too: JavaScript callers and config files are not type-checked.
        parseExporterKind(options.exporter, 'exporter')
      : fromEnv
        ? parseExporterKind(fromEnv, 'OTEL_TRACES_EXPORTER')
        : endpoint
          ? 'otlp'
          : 'none';
  switch (kind) {
    case 'none':
      return [];
    case 'console':
      // Simple (synchronous) processing: console export is for debugging, where order and
      // immediacy matter more than throughput.
      return [new SimpleSpanProcessor(new StderrSpanExporter())];
    case 'otlp':
      return [new BatchSpanProcessor(createOtlpExporter(endpoint ?? 'http://localhost:4318/v1/traces'))];
  }
}

function otlpEndpointFromEnv(env: EnvMap): string | undefined {
  const traces = nonEmpty(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
  if (traces) return traces;
  const base = nonEmpty(env['OTEL_EXPORTER_OTLP_ENDPOINT']);
  // The spec: the generic endpoint is a base URL to which the signal path is appended.
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/** The OpenTelemetry spec treats an empty variable as unset. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function createHandle(state: TelemetryState, serviceName: string, ownsProvider: boolean): Telemetry {
  let released = false;
  return {
    serviceName,
    ownsProvider,
    tracerProvider: state.provider,
    getTracer: (name = serviceName, version) => (state.globalTracer ? trace.getTracer(name, version) : state.provider.getTracer(name, version)),
    forceFlush: () => (state.closed ? Promise.resolve() : state.provider.forceFlush()),
    async shutdown() {
      if (released) return;
      released = true;
      try {
        await releaseState(state);
      } catch (err) {
        diag.error(`@toolhub/telemetry: flushing spans on shutdown failed: ${String(err)}`);
      }
    },
  };
}
