/** Backoff arithmetic and an abortable sleep for the client's UNAVAILABLE retries. */
import type { ResolvedRetryOptions } from './client-options';

/**
 * Delay before retry number `retry` (1 = the first retry): "full jitter", a uniform draw from
 * [0, min(maxBackoffMs, initialBackoffMs × multiplier^(retry-1))). Full jitter spreads a fleet's
 * reconnects after a dispatcher restart instead of having them arrive in waves.
 */
export function backoffDelay(retry: number, o: ResolvedRetryOptions): number {
  const ceiling = Math.min(o.maxBackoffMs, o.initialBackoffMs * o.multiplier ** Math.max(0, retry - 1));
  return Math.floor(o.random() * ceiling);
}

/** Resolves after `ms`, or at once (false) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve(false);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
