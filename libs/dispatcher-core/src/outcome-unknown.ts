/**
 * Marks the errors of calls whose adapter replica was lost before it answered (it died, froze or
 * the bus went away): whether the tool ran is not known. RunTool reports them as they are; an async
 * run of a tool that is not idempotent ends `unknown` on them instead of `failed`.
 */
import { findCause } from '@toolhub/contracts';

const marked = new WeakSet<object>();

/** Marks `err` as "the call's outcome is unknown" and returns it. */
export function markOutcomeUnknown<E extends Error>(err: E): E {
  marked.add(err);
  return err;
}

/** True when `err` or an error in its `cause` chain was marked by {@link markOutcomeUnknown}. */
export function isOutcomeUnknown(err: unknown): boolean {
  return findCause(err, (e) => typeof e === 'object' && e !== null && marked.has(e)) !== undefined;
}
