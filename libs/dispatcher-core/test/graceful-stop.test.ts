/**
 * An adapter replica that stops gracefully (SIGTERM → `close()`) finishes the calls it holds: the
 * dispatcher must let them answer instead of failing them as lost — and still fail what a stopping
 * replica never answers, once its drain time is over.
 */
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { RunStatus } from '@toolhub/contracts';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, type TestClient } from './support/grpc-client';

const slowWrite: ToolDefinition<never> = {
  name: 'slow_write',
  path: 'text',
  description: 'Writes something, slowly; not safe to repeat.',
  inputSchema: { type: 'object' },
  run: () => new Promise((resolve) => setTimeout(() => resolve(textResult('written')), 400)),
};

const hang: ToolDefinition<never> = {
  name: 'hang',
  path: 'text',
  description: 'Never finishes on its own.',
  inputSchema: { type: 'object' },
  run: (_a, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
};

describe('an adapter replica stopping gracefully', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;
  let client: TestClient;
  let adapter: AdapterService | undefined;

  beforeEach(async () => {
    bus = new InProcessBus();
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false, adapterDrainMs: 1000 } });
    client = connectClient(running.grpc.address);
  });

  afterEach(async () => {
    client.close();
    await adapter?.close();
    await running.close(100);
    await bus.close();
  });

  const waitUntilRunning = async (a: AdapterService) => {
    for (let i = 0; i < 200 && a.inFlight === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(a.inFlight).toBe(1);
  };

  it('lets the calls it holds finish and answer', async () => {
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', [slowWrite]) });
    const call = client.runTool({ provider: 'local', name: 'slow_write', caller: 'test' });
    await waitUntilRunning(adapter);
    const stopping = adapter.close();
    const res = await call;
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(res.content).toEqual([{ text: 'written' }]);
    await stopping;
    adapter = undefined;
  });

  it('fails a call the stopping replica still holds after the drain time, saying it may have run', async () => {
    // The adapter drains longer than the dispatcher waits: the dispatcher gives up first.
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', [hang]) }, { drainTimeoutMs: 5000 });
    const call = client.runTool({ provider: 'local', name: 'hang', caller: 'test', timeoutMs: 20_000 }, { deadlineMs: 25_000 });
    await waitUntilRunning(adapter);
    const started = Date.now();
    const stopping = adapter.close();
    const res = await call.catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(res).toMatchObject({ details: expect.stringMatching(/it was stopping and had not answered after 1000 ms.*may or may not have run/) });
    await stopping; // the adapter's own drain ends at 5 s and aborts the run
    adapter = undefined;
  }, 15_000);
});
