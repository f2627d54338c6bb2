/**
 * @toolhub/cache — the Cache port of the dispatcher and its implementations: MemoryCache (one
 * process), RedisCache (shared, degrades to "no cache" while Redis is down) and TieredCache (an
 * in-process L1 in front of either), plus the key layout and TTL policy of cached tool info and
 * lists. Any new export added here becomes public API.
 */
export type { Cache, CacheHealth, CacheStateChange } from './cache';
export { CacheError, isCacheError, type CacheErrorCode } from './errors';
export { MemoryCache, memoryCacheDefaults, type MemoryCacheOptions } from './memory-cache';
export { RedisCache } from './redis-cache';
export { redisCacheDefaults, type RedisCacheOptions, type ResolvedRedisCacheOptions } from './redis-options';
export { TieredCache, tieredCacheDefaults, type TieredCacheOptions } from './tiered-cache';
export { providerKeyPrefix, toolInfoKey, toolInfoKeyPrefix, toolListKey, toolListKeyPrefix } from './keys';
export { DEFAULT_TTL_POLICY, ttlForImportance, ttlPolicy, type TtlPolicy } from './ttl';
