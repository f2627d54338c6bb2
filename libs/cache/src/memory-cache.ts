import { LRUCache } from 'lru-cache';
import type { Cache, CacheHealth } from './cache';
import { CacheError } from './errors';
import { assertTtlMs } from './ttl';

/** Options of {@link MemoryCache}. */
export interface MemoryCacheOptions {
  /**
   * Most entries kept; the least recently used go first. lru-cache preallocates arrays of this
   * length, so keep it in the thousands to low millions.
   * @default 10000
   */
  maxEntries?: number;
  /**
   * Most bytes kept (value bytes plus key length); the least recently used go first.
   * A single value larger than this is not cached at all.
   * @default 67108864 (64 MiB)
   */
  maxBytes?: number;
}

/** Fills in the defaults of {@link MemoryCacheOptions}. @throws CacheError naming a bad field. */
export function memoryCacheDefaults(options: MemoryCacheOptions = {}): Required<MemoryCacheOptions> {
  const resolved = { maxEntries: options.maxEntries ?? 10_000, maxBytes: options.maxBytes ?? 64 * 1024 * 1024 };
  for (const [field, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new CacheError('invalid_argument', `MemoryCache option ${field} must be a positive integer, got ${String(value)}`);
    }
  }
  return resolved;
}

/**
 * An in-process {@link Cache} with per-entry TTL and an LRU bound by entries and bytes
 * (lru-cache underneath). The cache of the one-process mode and the L1 of {@link TieredCache}.
 * Values are copied in and out, so callers may reuse or mutate their arrays.
 */
export class MemoryCache implements Cache {
  readonly #lru: LRUCache<string, Uint8Array>;
  readonly #options: Required<MemoryCacheOptions>;
  #closed = false;

  /** @throws CacheError `invalid_argument` when an option is not a positive integer. */
  constructor(options?: MemoryCacheOptions) {
    this.#options = memoryCacheDefaults(options);
    this.#lru = new LRUCache<string, Uint8Array>({
      max: this.#options.maxEntries,
      maxSize: this.#options.maxBytes,
      sizeCalculation: (value, key) => Math.max(1, value.byteLength + key.length),
      // Precise expiry and no timers: lru-cache otherwise caches `performance.now()` behind a
      // short timer, which only saves a cheap call here.
      ttlResolution: 0,
    });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const value = this.#lru.get(key);
    return value === undefined ? undefined : value.slice();
  }

  /** The stored array itself (no copy): see {@link Cache.peek}. */
  peek(key: string): Uint8Array | undefined {
    return this.#lru.get(key);
  }

  async set(key: string, value: Uint8Array, ttlMs: number): Promise<void> {
    assertTtlMs(ttlMs);
    if (this.#closed) return;
    // lru-cache refuses entries larger than maxBytes; it also drops the key's old value then,
    // which is what we want (no stale value outlives an overwrite).
    this.#lru.set(key, value.slice(), { ttl: Math.ceil(ttlMs) });
  }

  async delete(key: string): Promise<void> {
    this.#lru.delete(key);
  }

  async deleteByPrefix(prefix: string): Promise<number> {
    let removed = 0;
    // Snapshot first: deleting while a generator walks the list would skip entries.
    for (const key of [...this.#lru.keys()]) {
      if (!key.startsWith(prefix)) continue;
      if (this.#lru.has(key)) removed++; // `has` is false for expired entries, which don't count
      this.#lru.delete(key);
    }
    return removed;
  }

  health(): CacheHealth {
    if (this.#closed) return { healthy: false, detail: 'memory cache closed' };
    return {
      healthy: true,
      detail: `memory cache: ${this.#lru.size}/${this.#options.maxEntries} entries, ${this.#lru.calculatedSize}/${this.#options.maxBytes} bytes`,
    };
  }

  /** Number of entries held, expired ones included until they are touched. */
  get size(): number {
    return this.#lru.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#lru.clear();
  }
}
