/**
 * @toolhub/cache — the Cache port of the dispatcher and its implementations: MemoryCache (one
 * process) and TieredCache (an in-process L1 in front of any Cache), plus the key layout and TTL
 * policy of cached tool info and lists. RedisCache (shared, degrades to "no cache" while Redis is
 * down) has its own entry, `@toolhub/cache/redis`, so only a process that uses Redis loads ioredis.
 * Any new export added here becomes public API.
 */
export type { Cache, CacheHealth, CacheStateChange } from './cache';
export { CacheError, isCacheError, type CacheErrorCode } from './errors';
export { MemoryCache, memoryCacheDefaults, type MemoryCacheOptions } from './memory-cache';
export { TieredCache, tieredCacheDefaults, type TieredCacheOptions } from './tiered-cache';
export { providerKeyPrefix, toolInfoKey, toolInfoKeyPrefix, toolListKey, toolListKeyPrefix } from './keys';
export { DEFAULT_TTL_POLICY, ttlForImportance, ttlPolicy, type TtlPolicy } from './ttl';
