/**
 * Memory and connections of a gRPC API port, bounded before authentication. grpc-js enforces some
 * limits itself (given as server options by {@link connectionLimitOptions}): the largest message
 * (checked on the 5-byte gRPC frame header, before the body is buffered), streams per connection,
 * idle connections. What it cannot enforce is enforced by {@link guardConnections} on the HTTP/2
 * servers grpc-js creates (reached through its internal `http2Servers` map, checked at start):
 *
 * - connections in total (`net.Server.maxConnections`: Node closes the socket before HTTP/2 sees
 *   it) and per peer address (the socket is destroyed as it connects);
 * - bytes of requests still arriving, in total and per connection: a request is buffered whole
 *   before its handler (and so authentication) runs, so 200 streams each sending 4 MiB of a
 *   declared 15 MiB held ~800 MiB; past the budget the call is answered RESOURCE_EXHAUSTED (with
 *   ToolHub's error trailer), the rest of its upload refused, and its bytes released;
 * - a request that stops arriving midway: reset after `streamIdleMs` without data.
 *
 * - a connection whose requests passed the budget 8 times without completing one in between is
 *   closed (the rest of its uploads would only be read off the socket and discarded);
 * - a request message declared over `maxMessageBytes` (gRPC frame header) is answered
 *   INVALID_ARGUMENT before its body is read, and one whose content the caller's
 *   {@link RequestInspection} refuses midway (e.g. arguments past their limits, counted on the wire)
 *   as soon as it is refused: grpc-js would otherwise receive and concatenate it whole first.
 *
 * Every refusal is counted by reason ({@link EdgeCounters}) for the metrics.
 */
