/**
 * Local errors of @toolhub/store. Mistakes of the caller (a bad tool name, a duplicate, a stale
 * preload revision) are wire errors and thrown as `ToolHubError` from @toolhub/contracts, so the
 * registry can return them as they are. `StoreError` reports what is not the caller's fault: the
 * backend failed, the store is closed or locked by another process, or the options are wrong.
 */

import { findCause } from '@toolhub/contracts';

/**
 * What went wrong:
 * - `backend`: the database or the data files failed (see `cause`); `retryable` tells whether the
 *   same call may succeed later (a lost connection) or not (a full disk, a corrupt document).
 * - `closed`: the store was closed before or during the call.
 * - `locked`: an embedded store's directory is in use by another process (or already open here).
 * - `contention`: too many concurrent writers to one document; retry later.
 * - `invalid_options`: a factory option is out of range.
 */
export type StoreErrorCode = 'backend' | 'closed' | 'locked' | 'contention' | 'invalid_options';

/** A failure of the store itself, never of the caller's input. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** True when the same call may succeed later unchanged (e.g. a consumer should nak, not drop). */
  readonly retryable: boolean;

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? (code === 'backend' || code === 'contention');
  }
}

/** Type guard that follows `cause` chains; with `code`, also checks the code. */
export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  const found = findCause(err, (e): e is StoreError => e instanceof StoreError);
  return found !== undefined && (code === undefined || found.code === code);
}
