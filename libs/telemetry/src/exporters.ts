/** Span exporters ToolHub can send spans to, chosen by option or environment. */
import { ExportResultCode, hrTimeToMicroseconds, hrTimeToMilliseconds, type ExportResult } from '@opentelemetry/core';
// Type only: the module itself is required lazily in createOtlpExporter().
import type { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { TelemetryError } from './errors';

/**
 * Where spans go: `none` (spans exist for propagation and log correlation, nothing is exported),
 * `console` (one JSON line per span on stderr, for debugging), `otlp` (OTLP/HTTP with JSON
 * bodies to a collector, port 4318).
 */
export type TraceExporterKind = 'none' | 'console' | 'otlp';

const KINDS: readonly TraceExporterKind[] = ['none', 'console', 'otlp'];

/** Narrows an `OTEL_TRACES_EXPORTER`-style value, or throws `invalid_option` naming `source`. */
export function parseExporterKind(value: string, source: string): TraceExporterKind {
  const kind = value.trim().toLowerCase();
  if ((KINDS as readonly string[]).includes(kind)) return kind as TraceExporterKind;
  throw new TelemetryError('invalid_option', `${source}="${value}" is not a trace exporter ToolHub supports; expected one of ${KINDS.join(', ')}`);
}

/**
 * Writes each finished span as one JSON line to stderr. Unlike the SDK's `ConsoleSpanExporter`
 * (multi-line `console.dir` on stdout), this keeps stdout clean for CLI output and stays greppable.
 */
export class StderrSpanExporter implements SpanExporter {
  private stopped = false;

  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(line)) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('exporter is shut down') });
      return;
    }
    for (const span of spans) this.write(`${JSON.stringify(toLine(span))}\n`);
    resultCallback({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
  }

  async forceFlush(): Promise<void> {}
}

function toLine(span: ReadableSpan): Record<string, unknown> {
  const ctx = span.spanContext();
  return {
    span: span.name,
    trace_id: ctx.traceId,
    span_id: ctx.spanId,
    parent_span_id: span.parentSpanContext?.spanId,
    kind: span.kind,
    scope: span.instrumentationScope.name,
    service: span.resource.attributes['service.name'],
    start: new Date(hrTimeToMilliseconds(span.startTime)).toISOString(),
    duration_ms: Math.round(hrTimeToMicroseconds(span.duration)) / 1000,
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
  };
}

/**
 * Loads the OTLP/HTTP exporter on demand: the package costs ~50 ms to require, which services that
 * export nothing (and CLI runs) should not pay.
 */
export function createOtlpExporter(url: string): SpanExporter {
  let mod: { OTLPTraceExporter: typeof OTLPTraceExporter };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy load, see above
    mod = require('@opentelemetry/exporter-trace-otlp-http') as typeof mod;
  } catch (cause) {
    throw new TelemetryError('exporter_unavailable', 'OTLP trace export was requested but @opentelemetry/exporter-trace-otlp-http is not installed', { cause });
  }
  // Headers, timeout and compression still come from the standard OTEL_EXPORTER_OTLP_* variables.
  return new mod.OTLPTraceExporter({ url });
}
