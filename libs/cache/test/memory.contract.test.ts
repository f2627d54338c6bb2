import { MemoryCache, TieredCache } from '@toolhub/cache';
import { cacheContractSuite } from '@toolhub/cache/testing';

cacheContractSuite('MemoryCache', async () => {
  const cache = new MemoryCache();
  return { cache, cleanup: () => cache.close() };
});

cacheContractSuite('TieredCache over MemoryCache', async () => {
  const cache = new TieredCache(new MemoryCache());
  return { cache, cleanup: () => cache.close() };
});
