import type { Cache, CacheHealth } from './cache';
import { CacheError } from './errors';
import { MemoryCache } from './memory-cache';
import { assertTtlMs } from './ttl';

/** Options of {@link TieredCache}: the size and freshness of its in-process L1. */
export interface TieredCacheOptions {
  /**
   * Longest time an entry stays in L1. It bounds how long this process can serve a value that
   * another replica has already invalidated in L2.
   * @default 30000
   */
  l1MaxTtlMs?: number;
  /** Most entries in L1. @default 2000 */
  l1MaxEntries?: number;
  /** Most bytes in L1. @default 8388608 (8 MiB) */
  l1MaxBytes?: number;
}

/** Fills in the defaults of {@link TieredCacheOptions}. @throws CacheError naming a bad field. */
export function tieredCacheDefaults(options: TieredCacheOptions = {}): Required<TieredCacheOptions> {
  const resolved = {
    l1MaxTtlMs: options.l1MaxTtlMs ?? 30_000,
    l1MaxEntries: options.l1MaxEntries ?? 2_000,
    l1MaxBytes: options.l1MaxBytes ?? 8 * 1024 * 1024,
  };
  for (const [field, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new CacheError('invalid_argument', `TieredCache option ${field} must be a positive integer, got ${String(value)}`);
    }
  }
  return resolved;
}

/**
 * A small in-process L1 ({@link MemoryCache}, short TTL) in front of any L2 {@link Cache}, usually
 * a {@link RedisCache}. Reads try L1, then L2 (filling L1); writes go to both; deletes clear both.
 * While L2 is down, L1 keeps serving the hottest entries for up to `l1MaxTtlMs`.
 *
 * The TieredCache owns its L2: `close()` closes both tiers. `health()` is L2's health.
 */
export class TieredCache implements Cache {
  readonly #l1: MemoryCache;
  readonly #l2: Cache;
  readonly #l1MaxTtlMs: number;
  // Bumped by every delete, so a read of L2 that raced with a delete doesn't refill L1 with the
  // value that was just deleted.
  #generation = 0;
  #closing: Promise<void> | undefined;

  /** @throws CacheError `invalid_argument` when an option is not a positive integer. */
  constructor(l2: Cache, options?: TieredCacheOptions) {
    const resolved = tieredCacheDefaults(options);
    this.#l2 = l2;
    this.#l1MaxTtlMs = resolved.l1MaxTtlMs;
    this.#l1 = new MemoryCache({ maxEntries: resolved.l1MaxEntries, maxBytes: resolved.l1MaxBytes });
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const local = await this.#l1.get(key);
    if (local !== undefined) return local;
    const generation = this.#generation;
    const shared = await this.#l2.get(key);
    if (shared !== undefined && generation === this.#generation) {
      // L2 doesn't tell the entry's remaining TTL; the short L1 cap bounds the overshoot.
      await this.#l1.set(key, shared, this.#l1MaxTtlMs);
    }
    return shared;
  }

  /** What L1 holds: see {@link Cache.peek}. */
  peek(key: string): Uint8Array | undefined {
    return this.#l1.peek(key);
  }

  async set(key: string, value: Uint8Array, ttlMs: number): Promise<void> {
    assertTtlMs(ttlMs);
    await this.#l2.set(key, value, ttlMs);
    await this.#l1.set(key, value, Math.min(ttlMs, this.#l1MaxTtlMs));
  }

  async delete(key: string): Promise<void> {
    this.#generation++;
    await this.#l1.delete(key);
    await this.#l2.delete(key);
  }

  /** Clears both tiers; returns the larger of the two counts (L2's, unless L2 is down). */
  async deleteByPrefix(prefix: string): Promise<number> {
    this.#generation++;
    const local = await this.#l1.deleteByPrefix(prefix);
    const shared = await this.#l2.deleteByPrefix(prefix);
    return Math.max(local, shared);
  }

  health(): CacheHealth {
    return this.#l2.health();
  }

  close(): Promise<void> {
    this.#closing ??= Promise.all([this.#l1.close(), this.#l2.close()]).then(() => undefined);
    return this.#closing;
  }
}
