import { parseRetryAfter } from '../src';
import { backoffMs, sleep } from '../src/retry';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
  });

  it('reads HTTP dates relative to now, and a date in the past as no wait', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Thursday, 01-Jan-26 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores missing and malformed values, and caps absurd ones at a day', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('2026-01-01', now)).toBeUndefined();
    expect(parseRetryAfter('99999999999', now)).toBe(86_400_000);
  });
});

describe('waiting', () => {
  it('backs off exponentially up to 5 s without a Retry-After', () => {
    expect([0, 1, 2, 3, 10].map(backoffMs)).toEqual([250, 500, 1000, 2000, 5000]);
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = sleep(10_000, controller.signal);
    controller.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
