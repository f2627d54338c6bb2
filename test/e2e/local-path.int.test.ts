/**
 * The first end-to-end path with every part in its own process: a real nats-server, adapter-local
 * and the dispatcher, driven through the generated gRPC client as an agent would.
 */
import { status } from '@grpc/grpc-js';
import { RunStatus } from '@toolhub/contracts';
import { freePort, natsUrl, scratchDir, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { connectClient, failure, type TestClient } from '../../libs/dispatcher-core/test/support/grpc-client';

const ROOT = join(__dirname, '../..');
/** `node --import tsx`: one process per app, so a SIGKILL really kills the app (the tsx CLI would leave its child). */
const TS_NODE = ['--import', 'tsx'];

describe('agent → dispatcher → NATS → adapter-local, as separate processes', () => {
  let nats: string;
  let root: string;
  let adapter: SpawnedProcess;
  let dispatcher: SpawnedProcess;
  let client: TestClient;

  const startAdapter = () =>
    spawnProcess(process.execPath, [...TS_NODE, 'apps/adapter-local/src/main.ts'], {
      cwd: ROOT,
      env: { NATS_URL: nats, TOOLHUB_LOCAL_ROOT: root, LOG_LEVEL: 'info' },
      readyPattern: /adapter-local ready/,
      timeoutMs: 30_000,
    });

  beforeAll(async () => {
    nats = await natsUrl();
    root = scratchDir('e2e-local-root');
    writeFileSync(join(root, 'notes.txt'), 'hello from the tool root\n');
    const port = await freePort();
    adapter = await startAdapter();
    dispatcher = await spawnProcess(process.execPath, [...TS_NODE, 'apps/dispatcher/src/main.ts'], {
      cwd: ROOT,
      env: { NATS_URL: nats, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', LOG_LEVEL: 'info' },
      readyPattern: /dispatcher listening/,
      timeoutMs: 30_000,
    });
    client = connectClient(`127.0.0.1:${port}`);
  }, 90_000);

  afterAll(async () => {
    client?.close();
    await dispatcher?.kill('SIGTERM');
    await adapter?.kill('SIGTERM');
  });

  it('lists the categories of provider local at the root', async () => {
    const res = await client.listTools({ provider: 'local' });
    expect(res.categories.map((c) => c.path)).toEqual(expect.arrayContaining(['file', 'math', 'text', 'time']));
  });

  it('returns the full schema of file_read', async () => {
    const res = await client.getToolInfo({ provider: 'local', name: 'file_read' });
    expect(res.tool?.inputSchema).toMatchObject({ type: 'object', properties: { path: expect.any(Object) } });
    expect(res.tool?.description.length).toBeGreaterThan(40);
  });

  it('reads a file of the tool root', async () => {
    const res = await client.runTool({ provider: 'local', name: 'file_read', arguments: { path: 'notes.txt' } });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(JSON.stringify(res.content)).toContain('hello from the tool root');
  });

  it('refuses a path that escapes the root with a clear error, and keeps serving', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'file_read', arguments: { path: '../../etc/passwd' } }));
    expect(err.code).toBe(status.PERMISSION_DENIED);
    expect(err.details).toMatch(/escapes|outside/);
    const again = await client.runTool({ provider: 'local', name: 'file_read', arguments: { path: 'notes.txt' } });
    expect(again.status).toBe(RunStatus.RUN_STATUS_OK);
  });

  it('answers an unknown tool with NOT_FOUND and close names', async () => {
    const err = await failure(client.getToolInfo({ provider: 'local', name: 'file_reed' }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.info?.suggestions).toContain('file_read');
    expect(err.info?.parentPath).toBe('file');
  });

  it('reports UNAVAILABLE while adapter-local is dead and recovers when it is back', async () => {
    await adapter.kill('SIGKILL');
    const err = await failure(client.runTool({ provider: 'local', name: 'file_read', arguments: { path: 'notes.txt' } }));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(err.details).toContain('No adapter for provider "local"');
    adapter = await startAdapter();
    const res = await client.runTool({ provider: 'local', name: 'file_read', arguments: { path: 'notes.txt' } });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
  }, 60_000);
});
