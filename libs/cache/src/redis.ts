/**
 * @toolhub/cache/redis — the Redis implementation of the Cache port (ioredis): shared by
 * dispatcher replicas, degrades to "no cache" while Redis is down. Its own entry so a process that
 * caches in memory only (the one-process mode) does not load `ioredis`; the port, MemoryCache and
 * TieredCache stay in `@toolhub/cache`. Any new export added here becomes public API.
 */
export { RedisCache } from './redis-cache';
export { redisCacheDefaults, type RedisCacheOptions, type ResolvedRedisCacheOptions } from './redis-options';
