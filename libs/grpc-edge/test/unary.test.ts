/** The unary edge and cancellation: a caller going away aborts its call's work, an answered call stays as it was. */
import { Metadata, type sendUnaryData, type ServerUnaryCall, status } from '@grpc/grpc-js';
import { ToolHubError } from '@toolhub/contracts';
import { EventEmitter } from 'node:events';

import { type CallContext, toGrpcError, unary } from '../src';

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
