/**
 * Local errors of @toolhub/search. A bad search request (no query, a bad limit or path) is the
 * caller's mistake and is thrown as the wire error `ToolHubError` (`invalid_argument`) from
 * @toolhub/contracts, so the registry can return it as it is. `SearchError` is for what the
 * caller of the library got wrong at construction time: options out of range.
 */

import { findCause } from '@toolhub/contracts';

/** What went wrong: `invalid_options` — a constructor option is out of range. */
export type SearchErrorCode = 'invalid_options';

/** A misconfigured search index; never caused by an agent's request. */
export class SearchError extends Error {
  override readonly name = 'SearchError';

  constructor(
    readonly code: SearchErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Type guard that follows `cause` chains; with `code`, also checks the code. */
export function isSearchError(err: unknown, code?: SearchErrorCode): err is SearchError {
  const found = findCause(err, (e): e is SearchError => e instanceof SearchError);
  return found !== undefined && (code === undefined || found.code === code);
}
