import { abortCall, callAbortController, CallAbortedError, whenAborted } from '../src/call-aborts';

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
