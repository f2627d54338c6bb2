/**
 * The Cache port of the dispatcher: a byte store with per-entry TTL and prefix eviction.
 * Implementations: {@link MemoryCache} (one-process mode), {@link RedisCache} (shared), and
 * {@link TieredCache} (a small in-process L1 in front of either). All pass one contract suite
 * (`cacheContractSuite` in `@toolhub/cache/testing`).
 */

/** Health of a cache, as shown in the dispatcher's health detail. */
export interface CacheHealth {
  /** `false` while the backend is unreachable (the cache then acts as an empty cache) or closed. */
  readonly healthy: boolean;
  /** One line for operators, e.g. `redis ready at redis://127.0.0.1:6379` or `down since <ISO time>: <reason>`. */
  readonly detail: string;
}

/** Passed to `onStateChange` each time a cache turns unhealthy or healthy again. */
export interface CacheStateChange extends CacheHealth {
  /** When the new state began. */
  readonly since: Date;
  /** Why the cache went down (absent when it turned healthy). */
  readonly reason?: string;
}

/**
 * A cache of opaque bytes (callers store encoded protobuf messages).
 *
 * Keys are arbitrary strings (build them with `toolInfoKey` / `toolListKey`). Every entry has a TTL.
 * `get`, `set`, `delete` and `deleteByPrefix` never reject because the backend is down or slow:
 * a down backend reads as a miss and writes are dropped, and `health()` says so. They only reject
 * with a `CacheError` (`invalid_argument`) for a caller's mistake such as a non-positive TTL.
 * After `close()`, the cache behaves as an empty, unhealthy cache.
 */
export interface Cache {
  /** The stored bytes, or `undefined` on a miss, an expired entry, or a backend that is down. */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * The stored bytes when they can be had without waiting (an in-process tier holds them), else
   * `undefined` — a miss or not known here: then ask {@link get}. For hot paths that would otherwise
   * wait a turn for a value in memory. The array is the cache's own: read it, never modify it.
   */
  peek?(key: string): Uint8Array | undefined;
  /**
   * Stores a copy of `value` for `ttlMs` milliseconds, replacing any earlier value.
   * @throws CacheError `invalid_argument` when `ttlMs` is not a positive finite number.
   */
  set(key: string, value: Uint8Array, ttlMs: number): Promise<void>;
  /** Removes one key; a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Removes every key that starts with `prefix` (taken literally, no wildcards) and returns how many
   * live entries were removed (best effort: 0 when the backend is down).
   */
  deleteByPrefix(prefix: string): Promise<number>;
  /** Current health; cheap and synchronous, so health endpoints can call it on every probe. */
  health(): CacheHealth;
  /** Releases connections and memory. Idempotent: later calls return the same promise. */
  close(): Promise<void>;
}
