/** The unary edge and cancellation: a caller going away aborts its call's work, an answered call stays as it was. */
import { Metadata, type sendUnaryData, type ServerUnaryCall, status } from '@grpc/grpc-js';
import { ToolHubError } from '@toolhub/contracts';
import { EventEmitter } from 'node:events';

import { abortedByDeadline, abortReason, type CallAbortedError, type CallContext, deadlineSlackMs, toGrpcError, unary } from '../src';

/** What grpc-js hands a unary handler, as far as the edge uses it; `cancel()` is grpc-js signalling the stream's close. */
function fakeCall(request: object): ServerUnaryCall<object, object> & { cancel(): void } {
  const call = Object.assign(new EventEmitter(), {
    request,
    metadata: new Metadata(),
    getDeadline: () => Infinity,
    getPeer: () => 'test',
    cancel: () => call.emit('cancelled', 'cancelled'),
  });
  return call as unknown as ServerUnaryCall<object, object> & { cancel(): void };
}

function answered(): { callback: sendUnaryData<object>; result: Promise<{ err: unknown; res: unknown }> } {
  let callback!: sendUnaryData<object>;
  const result = new Promise<{ err: unknown; res: unknown }>((resolve) => (callback = (err, res) => resolve({ err, res })));
  return { callback, result };
}

describe('unary', () => {
  it('aborts the signal of a call whose caller goes away before it is answered', async () => {
    let seen: CallContext | undefined;
    let finish!: () => void;
    const handler = unary('test/Slow', (_req: object, ctx) => {
      seen = ctx;
      return new Promise<object>((resolve) => (finish = () => resolve({})));
    });
    const call = fakeCall({});
    const { callback, result } = answered();
    handler(call, callback);
    while (!seen) await new Promise((r) => setImmediate(r));
    call.cancel();
    expect(seen.signal?.aborted).toBe(true);
    finish();
    await result;
  });

  it('leaves an answered call alone when grpc-js reports its stream closed (it does so for every call)', async () => {
    let seen: CallContext | undefined;
    const handler = unary('test/Fast', (_req: object, ctx) => ((seen = ctx), { ok: true }));
    const call = fakeCall({});
    const { callback, result } = answered();
    handler(call, callback);
    expect(await result).toEqual({ err: null, res: { ok: true } });
    call.cancel();
    expect(seen?.signal?.aborted).toBe(false);
    expect(call.listenerCount('cancelled')).toBe(0);
  });
});

describe('toGrpcError', () => {
  it('builds the status without capturing a stack trace nobody sees', () => {
    const err = toGrpcError(new ToolHubError('rate_limited', 'The dispatcher is overloaded.', { retryAfterMs: 300, retryable: true }));
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(err.details).toBe('The dispatcher is overloaded.');
    expect(err.stack).not.toMatch(/\n\s+at /);
  });
});

describe('why a call was aborted', () => {
  it('takes a close near the deadline for the deadline and an earlier one for a cancellation', () => {
    const arrived = 1_000_000;
    // A 2 s call: the last 200 ms (10%) count as the deadline.
    expect(abortReason(arrived, arrived + 2000, arrived + 1850).kind).toBe('deadline');
    expect(abortReason(arrived, arrived + 2000, arrived + 2100).kind).toBe('deadline');
    expect(abortReason(arrived, arrived + 2000, arrived + 1500).kind).toBe('cancelled');
    // Short calls get at least 100 ms, long ones at most 1 s; no deadline: always a cancellation.
    expect(deadlineSlackMs(arrived, arrived + 300)).toBe(100);
    expect(deadlineSlackMs(arrived, arrived + 60_000)).toBe(1000);
    expect(abortReason(arrived, Infinity, arrived + 10 ** 9).kind).toBe('cancelled');
  });

  it('marks the signal of a call closed at its deadline as aborted by the deadline', async () => {
    const seen: CallContext[] = [];
    const handler = unary('test/Slow', (_req: object, ctx) => {
      seen.push(ctx);
      return new Promise<object>(() => undefined);
    });
    const near = fakeCall({});
    (near as unknown as { getDeadline: () => number }).getDeadline = () => Date.now() + 50;
    const early = fakeCall({});
    (early as unknown as { getDeadline: () => number }).getDeadline = () => Date.now() + 60_000;
    handler(near, answered().callback);
    handler(early, answered().callback);
    while (seen.length < 2) await new Promise((r) => setImmediate(r));
    near.cancel();
    early.cancel();
    expect(abortedByDeadline(seen[0]!.signal)).toBe(true);
    expect(abortedByDeadline(seen[1]!.signal)).toBe(false);
    expect(seen[1]!.signal!.aborted).toBe(true);
    expect((seen[1]!.signal!.reason as CallAbortedError).kind).toBe('cancelled');
  });
});

describe('unary without a promise chain of its own', () => {
  it('answers a handler that throws synchronously with its error, and tells the failure observer', async () => {
    const failures: string[] = [];
    const handler = unary(
      'test/Throws',
      () => {
        throw ToolHubError.invalidArgument('bad call', [{ field: 'x', message: 'wrong' }]);
      },
      undefined,
      (f) => failures.push(`${f.method} ${f.error.code}`),
    );
    const { callback, result } = answered();
    handler(fakeCall({}), callback);
    const { err } = await result;
    expect((err as { code: number }).code).toBe(status.INVALID_ARGUMENT);
    expect(failures).toEqual(['test/Throws invalid_argument']);
  });

  it('serves a call whose principal is known only later (an authenticator answering with a promise)', async () => {
    const principal = { id: 'alice', method: 'api_key', roles: ['agent'] } as const;
    const authenticator = { enabled: true, authenticate: () => Promise.resolve(principal) } as never;
    let seen: CallContext | undefined;
    const handler = unary('test/Later', async (_req: object, ctx) => ((seen = ctx), { ok: true }), { authenticator });
    const { callback, result } = answered();
    handler(fakeCall({}), callback);
    expect(await result).toEqual({ err: null, res: { ok: true } });
    expect(seen?.principal).toBe(principal);
  });

  it('answers a rejected authentication with its error', async () => {
    const authenticator = { enabled: true, authenticate: () => Promise.reject(new ToolHubError('unauthenticated', 'no key')) } as never;
    let ran = false;
    const handler = unary('test/Denied', () => ((ran = true), {}), { authenticator });
    const { callback, result } = answered();
    handler(fakeCall({}), callback);
    const { err } = await result;
    expect((err as { code: number }).code).toBe(status.UNAUTHENTICATED);
    expect(ran).toBe(false);
  });
});
