/**
 * Remembers recent idempotency keys so a retried call returns the first call's result instead of
 * running the tool twice. Holds the promise, so a retry that arrives while the first attempt is
 * still running waits for it rather than starting a second run.
 */
export interface IdempotencyOptions {
  /** @default 600000 (10 minutes) */
  ttlMs?: number;
  /** @default 10000 */
  maxEntries?: number;
}

export class IdempotencyCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; expires: number }>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(options: IdempotencyOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Returns the remembered result for `key`, or runs `fn` and remembers it (failures are forgotten). */
  run(key: string, fn: () => Promise<T>, now = Date.now()): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    const value = fn();
    this.entries.set(key, { value, expires: now + this.ttlMs });
    // A failed call may be retried for real: only successes are replayed.
    value.catch(() => this.entries.delete(key));
    this.evict(now);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(now: number): void {
    if (this.entries.size <= this.maxEntries) return;
    // Map iterates in insertion order: the oldest entries go first.
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && e.expires > now) break;
      this.entries.delete(k);
    }
  }
}
