/**
 * A server-streaming method with the same edge as `unary`: defensive decoding (a request the
 * guarded decoder refused is answered with its error), authentication, the caller's deadline and
 * cancellation in the CallContext, and errors as a gRPC status plus the `toolhub-error-bin`
 * trailer. The handler sends messages as it goes and resolves with the last one.
 */
import type { handleServerStreamingCall, ServerWritableStream } from '@grpc/grpc-js';
import { HEADER_REQUEST_ID } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import { abortCall, abortReason, callAbortController } from './call-aborts';
import { type CallContext, DECODE_ERROR, type Decoded, type EdgeAuth, principalFor, toGrpcError } from './grpc-edge';
import { callerTraceHeaders } from './tracing';

/**
 * Wraps `fn` as a grpc-js server-streaming handler. `send` writes one message (ignored once the
 * call ended or the client went away); the message `fn` resolves with is written last, then the
 * stream ends with OK (a handler that sent everything with `send` resolves with nothing). A
 * rejection ends it with the error's status and trailer instead.
 * The caller's trace headers are passed on as they came (no span of its own).
 */
export function serverStream<Req, Res>(
  method: string,
  fn: (req: Req, call: CallContext, send: (msg: Res) => void) => Promise<Res | void>,
  auth?: EdgeAuth,
): handleServerStreamingCall<Decoded<Req>, Res> {
  return (call: ServerWritableStream<Decoded<Req>, Res>) => {
    const arrivedUnixMs = Date.now();
    const abort = callAbortController();
    const rawDeadline = call.getDeadline();
    const deadline = rawDeadline instanceof Date ? rawDeadline.getTime() : Number.isFinite(rawDeadline) ? Number(rawDeadline) : Infinity;
    const onCancelled = (): void => abortCall(abort, abortReason(arrivedUnixMs, deadline));
    call.once('cancelled', onCancelled);
    let ended = false;
    const send = (msg: Res): void => {
      if (!ended && !call.cancelled) call.write(msg);
    };
    const finish = (err: unknown, last?: Res | void): void => {
      if (ended) return;
      ended = true;
      call.removeListener('cancelled', onCancelled);
      if (call.cancelled) return; // nobody to answer
      if (err) {
        call.emit('error', toGrpcError(err));
        return;
      }
      if (last !== undefined) call.write(last);
      call.end();
    };
    const req = call.request;
    if (req !== null && typeof req === 'object' && DECODE_ERROR in req) {
      finish(req[DECODE_ERROR]);
      return;
    }
    const requestId = String(call.metadata.get(HEADER_REQUEST_ID)[0] ?? randomUUID());
    const traceHeaders = callerTraceHeaders(call.metadata);
    void Promise.resolve()
      .then(() => principalFor(call, method, auth))
      .then((principal) => fn(req as Req, { deadline, requestId, signal: abort.signal, arrivedUnixMs, principal, traceHeaders }, send))
      .then(
        (res) => finish(null, res),
        (err: unknown) => finish(err),
      );
  };
}
