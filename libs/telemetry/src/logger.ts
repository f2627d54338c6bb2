/** The one structured logger of ToolHub: pino, JSON lines on stderr, trace ids on every line. */
import { hostname } from 'node:os';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { TelemetryError } from './errors';

/** A ToolHub logger (a pino logger: `info(obj, msg)`, `child(bindings)`, ...). */
export type Logger = PinoLogger;

/** Levels a logger accepts, most to least severe; `silent` logs nothing. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Field paths censored in every log line (pino redact syntax: `*` matches one level). Covers the
 * secrets ToolHub handles: credentials in adapter configs and tool arguments, HTTP/gRPC auth
 * headers, and whole environment maps.
 */
export const DEFAULT_REDACT_PATHS: readonly string[] = [
  'authorization',
  'token',
  'password',
  'secret',
  'apiKey',
  'api_key',
  'accessToken',
  'refreshToken',
  'clientSecret',
  'cookie',
  'env',
  'headers.authorization',
  'headers.Authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  '*.authorization',
  '*.token',
  '*.password',
  '*.secret',
  '*.apiKey',
  '*.api_key',
  '*.accessToken',
  '*.refreshToken',
  '*.clientSecret',
  '*.env',
  '*.headers.authorization',
  '*.headers.Authorization',
  '*.headers.cookie',
  '*.headers["x-api-key"]',
];

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Logger name, written as `name` on each line (e.g. `dispatcher`, `adapter-mcp`). */
  name: string;
  /** Minimum level written. @default `LOG_LEVEL` from `env`, else `info` */
  level?: LogLevel;
  /** Extra paths to redact, added to {@link DEFAULT_REDACT_PATHS}. @default [] */
  redact?: readonly string[];
  /** Fields on every line, e.g. `{ provider: 'mcp' }`. pid and hostname are always there. @default {} */
  bindings?: Record<string, unknown>;
  /**
   * Where lines go. @default stderr (synchronous), so stdout stays clean for CLI output and no
   * line is lost when the process exits.
   */
  destination?: DestinationStream;
  /** Environment to read `LOG_LEVEL` from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

let stderr: DestinationStream | undefined;

/**
 * Creates a JSON-lines logger. Each line has `level` (as a word), an ISO `time`, `name`, and,
 * when a span is active and valid, `trace_id`, `span_id` and `trace_flags` so logs join traces.
 * Secret fields (see {@link DEFAULT_REDACT_PATHS}) are replaced by `[REDACTED]`.
 *
 * @throws TelemetryError `invalid_option` when `level` or `LOG_LEVEL` is not a known level (a typo
 *   would otherwise silence or flood the logs).
 */
export function createLogger(options: LoggerOptions): Logger {
  const level = resolveLevel(options);
  const destination = options.destination ?? (stderr ??= pino.destination({ fd: 2, sync: true }));
  return pino(
    {
      name: options.name,
      level,
      base: { pid: process.pid, hostname: hostname(), ...options.bindings },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...DEFAULT_REDACT_PATHS, ...(options.redact ?? [])], censor: REDACTED },
      mixin: traceMixin,
    },
    destination,
  );
}

/** Trace correlation fields of the active span, following the OpenTelemetry log data model names. */
function traceMixin(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const ctx = span.spanContext();
  if (!isSpanContextValid(ctx)) return {};
  return { trace_id: ctx.traceId, span_id: ctx.spanId, trace_flags: `0${ctx.traceFlags.toString(16)}`.slice(-2) };
}

function resolveLevel(options: LoggerOptions): LogLevel {
  if (options.level !== undefined) return checkLevel(options.level, 'level');
  const fromEnv = (options.env ?? process.env)['LOG_LEVEL']?.trim();
  return fromEnv ? checkLevel(fromEnv.toLowerCase(), 'LOG_LEVEL') : 'info';
}

function checkLevel(value: string, source: string): LogLevel {
  if ((LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new TelemetryError('invalid_option', `${source}="${value}" is not a log level; expected one of ${LEVELS.join(', ')}`);
}
