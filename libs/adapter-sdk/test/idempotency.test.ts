import { IdempotencyCache } from '../src/idempotency';

describe('IdempotencyCache', () => {
  it('returns the first result for a repeated key without running again', async () => {
    const cache = new IdempotencyCache<number>();
    let runs = 0;
    const fn = async () => ++runs;
    expect(await cache.run('k', fn)).toBe(1);
    expect(await cache.run('k', fn)).toBe(1);
    expect(runs).toBe(1);
  });

  it('lets a concurrent retry wait for the first attempt', async () => {
    const cache = new IdempotencyCache<string>();
    let runs = 0;
    const slow = () => new Promise<string>((r) => setTimeout(() => r(`run${++runs}`), 20));
    const [a, b] = await Promise.all([cache.run('k', slow), cache.run('k', slow)]);
    expect([a, b, runs]).toEqual(['run1', 'run1', 1]);
  });

  it('forgets failures so they can be retried for real', async () => {
    const cache = new IdempotencyCache<number>();
    await expect(cache.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await new Promise((r) => setImmediate(r));
    expect(await cache.run('k', async () => 7)).toBe(7);
  });

  it('expires entries after the TTL and bounds its size', async () => {
    const cache = new IdempotencyCache<number>({ ttlMs: 10, maxEntries: 3 });
    await cache.run('a', async () => 1, 0);
    expect(await cache.run('a', async () => 2, 100)).toBe(2);
    for (const k of ['b', 'c', 'd', 'e']) await cache.run(k, async () => 0, 100);
    expect(cache.size).toBeLessThanOrEqual(3);
  });
});
