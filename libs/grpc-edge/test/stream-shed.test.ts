/**
 * Refusal on the raw HTTP/2 stream, through a real grpc-js server and client: the caller sees the
 * same status, message and ToolHub error trailer as a refusal through grpc-js, the handler and the
 * decoder never run, other methods and later calls on the same connection are served.
 */
import { credentials, Metadata, Server, type ServiceError, status } from '@grpc/grpc-js';
import { ErrorInfo, GetStatusResponse, GRPC_ERROR_TRAILER, RunToolRequest, RunToolResponse, ToolHubClient, ToolHubError, ToolHubService } from '@toolhub/contracts';

const empty = new Uint8Array();

import { bindServer, guardedServiceDefinition, shedBeforeGrpc, unary } from '../src';

const RUN_TOOL = '/toolhub.v1.ToolHub/RunTool';

describe('shedBeforeGrpc', () => {
  let server: Server;
  let client: ToolHubClient;
  let refusing = true;
  let installed = 0;
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
    const port = await bindServer(server, '127.0.0.1', 0);
    installed = shedBeforeGrpc(server, (path) =>
      refusing && path === RUN_TOOL ? new ToolHubError('rate_limited', 'The dispatcher is overloaded: send fewer calls at once.', { retryAfterMs: 250, retryable: true }) : undefined,
    );
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
});
