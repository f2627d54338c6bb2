/**
 * The adapter against a real mock server for a real-world document: Prism (@stoplight/prism-cli,
 * offline) serving the Swagger Petstore on a free loopback port. Called directly, and as a
 * provider on the bus (serveAdapter over InProcessBus, called with AdapterClient).
 */
import { AdapterClient, type RunContext, serveAdapter } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { RunStatus, ToolHubError } from '@toolhub/contracts';
import { freePort, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';
import { join } from 'node:path';

import { type CloudAdapter, createCloudAdapter, parseCloudConfig } from '../src';

const PETSTORE = join(__dirname, '..', '..', '..', '..', 'shared', 'data', 'openapi', 'petstore.yaml');
const PRISM = require.resolve('@stoplight/prism-cli/dist/index.js');

function ctx(ms: number): RunContext {
  return { signal: AbortSignal.timeout(ms), deadline: Date.now() + ms, caller: 'test', idempotencyKey: '' };
}

describe('cloud adapter against Prism serving the Swagger Petstore', () => {
  let prism: SpawnedProcess;
  let adapter: CloudAdapter;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    // --errors: requests that break the document are answered 422 instead of a made-up success.
    prism = await spawnProcess(process.execPath, [PRISM, 'mock', '-h', '127.0.0.1', '-p', String(port), '--errors', PETSTORE], {
      readyPattern: /Prism is listening/,
      timeoutMs: 60_000,
    });
    const config = parseCloudConfig({
      documents: [{ alias: 'petstore', source: PETSTORE, baseUrl: `http://127.0.0.1:${port}`, mount: 'demo/petstore', allowedHosts: [`127.0.0.1:${port}`] }],
    });
    adapter = await createCloudAdapter(config, { env: {} });
  }, 90_000);

  afterAll(async () => {
    await adapter?.close();
    await prism?.kill();
  });

  it('lists pets', async () => {
    const result = await adapter.runTool('petstore_list_pets', { limit: 2 }, ctx(10_000));
    expect(Array.isArray(result.structured)).toBe(true);
    for (const pet of result.structured as Array<Record<string, unknown>>) expect(pet).toEqual(expect.objectContaining({ id: expect.any(Number), name: expect.any(String) }));
    expect(result.isError).toBeUndefined();
  });

  it('gets one pet by id', async () => {
    const result = await adapter.runTool('petstore_show_pet_by_id', { pet_id: '42' }, ctx(10_000));
    expect(result.structured).toEqual(expect.objectContaining({ id: expect.any(Number), name: expect.any(String) }));
  });

  it('creates a pet', async () => {
    const result = await adapter.runTool('petstore_create_pets', { body: { id: 7, name: 'Rex', tag: 'dog' } }, ctx(10_000));
    expect(result.content[0]!.text).toMatch(/^HTTP 201 Created \(no response body\)\.$/);
    expect(result.structured).toEqual({ status: 201 });
  });

  it('turns a request the server rejects into a failed error with the status and excerpt', async () => {
    let err: unknown;
    try {
      await adapter.runTool('petstore_create_pets', { body: { id: 'seven' } }, ctx(10_000));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('failed');
    expect((err as ToolHubError).message).toMatch(/^petstore_create_pets: POST \/pets answered HTTP 422 Unprocessable Entity — \{"code":-?\d+,"message":".*"\}\. The API rejected the arguments; check them against tool_info/);
  });

  it('serves the same tools over the bus with serveAdapter, called with AdapterClient', async () => {
    const bus = new InProcessBus();
    const service = await serveAdapter(bus, adapter, { announceOnStart: false, heartbeatIntervalMs: 60_000 });
    const client = new AdapterClient(bus);
    try {
      const listing = await client.list('cloud', 'demo/petstore', true, { timeoutMs: 5000 });
      expect(listing.tools.map((t) => t.id).sort()).toEqual(['cloud:petstore_create_pets', 'cloud:petstore_list_pets', 'cloud:petstore_show_pet_by_id']);
      const info = await client.info('cloud', 'petstore_show_pet_by_id', { timeoutMs: 5000 });
      expect(info.inputSchema).toMatchObject({ required: ['pet_id'] });

      const listed = await client.run('cloud', { name: 'petstore_list_pets', arguments: { limit: 1 }, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: 'test' }, { timeoutMs: 10_000 });
      expect(listed.status).toBe(RunStatus.RUN_STATUS_OK);
      expect(Array.isArray(listed.structured)).toBe(true);

      const shown = await client.run('cloud', { name: 'petstore_show_pet_by_id', arguments: { pet_id: '1' }, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: 'test' }, { timeoutMs: 10_000 });
      expect(shown.structured).toEqual(expect.objectContaining({ name: expect.any(String) }));

      const created = await client.run('cloud', { name: 'petstore_create_pets', arguments: { body: { id: 8, name: 'Tom' } }, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: 'test' }, { timeoutMs: 10_000 });
      expect(created.status).toBe(RunStatus.RUN_STATUS_OK);
      expect(created.content[0]!.text).toContain('HTTP 201');

      await expect(client.run('cloud', { name: 'petstore_show_pet_by_id', arguments: {}, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: 'test' }, { timeoutMs: 10_000 })).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringMatching(/Missing required argument "pet_id"/),
      });
    } finally {
      await service.close();
      await bus.close();
    }
  });
});
