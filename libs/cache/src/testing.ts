/**
 * @toolhub/cache/testing — the contract suite every {@link Cache} implementation must pass.
 * Import it only from Jest test files: it registers `describe`/`it` blocks.
 */
import { randomBytes } from 'node:crypto';
import type { Cache } from './cache';
import { isCacheError } from './errors';

/** What the factory of {@link cacheContractSuite} returns: a fresh, empty cache and its teardown. */
export interface CacheUnderTest {
  readonly cache: Cache;
  /** Releases everything the factory started; must tolerate a cache that is already closed. */
  cleanup(): Promise<void>;
}

const LONG_TTL_MS = 60_000;
const SHORT_TTL_MS = 50;
// Comfortably past SHORT_TTL_MS: Redis expires with millisecond precision, timers may run late.
const PAST_SHORT_TTL_MS = 200;

/**
 * Registers one `describe(name)` block of behaviour every Cache implementation shares. `makeCache`
 * is called before each test and must return an empty cache of its own (for a shared Redis, use a
 * unique `keyPrefix` per call).
 */
export function cacheContractSuite(name: string, makeCache: () => Promise<CacheUnderTest>): void {
  describe(`${name} (Cache contract)`, () => {
    let subject: CacheUnderTest;
    let cache: Cache;

    beforeEach(async () => {
      subject = await makeCache();
      cache = subject.cache;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    it('returns the exact bytes it stored', async () => {
      const value = Uint8Array.from([0, 1, 2, 127, 128, 254, 255, 0]);
      await cache.set('round-trip', value, LONG_TTL_MS);
      expectBytes(await cache.get('round-trip'), value);
    });

    it('returns undefined for a key it never stored', async () => {
      await expect(cache.get('never-stored')).resolves.toBeUndefined();
    });

    it('stores an empty value as an empty value, not as a miss', async () => {
      await cache.set('empty', new Uint8Array(0), LONG_TTL_MS);
      expectBytes(await cache.get('empty'), new Uint8Array(0));
    });

    it('stores a copy, so later changes to the caller’s array do not reach the cache', async () => {
      const value = Uint8Array.from([1, 2, 3]);
      await cache.set('copied', value, LONG_TTL_MS);
      value[0] = 99;
      const read = await cache.get('copied');
      expectBytes(read, Uint8Array.from([1, 2, 3]));
      read![1] = 42;
      expectBytes(await cache.get('copied'), Uint8Array.from([1, 2, 3]));
    });

    it('stores a view of a larger buffer as just the viewed bytes', async () => {
      const backing = Uint8Array.from([9, 9, 1, 2, 3, 9, 9]);
      await cache.set('view', backing.subarray(2, 5), LONG_TTL_MS);
      expectBytes(await cache.get('view'), Uint8Array.from([1, 2, 3]));
    });

    it('replaces an earlier value of the same key', async () => {
      await cache.set('overwrite', Uint8Array.from([1, 2, 3, 4, 5, 6]), LONG_TTL_MS);
      await cache.set('overwrite', Uint8Array.from([7]), LONG_TTL_MS);
      expectBytes(await cache.get('overwrite'), Uint8Array.from([7]));
    });

    it('forgets an entry once its TTL has passed and keeps the others', async () => {
      await cache.set('short-lived', Uint8Array.from([1]), SHORT_TTL_MS);
      await cache.set('long-lived', Uint8Array.from([2]), LONG_TTL_MS);
      expectBytes(await cache.get('short-lived'), Uint8Array.from([1]));
      await sleep(PAST_SHORT_TTL_MS);
      await expect(cache.get('short-lived')).resolves.toBeUndefined();
      expectBytes(await cache.get('long-lived'), Uint8Array.from([2]));
    });

    it('gives an overwritten entry the TTL of the new write', async () => {
      await cache.set('renewed', Uint8Array.from([1]), SHORT_TTL_MS);
      await cache.set('renewed', Uint8Array.from([2]), LONG_TTL_MS);
      await sleep(PAST_SHORT_TTL_MS);
      expectBytes(await cache.get('renewed'), Uint8Array.from([2]));
    });

    it('rejects a TTL that is not a positive finite number with invalid_argument', async () => {
      for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error: unknown = await cache.set('bad-ttl', Uint8Array.from([1]), ttl).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(isCacheError(error, 'invalid_argument')).toBe(true);
      }
      await expect(cache.get('bad-ttl')).resolves.toBeUndefined();
    });

    it('deletes one key and leaves the others', async () => {
      await cache.set('doomed', Uint8Array.from([1]), LONG_TTL_MS);
      await cache.set('survivor', Uint8Array.from([2]), LONG_TTL_MS);
      await cache.delete('doomed');
      await expect(cache.get('doomed')).resolves.toBeUndefined();
      expectBytes(await cache.get('survivor'), Uint8Array.from([2]));
    });

    it('treats deleting a missing key as a no-op', async () => {
      await expect(cache.delete('not-there')).resolves.toBeUndefined();
    });

    it('deletes by prefix exactly the keys that start with the prefix and counts them', async () => {
      const doomed = ['p:1', 'p:2', 'p:sub:3'];
      const kept = ['px:1', 'q:p:1', 'P:1', 'p', ':p:1'];
      for (const key of [...doomed, ...kept]) await cache.set(key, bytesOf(key), LONG_TTL_MS);
      await expect(cache.deleteByPrefix('p:')).resolves.toBe(doomed.length);
      for (const key of doomed) await expect(cache.get(key)).resolves.toBeUndefined();
      for (const key of kept) expectBytes(await cache.get(key), bytesOf(key));
    });

    it('takes the prefix literally: glob characters are not wildcards', async () => {
      const keys = ['a*b:1', 'a*b:2', 'axb:1', 'a?c', 'abc', 'a[b]:1', 'ab:1', 'a\\b', 'a\\\\b'];
      for (const key of keys) await cache.set(key, bytesOf(key), LONG_TTL_MS);
      await expect(cache.deleteByPrefix('a*b:')).resolves.toBe(2);
      await expect(cache.deleteByPrefix('a?')).resolves.toBe(1);
      await expect(cache.deleteByPrefix('a[b]')).resolves.toBe(1);
      await expect(cache.deleteByPrefix('a\\b')).resolves.toBe(1);
      for (const key of ['axb:1', 'abc', 'ab:1', 'a\\\\b']) expectBytes(await cache.get(key), bytesOf(key));
    });

    it('returns 0 when no key has the prefix', async () => {
      await cache.set('present', Uint8Array.from([1]), LONG_TTL_MS);
      await expect(cache.deleteByPrefix('absent:')).resolves.toBe(0);
      expectBytes(await cache.get('present'), Uint8Array.from([1]));
    });

    it('does not count expired entries when deleting by prefix', async () => {
      await cache.set('e:expired', Uint8Array.from([1]), SHORT_TTL_MS);
      await cache.set('e:live', Uint8Array.from([2]), LONG_TTL_MS);
      await sleep(PAST_SHORT_TTL_MS);
      await expect(cache.deleteByPrefix('e:')).resolves.toBe(1);
    });

    it('deletes by prefix across many keys', async () => {
      const many = Array.from({ length: 1200 }, (_, i) => `bulk:${i}`);
      await Promise.all(many.map((key) => cache.set(key, bytesOf(key), LONG_TTL_MS)));
      await cache.set('bulkhead', Uint8Array.from([1]), LONG_TTL_MS);
      await expect(cache.deleteByPrefix('bulk:')).resolves.toBe(many.length);
      await expect(cache.get('bulk:0')).resolves.toBeUndefined();
      await expect(cache.get('bulk:1199')).resolves.toBeUndefined();
      expectBytes(await cache.get('bulkhead'), Uint8Array.from([1]));
    });

    it('stores large values', async () => {
      const large = new Uint8Array(randomBytes(1024 * 1024 + 7));
      await cache.set('large', large, LONG_TTL_MS);
      expectBytes(await cache.get('large'), large);
    });

    it('keeps keys with odd characters apart', async () => {
      const keys = ['', ' ', 'a b', 'line\nbreak', 'tab\tkey', 'ünïcødé 工具 🔧', 'a:b@c%d', '*', '[x]', 'x'.repeat(1000)];
      for (const [i, key] of keys.entries()) await cache.set(key, Uint8Array.from([i]), LONG_TTL_MS);
      for (const [i, key] of keys.entries()) expectBytes(await cache.get(key), Uint8Array.from([i]));
    });

    it('handles many concurrent reads and writes', async () => {
      const keys = Array.from({ length: 300 }, (_, i) => `concurrent:${i}`);
      await Promise.all(keys.map((key) => cache.set(key, bytesOf(key), LONG_TTL_MS)));
      const values = await Promise.all(keys.map((key) => cache.get(key)));
      values.forEach((value, i) => expectBytes(value, bytesOf(keys[i]!)));
    });

    it('reports itself healthy with a detail while open', () => {
      const health = cache.health();
      expect(health.healthy).toBe(true);
      expect(health.detail).toEqual(expect.any(String));
      expect(health.detail.length).toBeGreaterThan(0);
    });

    it('closes idempotently and then acts as an empty, unhealthy cache that never throws', async () => {
      await cache.set('before-close', Uint8Array.from([1]), LONG_TTL_MS);
      await cache.close();
      await expect(cache.close()).resolves.toBeUndefined();
      expect(cache.health().healthy).toBe(false);
      await expect(cache.get('before-close')).resolves.toBeUndefined();
      await expect(cache.set('after-close', Uint8Array.from([1]), LONG_TTL_MS)).resolves.toBeUndefined();
      await expect(cache.delete('before-close')).resolves.toBeUndefined();
      await expect(cache.deleteByPrefix('')).resolves.toBe(0);
    });
  });
}

function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Compares bytes without walking a megabyte element by element through Jest's differ. */
function expectBytes(actual: Uint8Array | undefined, expected: Uint8Array): void {
  expect(actual).toBeInstanceOf(Uint8Array);
  const actualBytes = Buffer.from(actual!.buffer, actual!.byteOffset, actual!.byteLength);
  const expectedBytes = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (actualBytes.equals(expectedBytes)) return;
  const preview = (bytes: Buffer) => `${bytes.byteLength} bytes ${bytes.subarray(0, 32).toString('hex')}`;
  expect(preview(actualBytes)).toBe(preview(expectedBytes));
  expect(actualBytes.equals(expectedBytes)).toBe(true);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