import { type ChannelOptions, Server as GrpcServer, type Server } from '@grpc/grpc-js';
import { ToolHubError } from '@toolhub/contracts';
import { constants as http2constants, type Http2Server, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { z } from 'zod';

import { messageTooLargeError } from './grpc-edge';
import { answerRefused } from './stream-shed';

/** Limits of one API port's connections (env TOOLHUB_GRPC_*). */
export interface ConnectionLimits {
  /** Largest request message, bytes (over 2x this + 64 KiB, refused by grpc-js from its frame header). */
  maxMessageBytes: number;
  /** Open connections in total; more are closed at once. */
  maxConnections: number;
  /** Open connections from one peer address; more are closed at once. 0 = no per-peer cap (behind a proxy every connection has its address). */
  maxConnectionsPerPeer: number;
  /** Concurrent streams (calls) per connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxStreamsPerConnection: number;
  /** Bytes of requests still arriving, all connections together. */
  maxInFlightBytes: number;
  /**
   * Bytes of requests still arriving on one connection. As large as the total by default: a client
   * sending four messages near the limit at once (4 x 4 MiB x 2) must not be refused; lower it where
   * clients send one at a time.
   */
  maxInFlightBytesPerConnection: number;
  /** A request whose bytes stop arriving this long before it is complete is reset. */
  streamIdleMs: number;
  /** A connection without calls this long is closed (GOAWAY; checked about once a second). */
  connectionIdleMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<Omit<ConnectionLimits, 'maxMessageBytes'>> = Object.freeze({
  maxConnections: 4096,
  maxConnectionsPerPeer: 512,
  maxStreamsPerConnection: 128,
  maxInFlightBytes: 32 * 1024 * 1024,
  maxInFlightBytesPerConnection: 32 * 1024 * 1024,
  streamIdleMs: 10_000,
  connectionIdleMs: 300_000,
});

/** Refusals by reason, read by the metrics (toolhub_grpc_refused_total{reason}). */
export class EdgeCounters {
  readonly refused = { connections_total: 0, connections_per_peer: 0, in_flight_bytes: 0, stream_idle: 0, connections_over_budget: 0, message_size: 0, request_content: 0, unauthenticated: 0 };
  /** Connections open now. */
  connections = 0;
  /** Bytes of requests still arriving now. */
  inFlightBytes = 0;
}

/** Config fields of {@link ConnectionLimits}, spread into apps that serve gRPC. */
export function connectionLimitConfigFields() {
  const d = DEFAULT_CONNECTION_LIMITS;
  const int = (min: number, def: number) => z.coerce.number().int().min(min).default(def);
  return {
    grpcMaxConnections: { env: 'TOOLHUB_GRPC_MAX_CONNECTIONS', schema: int(1, d.maxConnections), description: 'Open connections to the gRPC API in total; more are closed at once' },
    grpcMaxConnectionsPerPeer: {
      env: 'TOOLHUB_GRPC_MAX_CONNECTIONS_PER_PEER',
      schema: int(0, d.maxConnectionsPerPeer),
      description: 'Open connections from one peer address; more are closed at once (0 = no cap; behind a proxy all connections share its address)',
    },
    grpcMaxStreamsPerConnection: { env: 'TOOLHUB_GRPC_MAX_STREAMS_PER_CONNECTION', schema: int(1, d.maxStreamsPerConnection), description: 'Concurrent calls per connection (HTTP/2 max concurrent streams)' },
    grpcMaxInFlightBytes: { env: 'TOOLHUB_GRPC_MAX_IN_FLIGHT_BYTES', schema: int(1024, d.maxInFlightBytes), description: 'Bytes of requests still arriving, all connections together; past it the stream is reset' },
    grpcMaxInFlightBytesPerConnection: {
      env: 'TOOLHUB_GRPC_MAX_IN_FLIGHT_BYTES_PER_CONNECTION',
      schema: int(1024, d.maxInFlightBytesPerConnection),
      description: 'Bytes of requests still arriving on one connection; past it the stream is reset',
    },
    grpcStreamIdleMs: { env: 'TOOLHUB_GRPC_STREAM_IDLE_MS', schema: int(100, d.streamIdleMs), description: 'A request whose bytes stop arriving this long (ms) before it is complete is reset' },
    grpcConnectionIdleMs: { env: 'TOOLHUB_GRPC_CONNECTION_IDLE_MS', schema: int(1000, d.connectionIdleMs), description: 'A connection without calls this long (ms) is closed' },
  };
}

/** The limits from {@link connectionLimitConfigFields}' parsed values. */
export function connectionLimitsFromConfig(c: {
  grpcMaxConnections: number;
  grpcMaxConnectionsPerPeer: number;
  grpcMaxStreamsPerConnection: number;
  grpcMaxInFlightBytes: number;
  grpcMaxInFlightBytesPerConnection: number;
  grpcStreamIdleMs: number;
  grpcConnectionIdleMs: number;
}): Omit<ConnectionLimits, 'maxMessageBytes'> {
  return {
    maxConnections: c.grpcMaxConnections,
    maxConnectionsPerPeer: c.grpcMaxConnectionsPerPeer,
    maxStreamsPerConnection: c.grpcMaxStreamsPerConnection,
    maxInFlightBytes: c.grpcMaxInFlightBytes,
    maxInFlightBytesPerConnection: c.grpcMaxInFlightBytesPerConnection,
    streamIdleMs: c.grpcStreamIdleMs,
    connectionIdleMs: c.grpcConnectionIdleMs,
  };
}

let guardProbe: boolean | undefined;

/**
 * Whether {@link guardConnections} can reach this grpc-js version's HTTP/2 servers (probed once on
 * an unbound server): then the guard closes idle connections itself, and grpc-js is not asked to
 * (its idle tracking adds a once('close') listener, a Map lookup and a trace string to every call).
 */
export function connectionGuardAvailable(): boolean {
  if (guardProbe === undefined) {
    const probe = new GrpcServer({ 'grpc.enable_channelz': 0 });
    guardProbe = (probe as unknown as { http2Servers?: unknown }).http2Servers instanceof Map;
    probe.forceShutdown();
  }
  return guardProbe;
}

/** The grpc-js server options for what grpc-js enforces itself. */
export function connectionLimitOptions(limits: ConnectionLimits): ChannelOptions {
  return {
    // Idle connections: closed by guardConnections' sweep when it can be installed, else by grpc-js.
    ...(connectionGuardAvailable() ? {} : { 'grpc.max_connection_idle_ms': limits.connectionIdleMs }),
    // A message declared over twice the limit (+64 KiB for the request's other fields) is refused by
    // grpc-js from its frame header, never buffered (bench/attacks: 200 streams declaring 15 MiB end
    // at once); up to that our decoder answers with the clearer INVALID_ARGUMENT and ToolHub's error
    // trailer, and the in-flight budgets of guardConnections bound the memory meanwhile.
    'grpc.max_receive_message_length': Math.min(2 * limits.maxMessageBytes + 64 * 1024, 64 * 1024 * 1024),
    'grpc.max_concurrent_streams': limits.maxStreamsPerConnection,
  };
}

/** Reads a request message's body as it arrives; an error refuses the call at once (the rest is not read). */
export interface RequestInspector {
  push(buf: Uint8Array, start: number, end: number): Error | undefined;
}

/**
 * Asked for each call's first request message (uncompressed, declared at least
 * {@link INSPECT_FROM_BYTES}) with its path and declared length: an inspector to read its body as it
 * arrives, or undefined. Smaller messages are left to the request decoder (cheaper than a second
 * pass per ordinary call).
 */
export type RequestInspection = (path: string, declaredBytes: number) => RequestInspector | undefined;

/** Messages at least this large are inspected as they arrive (see {@link RequestInspection}). */
export const INSPECT_FROM_BYTES = 64 * 1024;

interface SessionState {
  inFlight: number;
  /** Requests of this connection stopped over the budget. */
  overBudget: number;
  /** Calls open now, and since when there has been none (for the idle-connection sweep). */
  active: number;
  idleSince: number;
  close(): void;
  /** Graceful close (GOAWAY) of an idle connection. */
  closeIdle(): void;
}

/**
 * A connection whose requests passed the in-flight budget this many times (with no request completed
 * in between) is closed: its peer keeps
 * pushing bytes the server only discards (each refused stream's remaining upload is still read off
 * the socket), so the flood is stopped at its source.
 */
const OVER_BUDGET_CLOSE = 8;

/**
 * Applies the limits grpc-js cannot enforce to `server`'s HTTP/2 servers (call after binding).
 * @returns false when grpc-js's internals were not found (then only {@link connectionLimitOptions} apply).
 */
export function guardConnections(server: Server, limits: ConnectionLimits, counters: EdgeCounters, inspect?: RequestInspection): boolean {
  const servers = (server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
  if (!(servers instanceof Map) || servers.size === 0) return false;
  const perPeer = new Map<string, number>();
  const sessions = new WeakMap<Http2Session, SessionState>();
  // Requests still arriving, by when their last bytes came: one sweep for all of them (a timer per
  // stream cost ~10 µs of every call).
  const arriving: Arriving = new Map();
  // Open connections, for the idle sweep (grpc-js is not asked to track idleness: see connectionGuardAvailable).
  const live = new Set<SessionState>();
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [stop, last] of arriving) if (now - last >= limits.streamIdleMs) stop();
      for (const s of live) if (s.active === 0 && now - s.idleSince >= limits.connectionIdleMs) s.closeIdle();
    },
    Math.max(50, Math.min(1000, Math.floor(limits.streamIdleMs / 4))),
  );
  sweep.unref();
  for (const h2 of servers.keys()) h2.once('close', () => clearInterval(sweep));
  for (const h2 of servers.keys()) {
    h2.maxConnections = limits.maxConnections;
    h2.on('drop', () => counters.refused.connections_total++);
    // Counted on the TCP connection (before TLS and HTTP/2): a refused socket is destroyed before
    // HTTP/2 reads from it. (HTTP/2 sessions forbid touching their socket afterwards.)
    h2.prependListener('connection', (socket: Socket) => {
      const peer = socket.remoteAddress ?? '';
      const n = (perPeer.get(peer) ?? 0) + 1;
      if (limits.maxConnectionsPerPeer > 0 && n > limits.maxConnectionsPerPeer) {
        counters.refused.connections_per_peer++;
        socket.destroy();
        return;
      }
      perPeer.set(peer, n);
      counters.connections++;
      socket.once('close', () => {
        counters.connections--;
        const left = (perPeer.get(peer) ?? 1) - 1;
        if (left <= 0) perPeer.delete(peer);
        else perPeer.set(peer, left);
      });
    });
    h2.on('session', (session: Http2Session) => {
      const state: SessionState = {
        inFlight: 0,
        overBudget: 0,
        active: 0,
        idleSince: Date.now(),
        close: () => {
          if (session.destroyed) return;
          counters.refused.connections_over_budget++;
          session.destroy();
        },
        closeIdle: () => {
          live.delete(state);
          if (!session.closed && !session.destroyed) session.close();
        },
      };
      sessions.set(session, state);
      live.add(state);
      session.once('close', () => live.delete(state));
    });
    h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
      const state = sessions.get(stream.session!);
      if (state) watchStream(stream, String(headers[':path'] ?? ''), state, { limits, counters, arriving, inspect });
    });
  }
  return true;
}

