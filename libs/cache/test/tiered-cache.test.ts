import { type Cache, type CacheHealth, isCacheError, MemoryCache, TieredCache } from '@toolhub/cache';

const TTL = 60_000;

/** An L2 that can be switched off like a Redis outage: misses, dropped writes, unhealthy. */
class SwitchableCache implements Cache {
  readonly inner = new MemoryCache();
  down = false;
  getCalls = 0;
  /** Resolves the next `get` only when released, to interleave a delete with it. */
  gate: Promise<void> | undefined;

  async get(key: string): Promise<Uint8Array | undefined> {
    this.getCalls++;
    const value = this.down ? undefined : await this.inner.get(key);
    if (this.gate) await this.gate;
    return value;
  }
  async set(key: string, value: Uint8Array, ttlMs: number): Promise<void> {
    if (!this.down) await this.inner.set(key, value, ttlMs);
  }
  async delete(key: string): Promise<void> {
    if (!this.down) await this.inner.delete(key);
  }
  async deleteByPrefix(prefix: string): Promise<number> {
    return this.down ? 0 : this.inner.deleteByPrefix(prefix);
  }
  health(): CacheHealth {
    return this.down ? { healthy: false, detail: 'down since earlier: switched off' } : { healthy: true, detail: 'up' };
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('TieredCache', () => {
  let l2: SwitchableCache;
  let cache: TieredCache;

  beforeEach(() => {
    l2 = new SwitchableCache();
    cache = new TieredCache(l2, { l1MaxTtlMs: 100 });
  });

  afterEach(() => cache.close());

  it('answers repeated reads from L1 without asking L2', async () => {
    await l2.inner.set('k', Uint8Array.from([1]), TTL);
    await cache.get('k');
    await cache.get('k');
    await cache.get('k');
    expect(l2.getCalls).toBe(1);
  });

  it('keeps serving hot entries from L1 while L2 is down, and reports L2’s health', async () => {
    await cache.set('hot', Uint8Array.from([7]), TTL);
    l2.down = true;
    await expect(cache.get('hot')).resolves.toEqual(Uint8Array.from([7]));
    expect(cache.health()).toEqual({ healthy: false, detail: 'down since earlier: switched off' });
  });

  it('keeps an entry in L1 no longer than l1MaxTtlMs, then reads L2 again', async () => {
    await cache.set('k', Uint8Array.from([1]), TTL);
    await l2.inner.set('k', Uint8Array.from([2]), TTL); // another replica wrote a newer value
    await expect(cache.get('k')).resolves.toEqual(Uint8Array.from([1]));
    await new Promise((resolve) => setTimeout(resolve, 250));
    await expect(cache.get('k')).resolves.toEqual(Uint8Array.from([2]));
  });

  it('clears both tiers on delete and deleteByPrefix', async () => {
    await cache.set('p:1', Uint8Array.from([1]), TTL);
    await cache.set('p:2', Uint8Array.from([2]), TTL);
    await cache.set('q:1', Uint8Array.from([3]), TTL);
    await cache.delete('q:1');
    await expect(cache.deleteByPrefix('p:')).resolves.toBe(2);
    for (const key of ['p:1', 'p:2', 'q:1']) {
      await expect(cache.get(key)).resolves.toBeUndefined();
      await expect(l2.inner.get(key)).resolves.toBeUndefined();
    }
  });

  it('does not refill L1 with a value deleted while it was being read from L2', async () => {
    await l2.inner.set('k', Uint8Array.from([1]), TTL);
    let release!: () => void;
    l2.gate = new Promise((resolve) => (release = resolve));
    const read = cache.get('k'); // reads the old value from L2, then waits at the gate
    await Promise.resolve();
    await cache.delete('k');
    l2.gate = undefined;
    release();
    await expect(read).resolves.toEqual(Uint8Array.from([1]));
    await expect(cache.get('k')).resolves.toBeUndefined();
  });

  it('rejects bad L1 options with a message naming the field', () => {
    expect(() => new TieredCache(l2, { l1MaxEntries: 0 })).toThrow(/l1MaxEntries/);
    let error: unknown;
    try {
      new TieredCache(l2, { l1MaxTtlMs: -5 });
    } catch (err) {
      error = err;
    }
    expect(isCacheError(error, 'invalid_argument')).toBe(true);
  });
});
