/** When to try again after HTTP 429 or 503: the `Retry-After` header, or a short backoff. */

/** Longest Retry-After taken at its word (a day); anything longer is treated as "not soon". */
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Milliseconds to wait according to a `Retry-After` value: delay-seconds (`"120"`) or an HTTP date
 * (`"Wed, 21 Oct 2015 07:28:00 GMT"`, counted from `now`). A date in the past means 0.
 * Returns undefined for a missing or malformed value.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // Only the date forms HTTP allows (IMF-fixdate, RFC 850, asctime); Date.parse alone accepts too much.
  if (!/^[A-Za-z]{3},? /.test(text) && !/^[A-Za-z]+day, /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/** Backoff without a Retry-After: 250 ms, 500 ms, 1 s, ... at most 5 s. */
export function backoffMs(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 5_000);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