/** The error a stopped request is answered with. */
function refusal(reason: 'in_flight_bytes' | 'stream_idle', limits: ConnectionLimits): ToolHubError {
  const message =
    reason === 'in_flight_bytes'
      ? `The server is receiving too many request bytes at once (limits: ${limits.maxInFlightBytes} bytes in all, ${limits.maxInFlightBytesPerConnection} per connection; ` +
        'TOOLHUB_GRPC_MAX_IN_FLIGHT_BYTES, _PER_CONNECTION), so this request was stopped before it was complete. Retry shortly, or send fewer large requests at once.'
      : `The request stopped arriving for ${limits.streamIdleMs} ms before it was complete (TOOLHUB_GRPC_STREAM_IDLE_MS) and was dropped. Send the whole request.`;
  return new ToolHubError('rate_limited', message, { retryable: true, retryAfterMs: 1000 });
}

/** Stop functions of requests still arriving, with the time their last bytes came. */
type Arriving = Map<() => void, number>;

interface Watch {
  limits: ConnectionLimits;
  counters: EdgeCounters;
  arriving: Arriving;
  inspect: RequestInspection | undefined;
}

type StopReason = 'in_flight_bytes' | 'stream_idle' | 'message_size' | 'request_content';

/**
 * Counts a request's bytes until its message is complete (from the gRPC frame header's length),
 * resetting the stream past a budget or when it stalls. grpc-js's own listener reads the same
 * chunks (adding ours does not change the stream's flow).
 */
