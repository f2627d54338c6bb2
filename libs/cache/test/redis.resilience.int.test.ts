import { type CacheStateChange, TieredCache } from '@toolhub/cache';
import { RedisCache, type RedisCacheOptions } from '@toolhub/cache/redis';
import { waitFor } from '@toolhub/test-harness';
import { freePort, startRedisServer, type RedisServer } from './support/redis-server';

// These tests crash and hang Redis, so they always run their own server (never REDIS_URL).
// Waits are bounded polls on observable state, not assertions about speed.

const TTL = 60_000;
const RECOVERY_LIMIT_MS = 15_000;

function fastOptions(url: string, changes: CacheStateChange[]): RedisCacheOptions {
  return {
    url,
    commandTimeoutMs: 500,
    connectTimeoutMs: 500,
    reconnectMinDelayMs: 20,
    reconnectMaxDelayMs: 200,
    probeIntervalMs: 50,
    onStateChange: (change) => changes.push(change),
  };
}

function until(what: string, condition: () => boolean | Promise<boolean>): Promise<unknown> {
  return waitFor(condition, { timeoutMs: RECOVERY_LIMIT_MS, intervalMs: 20, message: what });
}

/**
 * Each change of state is reported once: reports alternate down, up, down, … starting with down.
 * How many there are is not asserted: a loaded machine may make the cache flap around a fault
 * (a command timing out on a live but starved Redis), as test/e2e/redis-down.int.test.ts notes.
 */
function expectAlternating(changes: CacheStateChange[]): void {
  expect(changes.length).toBeGreaterThanOrEqual(1);
  expect(changes.map((c) => c.healthy)).toEqual(changes.map((_, i) => i % 2 === 1));
}

describe('RedisCache when Redis goes away', () => {
  let server: RedisServer | undefined;
  let cache: RedisCache | TieredCache | undefined;

  afterEach(async () => {
    await cache?.close();
    await server?.stop();
    cache = undefined;
    server = undefined;
  });

  it('keeps answering without throwing when Redis is killed mid-loop, reports each change of state once, and recovers on restart', async () => {
    server = await startRedisServer();
    const changes: CacheStateChange[] = [];
    const redis = await RedisCache.connect(fastOptions(server.url, changes));
    cache = redis;
    expect(redis.health().healthy).toBe(true);

    const errors: unknown[] = [];
    let hitsBefore = 0;
    for (let i = 0; i < 400; i++) {
      if (i === 200) await server.kill();
      try {
        await redis.set(`loop:${i}`, Uint8Array.from([i % 256]), TTL);
        const value = await redis.get(`loop:${i}`);
        if (i < 200 && value?.[0] === i % 256) hitsBefore++;
        await redis.delete(`loop:${i - 1}`);
        await redis.deleteByPrefix(`loop:${i - 2}`);
      } catch (err) {
        errors.push(err);
      }
    }

    expect(errors).toEqual([]);
    expect(hitsBefore).toBe(200);
    expect(redis.health().healthy).toBe(false);
    expect(redis.health().detail).toMatch(/down since \d{4}-\d\d-\d\dT[\d:.]+Z: \S/);
    expectAlternating(changes);
    expect(changes[0]).toMatchObject({ healthy: false, since: expect.any(Date), reason: expect.any(String) });
    await expect(redis.get('loop:10')).resolves.toBeUndefined();

    await server.restart();
    await until('the cache is healthy again', () => redis.health().healthy);
    expectAlternating(changes);
    const up = changes.filter((c) => c.healthy);
    expect(up.length).toBeGreaterThanOrEqual(1);
    expect(up.every((c) => c.reason === undefined)).toBe(true);
    await redis.set('after-restart', Uint8Array.from([42]), TTL);
    await expect(redis.get('after-restart')).resolves.toEqual(Uint8Array.from([42]));
    expect(redis.health().detail).toBe(`redis ready at ${server.url}`);
  });

  it('stops waiting on a hung Redis, and replays deletes made meanwhile before serving again', async () => {
    server = await startRedisServer();
    const changes: CacheStateChange[] = [];
    const redis = await RedisCache.connect(fastOptions(server.url, changes));
    cache = redis;
    await redis.set('tool:a', Uint8Array.from([1]), TTL);
    await redis.set('provider:x:1', Uint8Array.from([2]), TTL);
    await redis.set('provider:x:2', Uint8Array.from([3]), TTL);
    await redis.set('kept', Uint8Array.from([4]), TTL);

    server.signal('SIGSTOP');
    await expect(redis.get('tool:a')).resolves.toBeUndefined(); // times out → miss
    expect(redis.health().healthy).toBe(false);
    expect(redis.health().detail).toMatch(/timed out/i);
    // Invalidations arrive during the outage; Redis still holds the old entries.
    await expect(redis.delete('tool:a')).resolves.toBeUndefined();
    await expect(redis.deleteByPrefix('provider:x:')).resolves.toBe(0);
    await expect(redis.get('kept')).resolves.toBeUndefined(); // down: no command is even sent

    server.signal('SIGCONT');
    await until('the cache is healthy again', () => redis.health().healthy);
    await expect(redis.get('tool:a')).resolves.toBeUndefined();
    await expect(redis.get('provider:x:1')).resolves.toBeUndefined();
    await expect(redis.get('provider:x:2')).resolves.toBeUndefined();
    await expect(redis.get('kept')).resolves.toEqual(Uint8Array.from([4]));
    expectAlternating(changes);
  });

  it('starts without Redis, reports it as down first, and uses Redis as soon as it appears', async () => {
    const port = await freePort();
    const changes: CacheStateChange[] = [];
    const redis = await RedisCache.connect(fastOptions(`redis://127.0.0.1:${port}`, changes));
    cache = redis;
    expect(redis.health().healthy).toBe(false);
    await expect(redis.set('k', Uint8Array.from([1]), TTL)).resolves.toBeUndefined();
    await expect(redis.get('k')).resolves.toBeUndefined();
    await expect(redis.deleteByPrefix('')).resolves.toBe(0);

    server = await startRedisServer(port);
    await until('the cache is healthy', () => redis.health().healthy);
    await redis.set('k', Uint8Array.from([1]), TTL);
    await expect(redis.get('k')).resolves.toEqual(Uint8Array.from([1]));
    expectAlternating(changes);
    expect(changes[0]?.reason).toMatch(/ECONNREFUSED|closed/);
  });

  it('keeps serving hot entries from L1 through a TieredCache while Redis is down', async () => {
    server = await startRedisServer();
    const changes: CacheStateChange[] = [];
    const tiered = new TieredCache(await RedisCache.connect(fastOptions(server.url, changes)));
    cache = tiered;
    await tiered.set('hot', Uint8Array.from([9]), TTL);

    await server.kill();
    await until('the cache reports Redis down', () => !tiered.health().healthy);
    await expect(tiered.get('hot')).resolves.toEqual(Uint8Array.from([9]));
    await expect(tiered.get('cold')).resolves.toBeUndefined();
    expectAlternating(changes);
  });
});
