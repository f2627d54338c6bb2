/**
 * Local errors of @toolhub/cache. A cache never fails a request because its backend is down
 * (a down backend is a miss or a no-op); these errors only report mistakes of the caller.
 */

import { findCause } from '@toolhub/contracts';

/** What went wrong: `invalid_argument` (a bad TTL, key or option value). */
export type CacheErrorCode = 'invalid_argument';

/** A cache call or option was invalid; `code` says how, so callers can map it without parsing text. */
export class CacheError extends Error {
  override readonly name = 'CacheError';

  constructor(
    readonly code: CacheErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Type guard that follows `cause` chains. */
export function isCacheError(err: unknown, code?: CacheErrorCode): err is CacheError {
  const found = findCause(err, (e): e is CacheError => e instanceof CacheError);
  return found !== undefined && (code === undefined || found.code === code);
}
