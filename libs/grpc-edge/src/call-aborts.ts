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
 * The abort state of one unary call at the edge, whose `AbortSignal` is made only when something
 * reads `CallContext.signal`. Creating an AbortController (an EventTarget) for every call was ~1.4 %
 * of the dispatcher's CPU per RunTool at concurrency 1 in a V8 profile (bench/dispatcher README,
 * 2026-11-29 15:03–16:20 UTC), and the run path only needs "aborted?", "why?" and one hook: those
 * it gets from here ({@link callAborted}, {@link callAbortedByDeadline}, {@link whenCallAborted}).
 */
export class CallAbort {
  aborted = false;
  reason: unknown = undefined;
  /** The context this state was made for: a copy of it (`{ ...call }`) carries its own, materialised signal. */
  context: object | undefined = undefined;
  private hooks: Array<() => void> | null = null;
  private controller: AbortController | undefined = undefined;

  /** The call's signal, made now if nobody asked before (already aborted if the call was). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = callAbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the call once: its signal (if made, with its listeners and hooks), then its own hooks. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    if (this.controller !== undefined) abortCall(this.controller, reason);
    const hooks = this.hooks;
    if (hooks) for (const fn of hooks.splice(0)) fn();
  }

  /** Runs `fn` once on abort (not if already aborted); returns what takes it off again. */
  hook(fn: () => void): () => void {
    const hooks = (this.hooks ??= []);
    hooks.push(fn);
    return () => {
      const at = hooks.indexOf(fn);
      if (at >= 0) hooks.splice(at, 1);
    };
  }
}

/** How an edge context keeps its {@link CallAbort} (read through the helpers below, not directly). */
export interface EdgeAbortState {
  readonly callAbort: CallAbort;
}
type WithAbort = { signal?: AbortSignal; callAbort?: CallAbort };

/** The context's own abort state, unless it is a copy (whose `signal` may have been replaced). */
function abortOf(call: WithAbort): CallAbort | undefined {
  const state = call.callAbort;
  return state !== undefined && state.context === call ? state : undefined;
}

/** Whether the caller cancelled the call or went away (or its deadline closed it), without making its signal. */
export function callAborted(call: WithAbort): boolean {
  const state = abortOf(call);
  return state !== undefined ? state.aborted : !!call.signal?.aborted;
}

/** {@link abortedByDeadline} for a call context, without making its signal. */
export function callAbortedByDeadline(call: WithAbort): boolean {
  const state = abortOf(call);
  if (state === undefined) return abortedByDeadline(call.signal);
  return state.aborted && state.reason instanceof CallAbortedError && state.reason.kind === 'deadline';
}

/**
 * Runs `fn` when the call aborts — at once if it already has — and returns what takes it off
 * again; undefined when the call cannot abort (no signal: in-process calls) or already ran `fn`.
 */
export function whenCallAborted(call: WithAbort, fn: () => void): (() => void) | undefined {
  const state = abortOf(call);
  if (state !== undefined) {
    if (state.aborted) return void fn();
    return state.hook(fn);
  }
  const signal = call.signal;
  if (!signal) return undefined;
  if (signal.aborted) return void fn();
  return whenAborted(signal, fn);
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
