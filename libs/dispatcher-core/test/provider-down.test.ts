/** RunTool on a known tool whose provider has no live replica: UNAVAILABLE with since-when, not NOT_FOUND. */
import { status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { RunStatus } from '@toolhub/contracts';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient } from './support/grpc-client';

const tools: ToolDefinition<never>[] = [{ name: 'echo_text', path: 'text', description: 'Echoes a text.', inputSchema: { type: 'object' }, run: async () => textResult('echo') }];

describe('a provider that went down', () => {
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;

  beforeAll(async () => {
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { retryBaseMs: 5, warmCoreTools: false } });
    client = connectClient(running.grpc.address);
  });
  afterAll(async () => {
    client.close();
    await running.close(100);
    await bus.close();
  });

  it('answers UNAVAILABLE naming since when, for a tool it knew, once the last replica stopped', async () => {
    expect((await client.runTool({ provider: 'local', name: 'echo_text' })).status).toBe(RunStatus.RUN_STATUS_OK);
    const before = Date.now();
    await adapter.close();
    const err = await failure(client.runTool({ provider: 'local', name: 'echo_text' }));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(err.details).toMatch(/^Provider "local" has no live replica since (\S+), so local:echo_text cannot run now\. Retry later/);
    const since = Date.parse(/since (\S+),/.exec(err.details)![1]!);
    expect(since).toBeGreaterThanOrEqual(before - 1000);
  });
});
