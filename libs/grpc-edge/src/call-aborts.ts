/**
 * Why a call's signal was aborted: the caller's deadline or the caller going away. grpc-js reports
 * both the same way (the stream closes: 'cancelled'), and on the server a deadline's close often
 * arrives a little before the deadline as this process computes it (the client's timer fired on
 * its clock; libuv's timers run on a loop time cached at the start of a turn). Judging by
 * `Date.now() >= deadline` when the run ended recorded 83 of 399 deadline expiries as
 * `cancelled` under load. So the reason is decided when the close arrives, with a slack: a close
 * within {@link deadlineSlackMs} of the deadline is the deadline. A caller that really cancels in
 * that last stretch is recorded as a timeout: the cost of the rule, stated.
 */

/** The abort reason of a call the caller ended; `kind` says how. */
export class CallAbortedError extends Error {
  override readonly name = 'CallAbortedError';
  constructor(readonly kind: 'deadline' | 'cancelled') {
    super(kind === 'deadline' ? "the caller's deadline passed" : 'the caller cancelled the call or went away');
  }
}

/**
 * How close to the deadline a close counts as the deadline: 10% of the call's time, within
 * 100–1000 ms. The gap it covers is the difference between the request's and the reset's transit
 * and queueing (the deadline is computed when the request is read, the client's timer ran from
 * when it was sent), which a loaded machine stretches to tens of milliseconds.
 */
export function deadlineSlackMs(arrivedUnixMs: number, deadline: number): number {
  if (!Number.isFinite(deadline)) return 0;
  return Math.min(1000, Math.max(100, 0.1 * (deadline - arrivedUnixMs)));
}

/** The reason for a close of the caller's stream arriving now. */
export function abortReason(arrivedUnixMs: number, deadline: number, now = Date.now()): CallAbortedError {
  return new CallAbortedError(now >= deadline - deadlineSlackMs(arrivedUnixMs, deadline) ? 'deadline' : 'cancelled');
}

/** Whether `signal` was aborted because the caller's deadline passed (see {@link CallAbortedError}). */
export function abortedByDeadline(signal: AbortSignal | undefined): boolean {
  return !!signal?.aborted && signal.reason instanceof CallAbortedError && signal.reason.kind === 'deadline';
}

const HOOKS = Symbol('toolhub.abortHooks');
/** A signal the edge made: `null` until a hook is registered, then the hooks. */
type Hooked = AbortSignal & { [HOOKS]?: Array<() => void> | null };

/**
 * The controller of a call's signal, made by the edge: besides its listeners, the signal runs the
 * hooks registered with {@link whenAborted} when aborted through {@link abortCall}. A hook is a slot
 * in an array, where an abort listener is EventTarget bookkeeping (options, a listener object,
 * removal by search): the run path registers one per attempt, and at concurrency 1 that was ~2 %
 * of the dispatcher's CPU per call (bench/dispatcher README, 2026-11-29).
 */
export function callAbortController(): AbortController {
  const controller = new AbortController();
  (controller.signal as Hooked)[HOOKS] = null;
  return controller;
}

/** Aborts a signal of {@link callAbortController} with `reason`: its listeners, then its hooks. */
export function abortCall(controller: AbortController, reason: unknown): void {
  controller.abort(reason);
  const signal = controller.signal as Hooked;
  const hooks = signal[HOOKS];
  if (hooks) for (const fn of hooks.splice(0)) fn();
}

/**
 * Runs `fn` once when `signal` aborts (not when it already has: check `signal.aborted` first);
 * returns what takes it off again. A hook on the edge's signals, an abort listener on any other.
 */
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  const hooked = signal as Hooked;
  if (hooked[HOOKS] === undefined) {
    signal.addEventListener('abort', fn, { once: true });
    return () => signal.removeEventListener('abort', fn);
  }
  const hooks = (hooked[HOOKS] ??= []);
  hooks.push(fn);
  return () => {
    const at = hooks.indexOf(fn);
    if (at >= 0) hooks.splice(at, 1);
  };
}
