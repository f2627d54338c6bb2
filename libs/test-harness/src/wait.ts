/** Polling helpers for tests that wait on something asynchronous they cannot await directly. */

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. @default 5000 */
  timeoutMs?: number;
  /** Pause between checks. @default 25 */
  intervalMs?: number;
  /** Describes what is awaited, for the timeout error. @default 'condition' */
  message?: string;
}

/**
 * Calls `predicate` until it returns (or resolves to) a truthy value and returns that value.
 * A predicate that throws counts as "not yet"; its last error is attached as `cause` on timeout.
 * @throws Error after `timeoutMs`, naming `message`.
 */
export async function waitFor<T>(predicate: () => T | Promise<T>, options: WaitForOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.message ?? 'condition'}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
