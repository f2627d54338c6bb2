/**
 * RunTool callers for the overload burst that cost the load generator little: each call is one
 * HTTP/2 stream carrying the same request a grpc-js client sends (the same headers, the request
 * encoded before the burst starts), over the same number of connections. The dispatcher sees the
 * same calls; the generator spends about a third of grpc-js's client CPU on them (a 2,000-call
 * burst: 170–400 ms against 460–860 ms, more than the dispatcher's own 370–690 ms), so on a 2-core
 * machine the burst's admitted calls wait less for the generator. A caller sees the status from
 * the trailers (or the trailers-only answer), and whether the dispatcher answered it (OK, or
 * ToolHub's error trailer).
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { GRPC_ERROR_TRAILER, RunToolRequest } from '@toolhub/contracts';
import { type ClientHttp2Session, connect, constants, type IncomingHttpHeaders } from 'node:http2';

/** One call's outcome, as the chaos scenarios record it. */
export interface H2CallRecord {
  start: number;
  end: number;
  code: number;
  answered: boolean;
}

const PATH = '/toolhub.v1.ToolHub/RunTool';

/** Connections to `address` (host:port), ready to carry calls. */
export async function h2Connections(address: string, count = 32): Promise<ClientHttp2Session[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ClientHttp2Session>((resolve, reject) => {
          const s = connect(`http://${address}`);
          s.once('connect', () => resolve(s));
          s.once('error', reject);
        }),
    ),
  );
}

/** A length-prefixed gRPC message of `req` (encoded before the clock starts). */
export function grpcFrame(req: Partial<RunToolRequest>): Buffer {
  const full: RunToolRequest = { provider: '', name: '', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '', ...req };
  const body = RunToolRequest.encode(full).finish();
  const frame = Buffer.allocUnsafe(5 + body.length);
  frame[0] = 0;
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  return frame;
}

/**
 * Sends every frame as one RunTool call at once (frame i on connection i mod n) and resolves with
 * each call's record. Calls unanswered after `deadlineMs` are ended as DEADLINE_EXCEEDED (one timer
 * for the burst, not one per call).
 */
export function h2Burst(sessions: ClientHttp2Session[], frames: Buffer[], deadlineMs = 10_000): Promise<H2CallRecord[]> {
  const headers = {
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: PATH,
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-accept-encoding': 'identity,deflate,gzip',
    'grpc-timeout': `${deadlineMs}m`,
    'user-agent': 'toolhub-chaos-h2',
  };
  return new Promise((resolve) => {
    const records: H2CallRecord[] = new Array(frames.length);
    let left = frames.length;
    const finish = (i: number, code: number, answered: boolean): void => {
      if (records[i] !== undefined) return;
      records[i] = { start: starts[i]!, end: Date.now(), code, answered };
      if (--left === 0) {
        clearTimeout(timer);
        resolve(records);
      }
    };
    const starts: number[] = new Array(frames.length);
    const streams = frames.map((frame, i) => {
      starts[i] = Date.now();
      const stream = sessions[i % sessions.length]!.request(headers, { endStream: false });
      let code = -1;
      let answered = false;
      const fromHeaders = (h: IncomingHttpHeaders): void => {
        const s = h['grpc-status'];
        if (s === undefined) return;
        code = Number(s);
        answered = code === GrpcStatus.OK || h[GRPC_ERROR_TRAILER] !== undefined;
      };
      stream.on('response', fromHeaders);
      stream.on('trailers', fromHeaders);
      stream.on('error', () => undefined);
      stream.on('close', () => finish(i, code === -1 ? GrpcStatus.UNAVAILABLE : code, answered));
      stream.resume();
      stream.end(frame);
      return stream;
    });
    const timer = setTimeout(() => {
      streams.forEach((s, i) => {
        if (records[i] === undefined) {
          finish(i, GrpcStatus.DEADLINE_EXCEEDED, false);
          s.close(constants.NGHTTP2_CANCEL);
        }
      });
    }, deadlineMs);
  });
}
