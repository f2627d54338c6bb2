/** How deep a `cause` chain is followed (chains are short; a cycle must not loop forever). */
const MAX_CAUSE_DEPTH = 8;

/**
 * The first error in `err` or its `cause` chain that `match` accepts: errors wrapped by other
 * libraries (NATS.js, the MongoDB driver, fetch) still answer to their own type guards.
 * @example findCause(err, (e): e is StoreError => e instanceof StoreError)
 */
export function findCause<T>(err: unknown, match: (e: unknown) => e is T): T | undefined;
export function findCause(err: unknown, match: (e: unknown) => boolean): unknown;
export function findCause(err: unknown, match: (e: unknown) => boolean): unknown {
  let current: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== undefined && current !== null; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `err` and its causes, outermost first (at most 8). */
export function causeChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  findCause(err, (e) => (out.push(e), false));
  return out;
}
