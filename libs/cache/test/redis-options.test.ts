import { isCacheError } from '@toolhub/cache';
import { redisCacheDefaults } from '@toolhub/cache/redis';
import { reconnectDelay, redactedUrl } from '../src/redis-options';

describe('RedisCache options', () => {
  it('fills in fail-fast defaults', () => {
    expect(redisCacheDefaults()).toEqual({
      url: 'redis://127.0.0.1:6379',
      keyPrefix: 'toolhub:',
      commandTimeoutMs: 100,
      connectTimeoutMs: 2000,
      reconnectMinDelayMs: 100,
      reconnectMaxDelayMs: 5000,
      probeIntervalMs: 1000,
      maxPendingInvalidations: 1000,
      scanCount: 500,
      connectionName: 'toolhub-cache',
      onStateChange: undefined,
    });
  });

  it.each([
    [{ commandTimeoutMs: 0 }, 'commandTimeoutMs'],
    [{ scanCount: 2.5 }, 'scanCount'],
    [{ url: 'http://example.com' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{ reconnectMinDelayMs: 900, reconnectMaxDelayMs: 100 }, 'reconnectMaxDelayMs'],
  ])('rejects %j with a message naming %s', (options, field) => {
    let error: unknown;
    try {
      redisCacheDefaults(options);
    } catch (err) {
      error = err;
    }
    expect(isCacheError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain(field);
  });

  it('never shows the password of the URL', () => {
    expect(redactedUrl('redis://user:s3cret@cache:6380/2')).toBe('redis://user:***@cache:6380/2');
    expect(redactedUrl('rediss://cache')).toBe('rediss://cache');
  });

  it('backs off exponentially up to the cap and never gives up', () => {
    for (let attempt = 1; attempt <= 100; attempt++) {
      const delay = reconnectDelay(attempt, 100, 5000);
      expect(delay).toBeGreaterThanOrEqual(Math.min(5000, 100 * 2 ** (attempt - 1)) * 0.8 - 1);
      expect(delay).toBeLessThanOrEqual(5000);
    }
  });
});
