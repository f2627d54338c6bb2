/**
 * Connecting to NATS at start without giving up: a service started before NATS (a node reboot, a
 * compose stack coming up in any order, NATS being upgraded) waits for it, not-ready, instead of
 * exiting and being restarted in a loop that loses its state (a dispatcher's outbox is claimed
 * again at every restart). Each failed attempt is reported; delays grow from `initialDelayMs` to
 * `maxDelayMs` with jitter, so many services do not retry in step.
 */
import { NatsBus, type NatsBusOptions } from './nats-bus';

export interface ConnectRetryOptions {
  /** @default 250 */
  initialDelayMs?: number;
  /** @default 10000 */
  maxDelayMs?: number;
  /** Told of every failed attempt (the error says why: refused, auth, JetStream not enabled …) and the wait before the next. */
  onRetry?: (attempt: number, err: Error, nextDelayMs: number) => void;
  /** Stops retrying (SIGTERM during start): the promise rejects with the last error. */
  signal?: AbortSignal;
}

/** {@link NatsBus.connect}, retried with capped, jittered backoff until it connects or `signal` aborts. */
export async function connectNatsBusWithRetry(options: NatsBusOptions, retry: ConnectRetryOptions = {}): Promise<NatsBus> {
  const initial = retry.initialDelayMs ?? 250;
  const max = retry.maxDelayMs ?? 10_000;
  let delay = initial;
  for (let attempt = 1; ; attempt++) {
    try {
      return await NatsBus.connect(options);
    } catch (err) {
      if (retry.signal?.aborted) throw err;
      const wait = Math.round(delay * (0.5 + Math.random() / 2));
      retry.onRetry?.(attempt, err as Error, wait);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        retry.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (retry.signal?.aborted) throw err;
      delay = Math.min(delay * 2, max);
    }
  }
}
