/**
 * Refusal on the raw HTTP/2 stream, through a real grpc-js server and client: the caller sees the
 * same status, message and ToolHub error trailer as a refusal through grpc-js, the handler and the
 * decoder never run, other methods and later calls on the same connection are served.
 */
import { credentials, Metadata, Server, type ServiceError, status } from '@grpc/grpc-js';
import { connect, constants } from 'node:http2';
import { ErrorInfo, GetStatusResponse, GRPC_ERROR_TRAILER, RunToolRequest, RunToolResponse, ToolHubClient, ToolHubError, ToolHubService } from '@toolhub/contracts';

const empty = new Uint8Array();

import { bindServer, guardedServiceDefinition, shedBeforeGrpc, unary } from '../src';

const RUN_TOOL = '/toolhub.v1.ToolHub/RunTool';

describe('shedBeforeGrpc', () => {
  let server: Server;
  let client: ToolHubClient;
  let refusing = true;
  let installed = 0;
  let port = 0;
  // One error for every refusal, as AdmissionGate.refuseEarly hands out under a burst.
  const shared = new ToolHubError('rate_limited', 'The dispatcher is overloaded: send fewer calls at once.', { retryAfterMs: 250, retryable: true });
  const seen = { decoded: 0, handled: 0 };

  beforeAll(async () => {
    server = new Server();
    const counting = Object.fromEntries(
      Object.entries(ToolHubService).map(([k, def]) => [k, { ...def, requestDeserialize: (b: Buffer) => (seen.decoded++, def.requestDeserialize(b)) }]),
    ) as unknown as typeof ToolHubService;
    server.addService(guardedServiceDefinition(counting, 1 << 20), {
      runTool: unary('toolhub.v1.ToolHub/RunTool', () => (seen.handled++, { ...RunToolResponse.decode(empty), attempts: 7 })),
      getStatus: unary('toolhub.v1.ToolHub/GetStatus', () => (seen.handled++, GetStatusResponse.decode(empty))),
    } as never);
    port = await bindServer(server, '127.0.0.1', 0);
    installed = shedBeforeGrpc(server, (path) => (refusing && path === RUN_TOOL ? shared : undefined));
    client = new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  const runTool = () =>
    new Promise<{ err: ServiceError | null; attempts?: number }>((resolve) =>
      client.runTool({ ...RunToolRequest.decode(empty), provider: 'local', name: 'echo' }, new Metadata(), (err, res) => resolve({ err, attempts: res?.attempts })),
    );

  it('is installed on grpc-js as this version builds its servers (fails when an upgrade changes them)', () => {
    expect(installed).toBe(1);
  });

  it('answers a refused call with RESOURCE_EXHAUSTED, the message and the error trailer; nothing is decoded or handled', async () => {
    refusing = true;
    const before = { ...seen };
    const { err } = await runTool();
    expect(err?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(err?.details).toBe('The dispatcher is overloaded: send fewer calls at once.');
    const trailer = err?.metadata.get(GRPC_ERROR_TRAILER)[0] as Buffer;
    expect(ErrorInfo.decode(trailer)).toMatchObject({ retryable: true, retryAfterMs: 250 });
    expect(seen).toEqual(before);
  });

  it('keeps the connection serving: other methods pass while refusing, and 200 refusals later a run is served', async () => {
    refusing = true;
    const statusAnswer = await new Promise<ServiceError | null>((resolve) => client.getStatus({}, (err) => resolve(err)));
    expect(statusAnswer).toBeNull();
    const refused = await Promise.all(Array.from({ length: 200 }, runTool));
    expect(refused.filter((r) => r.err?.code === status.RESOURCE_EXHAUSTED)).toHaveLength(200);
    refusing = false;
    const served = await runTool();
    expect(served).toEqual({ err: null, attempts: 7 });
  });

  it('answers many calls from one shared error, each with the full status and trailer', async () => {
    refusing = true;
    const refused = await Promise.all(Array.from({ length: 50 }, runTool));
    for (const { err } of refused) {
      expect(err?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(err?.details).toBe('The dispatcher is overloaded: send fewer calls at once.');
      expect(ErrorInfo.decode(err?.metadata.get(GRPC_ERROR_TRAILER)[0] as Buffer)).toMatchObject({ retryable: true, retryAfterMs: 250 });
    }
  });

  it('resets a refused stream whose request is still arriving, so its client stops sending', async () => {
    refusing = true;
    const session = connect(`http://127.0.0.1:${port}`);
    try {
      const req = session.request({ ':method': 'POST', ':path': RUN_TOOL, 'content-type': 'application/grpc', te: 'trailers' });
      // A 5-byte gRPC frame header announcing 1 MiB, and a first piece of it; the request never ends.
      req.write(Buffer.from([0, 0, 0x10, 0, 0]));
      req.write(Buffer.alloc(1024));
      const headers = await new Promise<Record<string, unknown>>((resolve) => req.once('response', resolve));
      expect(headers['grpc-status']).toBe(String(status.RESOURCE_EXHAUSTED));
      req.resume();
      // Closed, though the client never ended its side: the server reset it (NO_ERROR: not a failure).
      await new Promise<void>((resolve) => req.once('close', () => resolve()));
      expect(req.rstCode).toBe(constants.NGHTTP2_NO_ERROR);
    } finally {
      session.close();
    }
  });
});
