/**
 * Memory and connections before authentication, through raw HTTP/2 (node:http2, no credentials):
 * requests that stop arriving are reset, bytes still arriving are bounded per connection and in
 * total, a declared oversize message is refused from its header, connections are capped per peer
 * and in total; every refusal is counted, and the bytes held return to 0.
 */
import { status } from '@grpc/grpc-js';
import { Authenticator, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { GRPC_ERROR_TRAILER, RunToolRequest, RunToolStreamRequest, StartRunRequest } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';
import { connect, type ClientHttp2Session, type ClientHttp2Stream, constants } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';

const MiB = 1024 * 1024;

function frameHeader(declared: number): Buffer {
  const h = Buffer.alloc(5);
  h.writeUInt32BE(declared, 1);
  return h;
}

/** A RunTool stream that declares `declared` bytes and sends `sent` of them, then stops (no END_STREAM). */
function partialRunTool(session: ClientHttp2Session, declared: number, sent: number): ClientHttp2Stream {
  const stream = session.request({ ':method': 'POST', ':path': '/toolhub.v1.ToolHub/RunTool', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => undefined);
  stream.write(frameHeader(declared));
  if (sent > 0) stream.write(Buffer.alloc(sent, 1));
  return stream;
}

/** Resolves with the stream's RST code, its grpc-status and whether ToolHub's error trailer came. */
function outcome(stream: ClientHttp2Stream): Promise<{ rst?: number; grpcStatus?: string; trailer: boolean; message?: string }> {
  return new Promise((resolve) => {
    let grpcStatus: string | undefined;
    let trailer = false;
    let message: string | undefined;
    const read = (h: Record<string, unknown>) => {
      if (h['grpc-status'] === undefined) return;
      grpcStatus = String(h['grpc-status']);
      trailer = h[GRPC_ERROR_TRAILER] !== undefined;
      message = decodeURIComponent(String(h['grpc-message'] ?? ''));
    };
    stream.on('trailers', read);
    stream.on('response', read);
    stream.on('close', () => resolve({ rst: stream.rstCode, grpcStatus, trailer, message }));
    stream.resume();
  });
}

describe('the gRPC edge before authentication', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;
  const sessions: ClientHttp2Session[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    bus = new InProcessBus();
    running = await startDispatcher(bus, {
      dispatcher: { warmCoreTools: false, maxMessageBytes: 4 * MiB },
      grpc: {
        port: 0,
        connectionLimits: { streamIdleMs: 400, maxInFlightBytesPerConnection: 6 * MiB, maxInFlightBytes: 10 * MiB, maxConnectionsPerPeer: 3, maxConnections: 8 },
      },
    });
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    for (const s of sockets) s.destroy();
    await running.close(100);
    await bus.close();
  });

  const open = (): ClientHttp2Session => {
    const s = connect(`http://${running.grpc.address}`);
    s.on('error', () => undefined);
    sessions.push(s);
    return s;
  };
  const counters = () => running.dispatcher.edgeCounters;
  /** Ends the earlier tests' connections (the per-peer cap is 3). */
  const closeAll = async () => {
    for (const s of sessions.splice(0)) s.destroy();
    await waitFor(() => counters().connections === 0);
  };

  it('resets a request that stops arriving, and releases its bytes', async () => {
    const before = counters().refused.stream_idle;
    const s = open();
    const res = await outcome(partialRunTool(s, 1000, 100));
    // Answered as a ToolHub error (RESOURCE_EXHAUSTED with the ErrorInfo trailer), then the upload refused.
    expect(res).toMatchObject({ grpcStatus: String(status.RESOURCE_EXHAUSTED), trailer: true, rst: constants.NGHTTP2_NO_ERROR });
    expect(res.message).toContain('TOOLHUB_GRPC_STREAM_IDLE_MS');
    expect(counters().refused.stream_idle).toBe(before + 1);
    await waitFor(() => counters().inFlightBytes === 0);
    s.close();
  });

  it('stops a declared 15 MiB message that stops arriving (limit 4 MiB)', async () => {
    const s = open();
    const res = await outcome(partialRunTool(s, 15 * MiB, 64 * 1024));
    expect(res.grpcStatus).toBe(String(status.RESOURCE_EXHAUSTED));
    await waitFor(() => counters().inFlightBytes === 0);
    s.close();
  });

  it('bounds bytes still arriving per connection and in total: streams past the budget are reset', async () => {
    const before = counters().refused.in_flight_bytes;
    const a = open();
    const b = open();
    // 2 × 4 streams × 3 MiB of 4 MiB declared = 24 MiB offered against 6 MiB per connection, 10 MiB in all.
    const streams = [a, b].flatMap((s) => [0, 1, 2, 3].map(() => partialRunTool(s, 4 * MiB - 16, 3 * MiB)));
    const results = await Promise.all(streams.map(outcome));
    // Over the budget or, later, stalled: every one answered RESOURCE_EXHAUSTED with the trailer.
    expect(results.every((r) => r.grpcStatus === String(status.RESOURCE_EXHAUSTED) && r.trailer)).toBe(true);
    expect(results.some((r) => r.message?.includes('TOOLHUB_GRPC_MAX_IN_FLIGHT_BYTES'))).toBe(true);
    expect(counters().refused.in_flight_bytes).toBeGreaterThan(before);
    await waitFor(() => counters().inFlightBytes === 0);
    expect(counters().inFlightBytes).toBe(0);
  });

  it('closes a connection whose requests pass the budget again and again', async () => {
    const before = counters().refused.connections_over_budget;
    const s = open();
    const closed = new Promise((res) => s.once('close', res));
    // 20 requests of 1 MiB (of 2 MiB declared) against 6 MiB per connection: 8 over the budget close it.
    const streams = Array.from({ length: 20 }, () => partialRunTool(s, 2 * MiB, MiB));
    await Promise.all(streams.map(outcome));
    await closed;
    expect(counters().refused.connections_over_budget).toBe(before + 1);
    await waitFor(() => counters().inFlightBytes === 0);
  });

  it('refuses a message declared over the message limit from its header, before its body', async () => {
    await closeAll();
    const before = counters().refused.message_size;
    const s = open();
    // 5 MiB: over the 4 MiB limit, under what grpc-js refuses itself (2x + 64 KiB); no body sent at all.
    const res = await outcome(partialRunTool(s, 5 * MiB, 0));
    expect(res).toMatchObject({ grpcStatus: String(status.INVALID_ARGUMENT), trailer: true, rst: constants.NGHTTP2_NO_ERROR });
    expect(res.message).toContain('request is 5242880 bytes; the limit is 4194304 bytes');
    expect(counters().refused.message_size).toBe(before + 1);
    s.close();
  });

  const props: Record<string, unknown> = {};
  for (let i = 0; i < 20_000; i++) props[`unknown_${String(i).padStart(6, '0')}`] = 'x';
  const run: RunToolRequest = { provider: 'local', name: 'time_now', arguments: props, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' };
  it.each([
    ['RunTool', RunToolRequest.encode(run).finish()],
    ['RunToolStream', RunToolStreamRequest.encode({ run }).finish()],
    ['StartRun', StartRunRequest.encode({ call: run }).finish()],
  ])('refuses %s arguments past their limits from the part that arrived, before the rest comes', async (method, body) => {
    await closeAll();
    const before = counters().refused.request_content;
    const s = open();
    const stream = s.request({ ':method': 'POST', ':path': `/toolhub.v1.ToolHub/${method}`, 'content-type': 'application/grpc', te: 'trailers' });
    stream.on('error', () => undefined);
    stream.write(frameHeader(body.length));
    // ~440 KB in all; the first 300 KB hold the 10,001st property. The rest is never sent.
    stream.write(body.subarray(0, 300 * 1024));
    const res = await outcome(stream);
    expect(res).toMatchObject({ grpcStatus: String(status.INVALID_ARGUMENT), trailer: true, rst: constants.NGHTTP2_NO_ERROR });
    expect(res.message).toContain('more than 10000 properties and array items in all (counted 10001 before stopping)');
    expect(res.message).toContain('TOOLHUB_MAX_ARGUMENT_NODES');
    expect(counters().refused.request_content).toBe(before + 1);
    await waitFor(() => counters().inFlightBytes === 0);
    s.close();
  });

  it('closes connections past the per-peer cap, and past the total cap', async () => {
    for (const s of sessions.splice(0)) s.destroy();
    await waitFor(() => counters().connections === 0);
    const peerBefore = counters().refused.connections_per_peer;
    const many = Array.from({ length: 4 }, () => open());
    await waitFor(() => counters().refused.connections_per_peer === peerBefore + 1);
    await waitFor(() => many.filter((s) => s.destroyed).length === 1);
    for (const s of sessions.splice(0)) s.destroy();
    await waitFor(() => counters().connections === 0);
    // Plain TCP sockets count too (no HTTP/2 needed to hold a descriptor): 3 peers × 3 against 8 in all.
    const totalBefore = counters().refused.connections_total;
    const [host, port] = [running.grpc.address.split(':')[0]!, Number(running.grpc.address.split(':')[1])];
    let closed = 0;
    for (const localAddress of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) {
      for (let i = 0; i < 3; i++) {
        const sock = tcpConnect({ host, port, localAddress });
        sock.on('error', () => undefined);
        sock.on('close', () => closed++);
        sockets.push(sock);
        await waitFor(() => counters().connections + counters().refused.connections_total - totalBefore === sockets.length);
      }
    }
    expect(counters().refused.connections_total).toBe(totalBefore + 1);
    await waitFor(() => closed === 1);
    expect(counters().connections).toBe(8);
  });
});

describe('the gRPC edge with API keys: a call without credentials is refused from its headers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'guard-auth-'));
  let bus: InProcessBus;
  let running: RunningDispatcher;
  let authenticator: Authenticator;
  let session: ClientHttp2Session;

  beforeAll(async () => {
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ name: 'agent', sha256: hashApiKey('guard-test-key-0123456789'), roles: ['agent'] }] }));
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
    bus = new InProcessBus();
    running = await startDispatcher(bus, { dispatcher: { warmCoreTools: false, maxMessageBytes: 4 * MiB }, grpc: { port: 0, authenticator } });
    session = connect(`http://${running.grpc.address}`);
    session.on('error', () => undefined);
  });
  afterAll(async () => {
    session.destroy();
    await running.close(100);
    await bus.close();
    authenticator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers UNAUTHENTICATED before reading the body, and buffers none of it', async () => {
    const before = running.dispatcher.edgeCounters.refused.unauthenticated;
    // Declares 4 MiB - 16 and sends 1 MiB of it, then nothing: without the header check this would
    // be held until the stall timeout (10 s).
    const res = await outcome(partialRunTool(session, 4 * MiB - 16, MiB));
    expect(res).toMatchObject({ grpcStatus: String(status.UNAUTHENTICATED), trailer: true, rst: constants.NGHTTP2_NO_ERROR });
    expect(res.message).toContain('Credentials required');
    expect(running.dispatcher.edgeCounters.refused.unauthenticated).toBe(before + 1);
    expect(running.dispatcher.edgeCounters.inFlightBytes).toBe(0);
  });

  it('lets a call with a credential through to the edge (a wrong key gets the edge\'s answer), and health needs none', async () => {
    const stream = session.request({ ':method': 'POST', ':path': '/toolhub.v1.ToolHub/ListProviders', 'content-type': 'application/grpc', te: 'trailers', authorization: 'Bearer wrong-key-0123456789' });
    stream.on('error', () => undefined);
    stream.end(frameHeader(0));
    const res = await outcome(stream);
    expect(res.grpcStatus).toBe(String(status.UNAUTHENTICATED));
    expect(res.message).not.toContain('Credentials required');
    const health = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check', 'content-type': 'application/grpc', te: 'trailers' });
    health.on('error', () => undefined);
    health.end(frameHeader(0));
    expect((await outcome(health)).grpcStatus).toBe(String(status.OK));
  });
});

