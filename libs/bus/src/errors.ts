/** Local errors of @toolhub/bus. Callers translate them to wire codes (see @toolhub/contracts). */

/**
 * How a bus operation failed.
 * - `no_responders`: nobody serves the subject (fail fast instead of waiting for the timeout).
 * - `timeout`: no reply in time. - `closed`: the bus was closed. - `payload_too_large`: over `maxPayload`.
 * - `publish_failed`: a durable event was not stored. - `connection_failed`: cannot reach the broker.
 * - `invalid_argument`: a malformed subject, durable name or option (a programming error; added so
 *   both implementations reject bad input with the same code instead of a broker-specific error).
 */
export type BusErrorCode =
  | 'no_responders'
  | 'timeout'
  | 'closed'
  | 'payload_too_large'
  | 'publish_failed'
  | 'connection_failed'
  | 'invalid_argument';

/** A bus operation failed; `code` says how, so callers can map it without reading the message. */
export class BusError extends Error {
  override readonly name = 'BusError';

  constructor(
    readonly code: BusErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Type guard that follows `cause` chains. */
export function isBusError(err: unknown, code?: BusErrorCode): err is BusError {
  let current: unknown = err;
  for (let i = 0; i < 8 && current; i++) {
    if (current instanceof BusError) return code === undefined || current.code === code;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
