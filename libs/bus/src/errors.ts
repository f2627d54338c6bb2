/** Local errors of @toolhub/bus. Callers translate them to wire codes (see @toolhub/contracts). */

import { findCause } from '@toolhub/contracts';

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
  const found = findCause(err, (e): e is BusError => e instanceof BusError);
  return found !== undefined && (code === undefined || found.code === code);
}
