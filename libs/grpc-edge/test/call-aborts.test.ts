import { abortCall, CallAbort, callAbortController, callAborted, callAbortedByDeadline, CallAbortedError, whenAborted, whenCallAborted } from '../src/call-aborts';

describe('abort hooks of the edge’s call signals', () => {
  it('runs each registered hook once, after the listeners, and not the ones taken off', () => {
    const controller = callAbortController();
    const order: string[] = [];
    controller.signal.addEventListener('abort', () => order.push('listener'));
    whenAborted(controller.signal, () => order.push('a'));
    const offB = whenAborted(controller.signal, () => order.push('b'));
    whenAborted(controller.signal, () => order.push('c'));
    offB();
    const reason = new CallAbortedError('cancelled');
    abortCall(controller, reason);
    abortCall(controller, reason);
    expect(order).toEqual(['listener', 'a', 'c']);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe(reason);
  });

  it('falls back to an abort listener on any other signal', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    whenAborted(controller.signal, () => seen.push('kept'));
    const off = whenAborted(controller.signal, () => seen.push('removed'));
    off();
    controller.abort();
    controller.abort();
    expect(seen).toEqual(['kept']);
  });
});

describe('the lazy abort state of an edge call (CallAbort)', () => {
  const contextOf = (abort: CallAbort) => {
    const ctx = {
      deadline: Infinity,
      requestId: 'r',
      get signal(): AbortSignal {
        return (this as { callAbort: CallAbort }).callAbort.signal;
      },
      callAbort: abort,
    };
    abort.context = ctx;
    return ctx;
  };

  it('answers aborted / by-deadline and runs hooks without making a signal', () => {
    const abort = new CallAbort();
    const ctx = contextOf(abort);
    const seen: string[] = [];
    whenCallAborted(ctx, () => seen.push('a'));
    const off = whenCallAborted(ctx, () => seen.push('removed'));
    off?.();
    expect(callAborted(ctx)).toBe(false);
    abort.abort(new CallAbortedError('deadline'));
    abort.abort(new CallAbortedError('cancelled'));
    expect(seen).toEqual(['a']);
    expect(callAborted(ctx)).toBe(true);
    expect(callAbortedByDeadline(ctx)).toBe(true);
    // A hook registered after the abort runs at once, and nothing is left to take off.
    expect(whenCallAborted(ctx, () => seen.push('late'))).toBeUndefined();
    expect(seen).toEqual(['a', 'late']);
    // The signal made after the abort is already aborted, with the first reason.
    expect(ctx.signal.aborted).toBe(true);
    expect((ctx.signal.reason as CallAbortedError).kind).toBe('deadline');
  });

  it('aborts a signal made before the abort, listeners and signal hooks included', () => {
    const abort = new CallAbort();
    const ctx = contextOf(abort);
    const signal = ctx.signal;
    expect(ctx.signal).toBe(signal);
    const seen: string[] = [];
    signal.addEventListener('abort', () => seen.push('listener'));
    whenAborted(signal, () => seen.push('signal hook'));
    whenCallAborted(ctx, () => seen.push('call hook'));
    abort.abort(new CallAbortedError('cancelled'));
    expect(seen).toEqual(['listener', 'signal hook', 'call hook']);
    expect(callAbortedByDeadline(ctx)).toBe(false);
  });

  it('follows a copy of the context ({ ...call }) through its own signal, a replaced one included', () => {
    const abort = new CallAbort();
    const ctx = contextOf(abort);
    const copy = { ...ctx, requestId: 'copy' };
    const other = new AbortController();
    const replaced = { ...ctx, signal: other.signal };
    expect(callAborted(copy)).toBe(false);
    abort.abort(new CallAbortedError('cancelled'));
    expect(callAborted(copy)).toBe(true);
    expect(callAborted(replaced)).toBe(false);
    other.abort();
    expect(callAborted(replaced)).toBe(true);
  });

  it('treats a context without a signal (in-process calls) as never aborted', () => {
    const ctx: { deadline: number; requestId: string; signal?: AbortSignal } = { deadline: Infinity, requestId: 'r' };
    expect(callAborted(ctx)).toBe(false);
    expect(callAbortedByDeadline(ctx)).toBe(false);
    expect(whenCallAborted(ctx, () => undefined)).toBeUndefined();
  });
});