function watchStream(stream: ServerHttp2Stream, path: string, session: SessionState, { limits, counters, arriving, inspect }: Watch): void {
  let held = 0; // bytes of the message in progress counted in the budgets
  let headerBytes = 0; // of the 5-byte frame header being read
  let declared = 0;
  let compressed = false;
  let remaining = -1; // body bytes still expected of the current message; -1 = reading a header
  let messages = 0;
  let inspector: RequestInspector | undefined;
  const release = (): void => {
    counters.inFlightBytes -= held;
    session.inFlight -= held;
    held = 0;
  };
  const stop = (reason: StopReason, err?: Error): void => {
    counters.refused[reason]++;
    finish();
    if (reason === 'in_flight_bytes' && ++session.overBudget >= OVER_BUDGET_CLOSE) {
      session.close();
      return;
    }
    if (stream.destroyed) return;
    // Answered like any ToolHub error (status, message and the ErrorInfo trailer, as a trailers-only
    // response), then the rest of the upload is refused (RST_STREAM NO_ERROR: "stop sending").
    if (!answerRefused(stream, err ?? refusal(reason === 'stream_idle' ? 'stream_idle' : 'in_flight_bytes', limits)) && !stream.destroyed) {
      stream.close(http2constants.NGHTTP2_ENHANCE_YOUR_CALM);
    }
  };
  const stalled = (): void => stop('stream_idle');
  const finish = (): void => {
    arriving.delete(stalled);
    release();
    stream.off('data', onData);
  };
  const onData = (chunk: Buffer): void => {
    let offset = 0;
    while (offset < chunk.length) {
      if (remaining < 0) {
        // Byte 0 of the header is the compression flag, bytes 1-4 the message length (big-endian).
        while (headerBytes < 5 && offset < chunk.length) {
          if (headerBytes === 0) compressed = chunk[offset] !== 0;
          else declared = declared * 256 + chunk[offset]!;
          headerBytes++;
          offset++;
        }
        if (headerBytes < 5) break;
        remaining = declared;
        headerBytes = 0;
        declared = 0;
        if (!compressed && remaining > limits.maxMessageBytes) return stop('message_size', messageTooLargeError(path, remaining, limits.maxMessageBytes));
        inspector = messages++ === 0 && !compressed && remaining >= INSPECT_FROM_BYTES && inspect ? inspect(path, remaining) : undefined;
      }
      const take = Math.min(remaining, chunk.length - offset);
      if (inspector) {
        const refused = inspector.push(chunk, offset, offset + take);
        if (refused) return stop('request_content', refused);
      }
      remaining -= take;
      offset += take;
      held += take;
      counters.inFlightBytes += take;
      session.inFlight += take;
      if (counters.inFlightBytes > limits.maxInFlightBytes || session.inFlight > limits.maxInFlightBytesPerConnection) return stop('in_flight_bytes');
      if (remaining === 0) {
        // The message is whole: grpc-js hands it to the handler; it no longer counts as arriving.
        // A connection that completes requests is not a flood: its over-budget count starts again.
        release();
        session.overBudget = 0;
        remaining = -1;
        inspector = undefined;
      }
    }
    if (remaining < 0 && headerBytes === 0) arriving.delete(stalled);
    else arriving.set(stalled, Date.now());
  };
  stream.on('data', onData);
  // A stream that opened and sends nothing is a request that stopped arriving too.
  arriving.set(stalled, Date.now());
  // Each is emitted once per stream: plain listeners, without once()'s wrapper per call.
  session.active++;
  stream.on('end', () => arriving.delete(stalled));
  stream.on('close', () => {
    finish();
    if (--session.active === 0) session.idleSince = Date.now();
  });
}
