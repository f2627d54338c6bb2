/**
 * The adapter as the lead wires it: served with `serveAdapter` on the in-process bus and called
 * through `AdapterClient`, with `onCatalogChanged` re-announcing the catalog to the registry.
 */
import { AdapterClient, type AdapterService, serveAdapter } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { CatalogAnnouncement, catalogWildcard, RunStatus, ToolHubError } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { createMcpAdapter, type McpAdapter, parseMcpConfig } from '../src';
import { FIXTURE_SERVER } from './support';

jest.setTimeout(60_000);

describe('MCP adapter served on the bus', () => {
  const bus = new InProcessBus();
  const client = new AdapterClient(bus);
  const announcements: CatalogAnnouncement[] = [];
  let adapter: McpAdapter;
  let service: AdapterService | undefined;

  beforeAll(async () => {
    await bus.subscribe(catalogWildcard('sync'), (msg) => void announcements.push(CatalogAnnouncement.decode(msg.data)));
    const config = parseMcpConfig(
      [
        'servers:',
        '  - { alias: everything, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio], mount: demo/everything }',
        `  - { alias: fx, transport: stdio, command: node, args: ["${FIXTURE_SERVER}"], mount: test/fixture }`,
      ].join('\n'),
      { baseDir: __dirname },
    );
    adapter = createMcpAdapter(config, { onCatalogChanged: () => service?.announce() });
    service = await serveAdapter(bus, adapter, { heartbeatIntervalMs: 60_000 });
  });

  afterAll(async () => {
    await service?.close();
    await adapter.close();
    await bus.close();
  });

  it('announces the catalog of every server at start-up', async () => {
    const first = await waitFor(() => announcements[0]);
    expect(first.provider).toBe('mcp');
    expect(first.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['everything_echo', 'fx_describe_args']));
  });

  it('lists, describes and runs tools through the adapter protocol', async () => {
    const listing = await client.list('mcp', 'demo', true, { timeoutMs: 10_000 });
    expect(listing.tools.map((t) => t.id)).toContain('mcp:everything_echo');
    const info = await client.info('mcp', 'fx_describe_args', { timeoutMs: 10_000 });
    expect(Object.keys(info.inputSchema?.properties as object)).toEqual(['user_name', 'filter_options']);
    const run = await client.run('mcp', { name: 'fx_describe_args', arguments: { user_name: 'bo', filter_options: { sort_order: 'desc' } }, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: 'agent-1' }, { timeoutMs: 10_000 });
    expect(run.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(run.structured).toEqual({ userName: 'bo', filterOptions: { sortOrder: 'desc' } });
  });

  it('reports an isError result as a tool error with the message', async () => {
    const run = await client.run('mcp', { name: 'everything_get_sum', arguments: { a: 'x', b: 1 }, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: '' }, { timeoutMs: 10_000 });
    expect(run.status).toBe(RunStatus.RUN_STATUS_TOOL_ERROR);
    expect(run.errorMessage).toMatch(/expected number/);
  });

  it('answers a call that passes its deadline with a timeout error', async () => {
    const err = await client
      .run('mcp', { name: 'fx_slow_op', arguments: { duration_ms: 30_000 }, deadlineUnixMs: Date.now() + 300, idempotencyKey: '', caller: '' }, { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('timeout');
  });

  it('re-announces the catalog when a server sends list_changed', async () => {
    const before = announcements.length;
    await client.run('mcp', { name: 'fx_add_tool', arguments: { tool_name: 'lateTool' }, deadlineUnixMs: Date.now() + 10_000, idempotencyKey: '', caller: '' }, { timeoutMs: 10_000 });
    const fresh = await waitFor(() => announcements.slice(before).find((a) => a.tools.some((t) => t.name === 'fx_late_tool')));
    expect(fresh.catalogVersion).not.toBe(announcements[0]?.catalogVersion);
    const info = await client.info('mcp', 'fx_late_tool', { timeoutMs: 10_000 });
    expect(info.path).toBe('test/fixture');
  });
});
