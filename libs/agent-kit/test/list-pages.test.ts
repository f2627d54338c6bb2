/**
 * ToolHubAgentClient.listTools follows next_page_token, so callers (the CLI's `ls`, tool_list) see
 * the whole listing as before paging; an explicit page_size asks for one page; a server that repeats
 * a token cannot make it loop.
 */
import { serveAdapter, staticCatalog, textResult, type AdapterService, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { Importance, MAX_PAGE_SIZE, type ListToolsRequest } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';

import { ToolHubAgentClient } from '../src';
import { emptyListing, type FakeServer, startFakeServer } from './support/fake-server';

describe('ToolHubAgentClient.listTools paging', () => {
  const TOOLS = MAX_PAGE_SIZE * 2 + 300;
  const tools: ToolDefinition<never>[] = Array.from({ length: TOOLS }, (_, i) => ({
    name: `op_${String(i).padStart(5, '0')}`,
    path: i % 3 ? 'rest' : '',
    description: `Operation ${i}.`,
    inputSchema: { type: 'object' },
    run: async () => textResult('ok'),
  }));
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: ToolHubAgentClient;

  beforeAll(async () => {
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'bulk', ...staticCatalog('bulk', tools) });
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    client = await ToolHubAgentClient.connect(running.grpc.address);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await running?.close(100);
    await adapter?.close();
    await bus?.close();
  });

  it('answers the whole listing in one response, every tool once, with the categories and the final hint', async () => {
    const res = await client.listTools({ provider: 'bulk', recursive: true });
    expect(res.tools).toHaveLength(TOOLS);
    expect(new Set(res.tools.map((t) => t.id)).size).toBe(TOOLS);
    expect(res.categories.map((c) => c.path)).toEqual(['rest']);
    expect(res.nextPageToken).toBe('');
    expect(res.hint).not.toContain('page_token');
    // Root tools (path '') first, then `rest`, by name within each: the adapter's order.
    expect(res.tools[0]!.name).toBe('op_00000');
    expect(res.tools[Math.ceil(TOOLS / 3)]!.path).toBe('rest');
  });

  it('answers one page when the caller sends page_size', async () => {
    const page = await client.listTools({ provider: 'bulk', recursive: true, pageSize: 100 });
    expect(page.tools).toHaveLength(100);
    expect(page.total).toBe(TOOLS);
    expect(page.nextPageToken).not.toBe('');
  });
});

describe('ToolHubAgentClient.listTools against a server that misbehaves', () => {
  let fake: FakeServer;
  let client: ToolHubAgentClient;

  beforeAll(async () => {
    fake = await startFakeServer();
    client = await ToolHubAgentClient.connect(fake.address, { retry: { maxAttempts: 1 } });
  });

  afterAll(async () => {
    client?.close();
    await fake?.close();
  });

  it('stops with an internal error when the server repeats a page token', async () => {
    const tool = { id: 'p:a', provider: 'p', name: 'a', path: '', summary: '', importance: Importance.IMPORTANCE_NORMAL };
    fake.handlers.listTools = () => ({ ...emptyListing, tools: [tool], nextPageToken: 'same', total: 1 });
    await expect(client.listTools({ provider: 'p' })).rejects.toMatchObject({ code: 'internal', message: expect.stringContaining('twice') });
    const asked = fake.calls.filter((c) => c.method === 'listTools').map((c) => c.request as ListToolsRequest);
    expect(asked.map((r) => r.pageToken)).toEqual(['', 'same']);
    expect(asked[0]!.pageSize).toBe(MAX_PAGE_SIZE);
  });
});
