/**
 * Server-streaming handlers with the same edge as {@link unary}: defensive decoding, credentials
 * and roles, a CallContext whose signal aborts when the caller goes away, and errors mapped to a
 * gRPC status with the `toolhub-error-bin` trailer (sent after any messages already written).
 */
import { type handleServerStreamingCall, type ServerUnaryCall, type ServerWritableStream, status as GrpcStatus } from '@grpc/grpc-js';
import { HEADER_REQUEST_ID } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import { abortReason } from './call-aborts';
import { type CallContext, DECODE_ERROR, type Decoded, type EdgeAuth, principalFor, toGrpcError } from './grpc-edge';
import { callerTraceHeaders } from './tracing';

/**
 * Wraps `fn` as a grpc-js server-streaming handler. `fn` writes messages with `send` and resolves
 * when the stream is complete; a rejection ends the stream with the error's status.
 */
export function serverStream<Req, Res>(
  method: string,
  fn: (req: Req, call: CallContext, send: (res: Res) => void) => Promise<void>,
  auth?: EdgeAuth,
): handleServerStreamingCall<Decoded<Req>, Res> {
  return (stream: ServerWritableStream<Decoded<Req>, Res>) => {
    const arrivedUnixMs = Date.now();
    const abort = new AbortController();
    const rawDeadline = stream.getDeadline();
    const deadline = rawDeadline instanceof Date ? rawDeadline.getTime() : Number.isFinite(rawDeadline) ? Number(rawDeadline) : Infinity;
    const onCancelled = (): void => abort.abort(abortReason(arrivedUnixMs, deadline));
    stream.once('cancelled', onCancelled);
    const requestId = String(stream.metadata.get(HEADER_REQUEST_ID)[0] ?? randomUUID());
    const finish = (err: unknown): void => {
      stream.removeListener('cancelled', onCancelled);
      if (abort.signal.aborted) return; // nobody is listening any more
      if (err) {
        const e = toGrpcError(err);
        e.code ??= GrpcStatus.UNKNOWN;
        stream.emit('error', e);
      } else stream.end();
    };
    const req = stream.request;
    if (req !== null && typeof req === 'object' && DECODE_ERROR in req) {
      finish(req[DECODE_ERROR]);
      return;
    }
    Promise.resolve()
      .then(() => principalFor(stream as unknown as ServerUnaryCall<unknown, unknown>, method, auth))
      .then((principal) =>
        fn(req as Req, { deadline, requestId, signal: abort.signal, arrivedUnixMs, principal, traceHeaders: callerTraceHeaders(stream.metadata) }, (res) => {
          if (!abort.signal.aborted) stream.write(res);
        }),
      )
      .then(
        () => finish(null),
        (err: unknown) => finish(err),
      );
  };
}
