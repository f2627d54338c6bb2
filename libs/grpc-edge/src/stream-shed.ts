/**
 * Load shedding below grpc-js: a call refused under overload is answered on the raw HTTP/2 stream
 * with a trailers-only gRPC response, before grpc-js builds its call objects, parses metadata or
 * reads the request. Under a burst most calls end here, so what a refusal costs is what the
 * admitted calls lose; through grpc-js (decoder-level refusal) it was ~180 µs of CPU each.
 *
 * grpc-js offers no hook before its stream handler, so this wraps the `stream` listeners it put on
 * its HTTP/2 servers (a private field, checked: when a grpc-js upgrade changes it, nothing is
 * installed and the decoder-level refusal still applies; a test pins it).
 */
import type { Server } from '@grpc/grpc-js';
import { boundedError, ErrorInfo, GRPC_ERROR_TRAILER } from '@toolhub/contracts';
import { statusDetails } from './grpc-edge';
import { constants, type Http2Server, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';

/**
 * Decides, from the request's path and headers (HTTP/2 stream, before any of its body is read),
 * whether a call is refused now; undefined lets it through.
 */
export type StreamRefusal = (path: string, headers: IncomingHttpHeaders, stream: ServerHttp2Stream) => Error | undefined;

type StreamListener = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => void;

/**
 * Puts `refuse` in front of grpc-js's stream handler on every HTTP/2 server `server` is bound to
 * (call after binding). Returns how many servers it was installed on: 0 means grpc-js's internals
 * were not as expected and calls are refused later, by the request decoder.
 */
export function shedBeforeGrpc(server: Server, refuse: StreamRefusal): number {
  const http2Servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(http2Servers instanceof Map)) return 0;
  let installed = 0;
  for (const h2 of http2Servers.keys() as Iterable<Http2Server>) {
    if (typeof h2?.listeners !== 'function') continue;
    const inner = h2.listeners('stream') as StreamListener[];
    if (inner.length === 0) continue;
    h2.removeAllListeners('stream');
    h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
      const path = headers[':path'];
      const refused = typeof path === 'string' ? refuse(path, headers, stream) : undefined;
      if (refused) {
        answerRefused(stream, refused, false);
        return;
      }
      for (const listener of inner) listener.call(h2, stream, headers, flags, rawHeaders);
    });
    installed++;
  }
  return installed;
}

/** The refusal's response headers, built once per error object (see {@link answerRefused}). */
const builtHeaders = new WeakMap<Error, OutgoingHttpHeaders>();
/** One listener for every refused stream: a client gone before its answer is nothing to act on. */
const ignore = (): void => undefined;
/** `respond` options of a refusal: trailers-only, and no Date header (gRPC clients do not read it). */
const TRAILERS_ONLY = { endStream: true, waitForTrailers: false, sendDate: false } as const;

/** The trailers-only response headers for `err`: the status, message and ToolHub error trailer toGrpcError gives. */
function refusalHeaders(err: Error): OutgoingHttpHeaders {
  let headers = builtHeaders.get(err);
  if (headers === undefined) {
    const e = boundedError(err);
    headers = {
      [constants.HTTP2_HEADER_STATUS]: 200,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
      'grpc-status': String(e.grpcStatus),
      // As grpc-js encodes it (its client decodes with decodeURI).
      'grpc-message': encodeURI(statusDetails(e)),
      [GRPC_ERROR_TRAILER]: Buffer.from(ErrorInfo.encode(e.toErrorInfo()).finish()).toString('base64'),
    };
    builtHeaders.set(err, headers);
  }
  return headers;
}

/** Refused streams whose request may still be arriving, reset together on the next turn of the event loop. */
let toReset: ServerHttp2Stream[] = [];

/**
 * RST_STREAM(NO_ERROR) for every refused stream whose request has not ended by now (a client still
 * uploading a large request stops sending it). A unary call's request has ended by then: its stream
 * closes on its own, and resetting it would only cost a write (Node's RST_STREAM flushes the
 * session's pending frames to the socket at once, one write per stream: a third of a refusal's CPU).
 */
function resetUnfinished(): void {
  const streams = toReset;
  toReset = [];
  for (const stream of streams) if (!stream.destroyed && !stream.readableEnded) stream.close(constants.NGHTTP2_NO_ERROR);
}

/**
 * A trailers-only response carrying the same status, message and ToolHub error trailer the
 * grpc-js path gives (see toGrpcError), then RST_STREAM(NO_ERROR) ("stop sending"): at once with
 * `resetNow` (a request refused for what it sends: not one more byte of it is wanted), otherwise
 * the request is read and dropped and reset only if it has not ended by the next turn of the event
 * loop (see resetUnfinished: a refusal from its headers alone). The headers are built once per
 * error object: a refusal source that hands out the same error for a burst
 * (AdmissionGate.refuseEarly) pays for them once, not per call (`respond` copies them).
 * @returns false when the stream was gone or already answered (then the caller resets it).
 */
export function answerRefused(stream: ServerHttp2Stream, err: Error, resetNow = true): boolean {
  stream.on('error', ignore); // the client may already be gone; nothing to do about it
  if (stream.destroyed || stream.closed || stream.headersSent) return false;
  try {
    stream.respond(refusalHeaders(err), TRAILERS_ONLY);
  } catch {
    return false; // answered meanwhile
  }
  if (resetNow) stream.close(constants.NGHTTP2_NO_ERROR);
  else {
    stream.resume();
    if (toReset.push(stream) === 1) setImmediate(resetUnfinished);
  }
  return true;
}
