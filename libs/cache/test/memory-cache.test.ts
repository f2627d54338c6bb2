import { isCacheError, MemoryCache, TieredCache } from '@toolhub/cache';

const TTL = 60_000;

describe('MemoryCache', () => {
  it('evicts the least recently used entry when it holds more than maxEntries', async () => {
    const cache = new MemoryCache({ maxEntries: 2 });
    await cache.set('a', Uint8Array.from([1]), TTL);
    await cache.set('b', Uint8Array.from([2]), TTL);
    await cache.get('a'); // a is now more recent than b
    await cache.set('c', Uint8Array.from([3]), TTL);
    await expect(cache.get('b')).resolves.toBeUndefined();
    await expect(cache.get('a')).resolves.toEqual(Uint8Array.from([1]));
    await expect(cache.get('c')).resolves.toEqual(Uint8Array.from([3]));
  });

  it('evicts old entries to stay within maxBytes', async () => {
    const cache = new MemoryCache({ maxBytes: 250 });
    for (const key of ['k1', 'k2', 'k3']) await cache.set(key, new Uint8Array(100), TTL);
    await expect(cache.get('k1')).resolves.toBeUndefined();
    await expect(cache.get('k3')).resolves.toHaveLength(100);
    expect(cache.size).toBe(2);
  });

  it('does not cache a value larger than maxBytes, and drops the key’s older value', async () => {
    const cache = new MemoryCache({ maxBytes: 100 });
    await cache.set('big', Uint8Array.from([1]), TTL);
    await cache.set('big', new Uint8Array(500), TTL);
    await expect(cache.get('big')).resolves.toBeUndefined();
  });

  it('reports its fill level in the health detail', async () => {
    const cache = new MemoryCache({ maxEntries: 10, maxBytes: 1000 });
    await cache.set('k', new Uint8Array(9), TTL);
    expect(cache.health()).toEqual({ healthy: true, detail: 'memory cache: 1/10 entries, 10/1000 bytes' });
  });

  it.each([
    ['maxEntries', { maxEntries: 0 }],
    ['maxBytes', { maxBytes: -1 }],
    ['maxEntries', { maxEntries: 1.5 }],
  ])('rejects a bad %s option with a message naming it', (field, options) => {
    let error: unknown;
    try {
      new MemoryCache(options);
    } catch (err) {
      error = err;
    }
    expect(isCacheError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain(field);
  });
});

describe('MemoryCache.peek and TieredCache.peek', () => {
  it('give what is in memory without waiting, and nothing once it is deleted or expired', async () => {
    const cache = new MemoryCache();
    await cache.set('k', Uint8Array.from([1, 2]), 60_000);
    await cache.set('short', Uint8Array.from([3]), 1);
    expect([...cache.peek('k')!]).toEqual([1, 2]);
    await new Promise((r) => setTimeout(r, 20));
    expect(cache.peek('short')).toBeUndefined();
    await cache.delete('k');
    expect(cache.peek('k')).toBeUndefined();
    expect(cache.peek('never')).toBeUndefined();
  });

  it('TieredCache peeks its in-process tier only', async () => {
    const l2 = new MemoryCache();
    await l2.set('only-in-l2', Uint8Array.from([9]), 60_000);
    const tiered = new TieredCache(l2);
    expect(tiered.peek('only-in-l2')).toBeUndefined(); // not known here: get() asks L2
    expect([...(await tiered.get('only-in-l2'))!]).toEqual([9]);
    expect([...tiered.peek('only-in-l2')!]).toEqual([9]); // L1 filled by that read
  });
});
