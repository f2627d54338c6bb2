import { randomUUID } from 'node:crypto';
import { TieredCache } from '@toolhub/cache';
import { RedisCache } from '@toolhub/cache/redis';
import { cacheContractSuite } from '@toolhub/cache/testing';
import { startRedisServer, type RedisServer } from './support/redis-server';

// REDIS_URL points at a server someone else runs; otherwise start a private one. Every cache gets
// its own key prefix, so tests never see each other's keys even on a shared server.
let server: RedisServer | undefined;
let url: string;

beforeAll(async () => {
  if (process.env['REDIS_URL']) {
    url = process.env['REDIS_URL'];
  } else {
    server = await startRedisServer();
    url = server.url;
  }
});

afterAll(async () => {
  await server?.stop();
});

async function connect(): Promise<RedisCache> {
  const cache = await RedisCache.connect({ url, keyPrefix: `test:${randomUUID()}:`, commandTimeoutMs: 1000 });
  if (!cache.health().healthy) throw new Error(`Redis at ${url} is not reachable: ${cache.health().detail}`);
  return cache;
}

cacheContractSuite('RedisCache', async () => {
  const cache = await connect();
  return { cache, cleanup: () => cache.close() };
});

cacheContractSuite('TieredCache over RedisCache', async () => {
  const cache = new TieredCache(await connect());
  return { cache, cleanup: () => cache.close() };
});
