/**
 * A hostile MCP server beside a real one: adapter-mcp runs server-everything (npm) next to
 * `fixtures/hostile-mcp-server.mjs` — 10,000 tools, one with a 2,000-level input schema, names
 * with control characters and in other scripts, 1 MB descriptions — and a second copy of it that
 * never finishes tools/list. Every part is a process (nats-server, registry, dispatcher,
 * adapter-mcp). The hub stays up, server-everything keeps serving, and every problem is reported:
 * quarantined tools and sources in ListProviders, one log line each (one for the overflow).
 */
import { RunStatus } from '@toolhub/contracts';
import { mongoUrl, type NatsServerHandle, scratchDir, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type AgentClient, connectAgent, isAlive, type RegistryProcess, startApp, startDispatcherProcess, startRegistry, textOf } from './support/stack';

jest.setTimeout(120_000);

const HOSTILE = join(__dirname, 'fixtures', 'hostile-mcp-server.mjs');

describe('a hostile MCP server leaves the hub and its neighbours serving', () => {
  let natsServer: NatsServerHandle | undefined;
  let registry: RegistryProcess;
  let dispatcher: SpawnedProcess;
  let adapter: SpawnedProcess;
  let agent: AgentClient;

  beforeAll(async () => {
    natsServer = await startNatsServer();
    const nats = natsServer.url;
    const dir = scratchDir('e2e-hostile-mcp');
    writeFileSync(
      join(dir, 'mcp.yaml'),
      [
        'provider: mcp',
        'defaults: { timeout: 30s, connectTimeout: 20s, connect: eager }',
        'servers:',
        '  - { alias: everything, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio], mount: demo/everything, exclude: [toggle-simulated-logging, toggle-subscriber-updates] }',
        `  - { alias: hostile, transport: stdio, command: node, args: ["${HOSTILE}", hostile], mount: test/hostile }`,
        `  - { alias: stall, transport: stdio, command: node, args: ["${HOSTILE}", stall], mount: test/stall, connectTimeout: 3s }`,
        '',
      ].join('\n'),
    );
    let started: { proc: SpawnedProcess; address: string };
    [registry, started] = await Promise.all([startRegistry(nats, await mongoUrl(), 'hostile-mcp'), startDispatcherProcess(nats)]);
    dispatcher = started.proc;
    agent = connectAgent(started.address);
    adapter = await startApp('adapter-mcp', { NATS_URL: nats, TOOLHUB_MCP_CONFIG: join(dir, 'mcp.yaml') }, /adapter-mcp ready/, 120_000);
    await waitFor(async () => (await registry.admin.listRegisteredTools('mcp')).some((t) => t.tool?.name === 'hostile_c_echo'), { timeoutMs: 90_000, intervalMs: 1000, message: 'the mcp catalog in the registry' });
  }, 240_000);

  afterAll(async () => {
    agent?.close();
    await adapter?.kill('SIGTERM');
    await dispatcher?.kill('SIGTERM');
    await registry?.stop();
    await natsServer?.dispose();
  });

  it('keeps every process up and server-everything serving', async () => {
    for (const p of [adapter, dispatcher]) expect(isAlive(p.pid)).toBe(true);
    const echo = await agent.runTool({ provider: 'mcp', name: 'everything_echo', arguments: { message: 'still here' }, caller: 'e2e-hostile' });
    expect(echo.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(textOf(echo)).toBe('Echo: still here');
    // Search serves server-everything's tools beside the hostile ones (the index follows the catalog).
    await waitFor(async () => (await agent.searchTools({ queries: ['echo'], provider: 'mcp', limit: 20 }, { deadlineMs: 30_000 })).hits.some((h) => h.id === 'mcp:everything_echo'), {
      timeoutMs: 90_000,
      intervalMs: 2000,
      message: 'everything_echo found by search',
    });
  });

  it("serves the hostile server's legal tools, with legal names for wild ones and their source names kept", async () => {
    const echo = await agent.runTool({ provider: 'mcp', name: 'hostile_c_echo', arguments: { text: 'hi' }, caller: 'e2e-hostile' });
    expect(echo.status).toBe(RunStatus.RUN_STATUS_OK);
    const tools = (await agent.listTools({ provider: 'mcp', path: 'test/hostile', recursive: true })).tools;
    for (const t of tools) expect(t.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    const bell = (await agent.getToolInfo({ provider: 'mcp', name: 'hostile_ctl_bell' })).tool!;
    expect(bell.sourceName).toBe('ctl\u0007bell');
    // A 1 MB description is cut with a note, not carried whole.
    const huge = (await agent.getToolInfo({ provider: 'mcp', name: 'hostile_b_huge_description_0' })).tool!;
    expect(huge.description).toMatch(/\[description cut from 1000008 characters\]$/);
  });

  it('reports the problems: the 2,000-level schema, the overflow past maxTools, the server that never lists', async () => {
    // The stalled server fails while adapter-mcp starts, so it is in the first announcement.
    const status = await waitFor(async () => {
      const st = await registry.admin.getCatalogStatus('mcp');
      return st && st.quarantined.some((q) => q.source === 'stall') ? st : undefined;
    }, { timeoutMs: 60_000, intervalMs: 1000, message: 'the stalled server reported by the registry' });
    expect(status.quarantined).toContainEqual(expect.objectContaining({ source: 'hostile', tool: 'a_deep_schema', rule: 'schema_depth' }));
    expect(status.quarantined).toContainEqual(expect.objectContaining({ source: 'hostile', tool: '', rule: 'max_tools', reason: expect.stringMatching(/lists 10000 tools; at most 1000 are served \(maxTools\), so 9000 are left out/) }));
    expect(status.quarantined).toContainEqual(expect.objectContaining({ source: 'stall', tool: '', rule: 'load', reason: expect.stringMatching(/could not be started, connected or listed/) }));
    const provider = (await agent.listProviders({})).providers.find((p) => p.provider === 'mcp')!;
    expect(provider.quarantinedCount).toBeGreaterThanOrEqual(3);
    expect(adapter.output()).toMatch(/MCP server lists too many tools/);
    expect(adapter.output()).toMatch(/MCP tool quarantined: the input schema nests more than 128 levels/);
  });
});
