/** What {@link PendingInvalidations.take} hands over for replay. */
export interface InvalidationBatch {
  readonly everything: boolean;
  readonly keys: readonly string[];
  readonly prefixes: readonly string[];
}

/**
 * Deletes that could not reach a shared cache, kept to be replayed before the cache is trusted
 * again; otherwise an entry invalidated during an outage would be served stale after it, up to
 * its full TTL. Bounded: past `limit` distinct keys and prefixes, it degrades to "flush everything",
 * which is always correct for a cache.
 */
export class PendingInvalidations {
  #everything = false;
  #keys = new Set<string>();
  #prefixes = new Set<string>();

  constructor(private readonly limit: number) {}

  get isEmpty(): boolean {
    return !this.#everything && this.#keys.size === 0 && this.#prefixes.size === 0;
  }

  addKey(key: string): void {
    if (this.#everything) return;
    this.#keys.add(key);
    this.#checkLimit();
  }

  addPrefix(prefix: string): void {
    if (this.#everything) return;
    if (prefix === '') {
      this.#flushEverything();
      return;
    }
    this.#prefixes.add(prefix);
    this.#checkLimit();
  }

  /** Empties the set and returns what it held. */
  take(): InvalidationBatch {
    const batch = { everything: this.#everything, keys: [...this.#keys], prefixes: [...this.#prefixes] };
    this.#everything = false;
    this.#keys = new Set();
    this.#prefixes = new Set();
    return batch;
  }

  /** Puts back a batch whose replay failed. */
  restore(batch: InvalidationBatch): void {
    if (batch.everything) this.#flushEverything();
    for (const key of batch.keys) this.addKey(key);
    for (const prefix of batch.prefixes) this.addPrefix(prefix);
  }

  #checkLimit(): void {
    if (this.#keys.size + this.#prefixes.size > this.limit) this.#flushEverything();
  }

  #flushEverything(): void {
    this.#everything = true;
    this.#keys.clear();
    this.#prefixes.clear();
  }
}
