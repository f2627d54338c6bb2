/** The async-run meta-tools (`asyncRuns: true`): a stable prefix, and tool_start → tool_result against a running dispatcher with async runs. */
import { serveAdapter, staticCatalog, textResult, type AdapterService } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { scratchDir } from '@toolhub/test-harness';
import { setTimeout as sleep } from 'node:timers/promises';

import { AgentToolkit, ASYNC_META_TOOLS, META_TOOLS, renderTools, ToolHubAgentClient, toolsFingerprint } from '../src';

describe('async-run meta-tools', () => {
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: ToolHubAgentClient;

  beforeAll(async () => {
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, {
      provider: 'local',
      ...staticCatalog('local', [
        {
          name: 'slow_echo',
          path: 'text',
          description: 'Echoes text back after `ms` milliseconds.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' }, ms: { type: 'integer' } }, required: ['text'] },
          run: async (a: { text: string; ms?: number }, ctx) => {
            await sleep(a.ms ?? 0, undefined, { signal: ctx.signal });
            return textResult(a.text);
          },
        },
      ]),
    });
    running = await startDispatcher(bus, {
      grpc: { port: 0 },
      dispatcher: { warmCoreTools: false },
      deps: { asyncRuns: { store: await openEmbeddedRunStore({ dir: scratchDir('agent-kit-runs') }), queue: 'local' } },
    });
    client = await ToolHubAgentClient.connect(running.grpc.address);
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    await adapter.close();
    await bus.close();
  });

  it('are offered after the four meta-tools only when asked for, in fixed bytes', async () => {
    const off = await AgentToolkit.create(client, { preload: [] });
    const on = await AgentToolkit.create(client, { preload: [], asyncRuns: true });
    const again = await AgentToolkit.create(client, { preload: [], asyncRuns: true });
    expect(off.prefix('mcp').tools.map((t) => t.name)).toEqual(META_TOOLS.map((t) => t.name));
    expect(on.prefix('mcp').tools.map((t) => t.name)).toEqual([...META_TOOLS, ...ASYNC_META_TOOLS].map((t) => t.name));
    for (const format of ['openai-chat', 'anthropic', 'mcp'] as const) {
      expect(JSON.stringify(on.prefix(format))).toBe(JSON.stringify(again.prefix(format)));
      expect(toolsFingerprint(on.loaded.prefix, format)).toBe(renderTools([...META_TOOLS, ...ASYNC_META_TOOLS], format).fingerprint);
    }
  });

  it('tool_start answers a run id at once; tool_result says it is not done, then gives the output', async () => {
    const kit = await AgentToolkit.create(client, { preload: [], asyncRuns: true });
    const started = await kit.execute({ name: 'tool_start', arguments: { provider: 'local', name: 'slow_echo', arguments: { text: 'later', ms: 1500 } } });
    expect(started.isError).toBe(false);
    const runId = /run (run_[0-9a-z]+)/.exec(started.content)![1]!;
    const early = await kit.execute({ name: 'tool_result', arguments: { run_id: runId } });
    expect(early.content).toMatch(/: (queued|running) /);
    expect(early.content).toContain('not done yet');
    const done = await kit.execute({ name: 'tool_result', arguments: { run_id: runId, wait_s: 30 } });
    expect(done).toEqual({ content: `run ${runId}: succeeded (local:slow_echo, attempt 1)\nlater`, isError: false });
  });

  it('tool_result of a run id that is not the caller’s is an error the model can act on', async () => {
    const kit = await AgentToolkit.create(client, { preload: [], asyncRuns: true });
    const res = await kit.execute({ name: 'tool_result', arguments: { run_id: 'run_0000000000ffffffffffffffff' } });
    expect(res.isError).toBe(true);
    expect(res.content).toContain('not_found');
  });
});
