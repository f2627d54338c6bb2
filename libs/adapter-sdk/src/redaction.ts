/**
 * The SDK's redaction backstop. An adapter configured with secrets (an MCP server's env, a cloud
 * API's credentials) hands serveAdapter its redactor, and everything the SDK sends or logs for it
 * passes through that one redactor: successful results, tool errors, thrown errors, health detail,
 * quarantine reasons and the SDK's own log lines — whatever the adapter already redacted itself.
 * (tool.called events carry no text: ids, status and codes only.)
 */
import type { SdkLogger } from './server';
import type { ToolResult } from './types';

/** What the SDK needs of a redactor; `SecretRedactor` of @toolhub/config is one. */
export interface Redactor {
  /** True when there is nothing to hide: the SDK then skips redaction entirely. */
  readonly empty: boolean;
  /** `text` with every known secret replaced. */
  redact(text: string): string;
  /** A copy of a JSON value with every string redacted (binary data kept). */
  redactJson<T>(value: T): T;
}

/** The messages of an error and of its causes, as loggers print them (`a: b: c`). */
function messageWithCauses(err: Error): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e) && parts.length < 10; e = e.cause) {
    seen.add(e);
    parts.push(e.message);
  }
  return parts.join(': ');
}

/**
 * An Error as a plain log value with its text redacted: the message with its causes (loggers such
 * as pino print causes, which the adapter's own message redaction never saw) and the stack.
 */
function loggableError(err: Error, r: Redactor): { type: string; message: string; stack?: string; code?: string } {
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    message: r.redact(messageWithCauses(err)),
    ...(err.stack ? { stack: r.redact(err.stack) } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

/** `log` with every field and message redacted; Error values become redacted plain objects. */
export function redactingLogger(log: SdkLogger, r: Redactor): SdkLogger {
  if (r.empty) return log;
  const clean = (obj: object): object =>
    Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, v instanceof Error ? loggableError(v, r) : r.redactJson(v as unknown)]));
  return {
    info: (obj, msg) => log.info(clean(obj), msg === undefined ? msg : r.redact(msg)),
    warn: (obj, msg) => log.warn(clean(obj), msg === undefined ? msg : r.redact(msg)),
    error: (obj, msg) => log.error(clean(obj), msg === undefined ? msg : r.redact(msg)),
  };
}

/** A tool result with its text, JSON and structured content and its error message redacted. */
export function redactResult(result: ToolResult, r: Redactor): ToolResult {
  return r.empty ? result : r.redactJson(result);
}
