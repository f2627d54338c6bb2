/**
 * @toolhub/telemetry — tracing, trace propagation and structured logging shared by every ToolHub
 * service. Any new export added here becomes public API.
 */
export { initTelemetry, type Telemetry, type TelemetryOptions } from './telemetry';
export type { TraceExporterKind } from './exporters';
export type { EnvMap } from './resource';
export { getTracer, withSpan, recordSpanError, type WithSpanOptions } from './spans';
export {
  injectTraceHeaders,
  extractTraceContext,
  injectGrpcMetadata,
  extractGrpcContext,
  type IncomingHeaders,
} from './propagation';
export {
  createLogger,
  DEFAULT_REDACT_PATHS,
  REDACTED,
  type Logger,
  type LoggerOptions,
  type LogLevel,
} from './logger';
export { TelemetryError, isTelemetryError, type TelemetryErrorCode } from './errors';
