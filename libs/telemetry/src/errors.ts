/** Local errors of @toolhub/telemetry. They describe misconfiguration, never a failed request. */

/** Why a telemetry operation was refused. */
export type TelemetryErrorCode = 'invalid_option' | 'already_initialized' | 'exporter_unavailable';

/**
 * Telemetry could not be set up as asked: a bad option or environment variable (`invalid_option`),
 * a test provider set up over a live one (`already_initialized`), or an exporter package missing
 * (`exporter_unavailable`). `code` says which, so callers need not read the message.
 */
export class TelemetryError extends Error {
  override readonly name = 'TelemetryError';

  constructor(
    readonly code: TelemetryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Type guard for {@link TelemetryError} that follows `cause` chains, optionally for one `code`.
 */
export function isTelemetryError(err: unknown, code?: TelemetryErrorCode): err is TelemetryError {
  let current: unknown = err;
  for (let i = 0; i < 8 && current; i++) {
    if (current instanceof TelemetryError) return code === undefined || current.code === code;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