describe('the gRPC edge closes idle connections itself', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;

  beforeAll(async () => {
    bus = new InProcessBus();
    running = await startDispatcher(bus, { dispatcher: { warmCoreTools: false }, grpc: { port: 0, connectionLimits: { connectionIdleMs: 300, streamIdleMs: 5000 } } });
  });
  afterAll(async () => {
    await running.close(100);
    await bus.close();
  });

  it('sends GOAWAY to a connection without calls for connectionIdleMs, not to one with a call open', async () => {
    const idle = connect(`http://${running.grpc.address}`);
    idle.on('error', () => undefined);
    const goaway = new Promise((res) => idle.once('goaway', res));
    const health = idle.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Check', 'content-type': 'application/grpc', te: 'trailers' });
    health.on('error', () => undefined);
    health.end(frameHeader(0));
    expect((await outcome(health)).grpcStatus).toBe(String(status.OK));
    // A second connection keeps a request open (sending a byte at a time, so it is not stalled).
    const busy = connect(`http://${running.grpc.address}`);
    busy.on('error', () => undefined);
    let busyGoaway = false;
    busy.on('goaway', () => (busyGoaway = true));
    const open = partialRunTool(busy, 1000, 1);
    const drip = setInterval(() => open.write(Buffer.alloc(1, 1)), 200);
    await goaway;
    expect(busyGoaway).toBe(false);
    clearInterval(drip);
    idle.destroy();
    busy.destroy();
  });
});
