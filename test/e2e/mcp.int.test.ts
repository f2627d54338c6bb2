/**
 * adapter-mcp end to end, every part in its own process: a real nats-server, the registry (on a
 * MongoDB wire-protocol server), the dispatcher, and adapter-mcp serving real MCP servers from npm —
 * server-everything over stdio and over Streamable HTTP, server-filesystem over stdio — plus the
 * adapter's SDK-built fixture server, whose tool set can change on demand (list_changed). Driven
 * through the dispatcher's gRPC API as an agent would.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { RunStatus, type RunToolStreamResponse } from '@toolhub/contracts';
import { freePort, mongoUrl, type NatsServerHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  type AgentClient,
  childrenOf,
  connectAgent,
  EVERYTHING_ENTRY,
  failure,
  FIXTURE_SERVER,
  isAlive,
  type ProcessRow,
  type RegistryProcess,
  startApp,
  startDispatcherProcess,
  startRegistry,
  statsBaseline,
  textOf,
} from './support/stack';

jest.setTimeout(60_000);

/** The four MCP servers adapter-mcp runs or connects to, by alias. */
function mcpConfig(httpPort: number, fsRoot: string): string {
  const quiet = 'exclude: [toggle-simulated-logging, toggle-subscriber-updates]';
  return [
    'provider: mcp',
    'defaults: { timeout: 30s, connectTimeout: 30s, connect: eager }',
    'servers:',
    `  - { alias: everything, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio], mount: demo/everything, ${quiet} }`,
    `  - { alias: web, transport: streamable-http, url: "http://127.0.0.1:${httpPort}/mcp", mount: remote/everything, ${quiet} }`,
    `  - { alias: fs, transport: stdio, package: "@modelcontextprotocol/server-filesystem", args: ["${fsRoot}"], mount: file/mcp, exclude: [read_file] }`,
    `  - { alias: fx, transport: stdio, command: node, args: ["${FIXTURE_SERVER}"], mount: test/fixture, exclude: [crash, collide] }`,
    '',
  ].join('\n');
}

describe('agent → dispatcher → NATS → adapter-mcp → real MCP servers, as separate processes', () => {
  let fsRoot: string;
  let web: SpawnedProcess;
  let registry: RegistryProcess;
  let natsServer: NatsServerHandle | undefined;
  let dispatcher: SpawnedProcess;
  let adapter: SpawnedProcess;
  let agent: AgentClient;
  /** Calls the registry had counted before this file made any (see statsBaseline). */
  let baseline: Map<string, number>;

  /** The MCP servers adapter-mcp started (its direct children, minus tsx's esbuild service). */
  const mcpServers = (): ProcessRow[] => childrenOf(adapter.pid).filter((c) => /server-everything|server-filesystem|dynamic-server/.test(c.args));
  const stdioEverything = (): ProcessRow | undefined => mcpServers().find((c) => c.args.includes(EVERYTHING_ENTRY) && /\bstdio$/.test(c.args));
  /** RunTool calls made per tool: each emits exactly one tool.called event. */
  const runs = new Map<string, number>();
  const run = (name: string, args: Record<string, unknown> = {}, timeoutMs = 0) => {
    runs.set(name, (runs.get(name) ?? 0) + 1);
    return agent.runTool({ provider: 'mcp', name, arguments: args, timeoutMs, caller: 'e2e-mcp' });
  };

  beforeAll(async () => {
    // A private nats-server, even when NATS_URL names a shared one: the registry's new stats consumer
    // then replays only this file's events, not every earlier suite's (see statsBaseline).
    natsServer = await startNatsServer();
    const nats = natsServer.url;
    const mongo = await mongoUrl();
    fsRoot = realpathSync(scratchDir('e2e-mcp-fs'));
    writeFileSync(join(fsRoot, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    const httpPort = await freePort();
    const configDir = scratchDir('e2e-mcp-config');
    writeFileSync(join(configDir, 'mcp.yaml'), mcpConfig(httpPort, fsRoot));

    let started: { proc: SpawnedProcess; address: string };
    [web, registry, started] = await Promise.all([
      spawnProcess(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], { env: { PORT: String(httpPort) }, readyPattern: /listening on port|running on port/i, timeoutMs: 60_000 }),
      startRegistry(nats, mongo, 'mcp'),
      startDispatcherProcess(nats),
    ]);
    dispatcher = started.proc;
    agent = connectAgent(started.address);
    adapter = await startApp('adapter-mcp', { NATS_URL: nats, TOOLHUB_MCP_CONFIG: join(configDir, 'mcp.yaml') }, /adapter-mcp ready/);
    // The dispatcher learns providers from adapters' heartbeats; the registry from their announcements.
    await waitFor(async () => (await agent.listTools({ provider: '' })).categories.some((c) => c.name === 'mcp'), { timeoutMs: 30_000, message: 'provider mcp at the dispatcher' });
    await waitFor(async () => (await registry.admin.listRegisteredTools('mcp')).some((t) => t.tool?.name === 'fx_add_tool'), { timeoutMs: 30_000, message: 'the mcp catalog in the registry' });
    const stats = await statsBaseline(nats, registry.admin, ['mcp:everything_echo', 'mcp:web_echo']);
    baseline = new Map([...stats].map(([id, s]) => [id, Number(s?.calls ?? 0)]));
  }, 150_000);

  afterAll(async () => {
    agent?.close();
    await adapter?.kill('SIGTERM');
    await dispatcher?.kill('SIGTERM');
    await registry?.stop();
    await natsServer?.dispose();
    await web?.kill('SIGTERM');
  });

  it('lists provider mcp among the providers, and its mounted tree at the root and at every mount path', async () => {
    const providers = await agent.listTools({ provider: '' });
    expect(providers.categories.find((c) => c.name === 'mcp')?.toolCount).toBeGreaterThan(20);

    const root = await agent.listTools({ provider: 'mcp' });
    expect(root.categories.map((c) => c.path).sort()).toEqual(['demo', 'file', 'remote', 'test']);
    expect(root.tools).toEqual([]);

    const names = async (path: string) => (await agent.listTools({ provider: 'mcp', path })).tools.map((t) => t.name);
    expect(await names('demo/everything')).toEqual(expect.arrayContaining(['everything_echo', 'everything_get_sum', 'everything_trigger_long_running_operation']));
    expect(await names('demo/everything')).not.toContain('everything_toggle_simulated_logging');
    expect(await names('remote/everything')).toEqual(expect.arrayContaining(['web_echo', 'web_get_sum']));
    expect(await names('file/mcp')).toEqual(expect.arrayContaining(['fs_read_text_file', 'fs_list_directory', 'fs_edit_file']));
    expect(await names('file/mcp')).not.toContain('fs_read_file');
    expect(await names('test/fixture')).toEqual(expect.arrayContaining(['fx_add_tool', 'fx_pid', 'fx_slow_op']));

    const demo = await agent.listTools({ provider: 'mcp', path: 'demo' });
    expect(demo.categories.map((c) => c.path)).toEqual(['demo/everything']);
    const all = await agent.listTools({ provider: 'mcp', recursive: true });
    for (const t of all.tools) expect(t.id).toBe(`mcp:${t.name}`);
  });

  it("gets a tool's info with snake_case parameters", async () => {
    const echo = (await agent.getToolInfo({ provider: 'mcp', name: 'everything_echo' })).tool!;
    expect(echo).toMatchObject({ id: 'mcp:everything_echo', provider: 'mcp', path: 'demo/everything', tags: ['mcp', 'everything'] });
    expect(echo.description).toMatch(/echo/i);
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });

    // server-filesystem's camelCase parameters (dryRun, edits[].oldText) are snake_case for agents.
    const edit = (await agent.getToolInfo({ provider: 'mcp', name: 'fs_edit_file' })).tool!;
    const props = edit.inputSchema?.['properties'] as Record<string, { items?: { properties?: object } }>;
    // (google.protobuf.Struct carries no key order.)
    expect(Object.keys(props).sort()).toEqual(['dry_run', 'edits', 'path']);
    expect(Object.keys(props['edits']?.items?.properties ?? {}).sort()).toEqual(['new_text', 'old_text']);
    expect(edit.annotations).toMatchObject({ destructive: true });
  });

  it('runs tools over stdio and over Streamable HTTP, mapping snake_case arguments back', async () => {
    const echo = await run('everything_echo', { message: 'hello over stdio' });
    expect(echo.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(textOf(echo)).toBe('Echo: hello over stdio');
    expect(echo.servedBy).toBe('mcp:everything_echo');

    expect(textOf(await run('web_echo', { message: 'hello over http' }))).toBe('Echo: hello over http');
    expect(textOf(await run('web_get_sum', { a: 2, b: 40 }))).toBe('The sum of 2 and 40 is 42.');

    const read = await run('fs_read_text_file', { path: join(fsRoot, 'notes.txt'), head: 1 });
    expect(textOf(read)).toBe('alpha');
    const preview = await run('fs_edit_file', { path: join(fsRoot, 'notes.txt'), edits: [{ old_text: 'beta', new_text: 'BETA' }], dry_run: true });
    expect(textOf(preview)).toMatch(/-beta\n\+BETA/);

    const args = await run('fx_describe_args', { user_name: 'ada', filter_options: { max_results: 5 } });
    expect(args.structured).toEqual({ userName: 'ada', filterOptions: { maxResults: 5 } });
  });

  it('passes an upstream server’s notifications/progress (Streamable HTTP) to a RunToolStream caller, then the result', async () => {
    runs.set('web_trigger_long_running_operation', (runs.get('web_trigger_long_running_operation') ?? 0) + 1);
    const events = await new Promise<RunToolStreamResponse[]>((resolve, reject) => {
      const got: RunToolStreamResponse[] = [];
      const run = { provider: 'mcp', name: 'web_trigger_long_running_operation', arguments: { duration: 0.6, steps: 3 }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: 'e2e-mcp', searchId: '' };
      const call = agent.raw.runToolStream({ run }, new Metadata(), { deadline: new Date(Date.now() + 30_000) });
      call.on('data', (e: RunToolStreamResponse) => got.push(e));
      call.on('error', reject);
      call.on('end', () => resolve(got));
    });
    const updates = events.filter((e) => e.progress).map((e) => e.progress!);
    const result = events.at(-1)!.result!;
    expect(textOf(result)).toMatch(/Long running operation completed/);
    // Steps 200 ms apart each become an update; on a loaded machine two may arrive together and be
    // coalesced (newest wins), so: increasing, ending at 3 of 3, before the result.
    const values = updates.map((u) => u.progress);
    expect(values.at(-1)).toBe(3);
    expect(updates.at(-1)!.total).toBe(3);
    expect([...values].sort((a, b) => a! - b!)).toEqual(values);
    expect(new Set(values).size).toBe(values.length);
  });

  it("reports a tool that returns isError as RUN_STATUS_TOOL_ERROR with the server's message", async () => {
    const res = await run('fs_read_text_file', { path: '/etc/hostname' });
    expect(res.status).toBe(RunStatus.RUN_STATUS_TOOL_ERROR);
    expect(res.error?.message).toMatch(/Access denied - path outside allowed directories/);
  });

  it('answers a call that outlives its deadline with DEADLINE_EXCEEDED, promptly, and keeps the server', async () => {
    const pid = stdioEverything()?.pid;
    expect(pid).toBeGreaterThan(0);
    const started = Date.now();
    const err = await failure(run('everything_trigger_long_running_operation', { duration: 20, steps: 4 }, 500));
    const elapsed = Date.now() - started;
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    expect(err.details).toMatch(/did not finish within \d+ ms/);
    expect(elapsed).toBeLessThan(3000);
    expect(stdioEverything()?.pid).toBe(pid);
    expect(textOf(await run('everything_echo', { message: 'still here' }))).toBe('Echo: still here');
  });

  it('shows every MCP server in the registry catalog, and finds MCP tools by description keywords', async () => {
    const registered = (await registry.admin.listRegisteredTools('mcp')).map((t) => t.tool!);
    expect(registered.map((t) => t.name)).toEqual(expect.arrayContaining(['everything_echo', 'web_echo', 'fs_read_text_file', 'fx_add_tool']));
    expect(registered.find((t) => t.name === 'web_echo')?.path).toBe('remote/everything');

    const top3 = async (queries: string[], provider = '') => (await agent.searchTools({ queries, provider, limit: 3 })).hits.map((h) => h.id);
    expect(await top3(['long running operation with progress updates'])).toContain('mcp:everything_trigger_long_running_operation');
    expect(await top3(['edit a text file with line replacements'], 'mcp')).toContain('mcp:fs_edit_file');
  });

  it('follows list_changed: the registry catalog, tool search and ListTools show a tool added at run time', async () => {
    // Cache the listing first, so the test shows it being invalidated, not merely loaded late.
    expect((await agent.listTools({ provider: 'mcp', path: 'test/fixture' })).tools.map((t) => t.name)).not.toContain('fx_late_arrival');

    const added = await run('fx_add_tool', { tool_name: 'lateArrival' });
    expect(textOf(added)).toBe('added lateArrival');

    const registered = await waitFor(async () => (await registry.admin.listRegisteredTools('mcp', 'test/fixture')).find((t) => t.tool?.name === 'fx_late_arrival'), {
      timeoutMs: 15_000,
      message: 'fx_late_arrival in the registry catalog',
    });
    expect(registered.tool?.description).toBe('Added at run time as lateArrival.');
    await waitFor(async () => (await agent.searchTools({ queries: ['late arrival added at run time'], provider: 'mcp', limit: 3 })).hits.some((h) => h.id === 'mcp:fx_late_arrival'), {
      timeoutMs: 10_000,
      message: 'tool search to find fx_late_arrival',
    });
    await waitFor(async () => (await agent.listTools({ provider: 'mcp', path: 'test/fixture' })).tools.some((t) => t.name === 'fx_late_arrival'), {
      timeoutMs: 10_000,
      message: 'fx_late_arrival in the dispatcher listing',
    });
    expect(textOf(await run('fx_late_arrival'))).toBe('hello from lateArrival');
  });

  it('restarts a killed stdio server: the next call reconnects and succeeds', async () => {
    const before = stdioEverything()!;
    process.kill(before.pid, 'SIGKILL');
    await waitFor(() => !isAlive(before.pid), { timeoutMs: 5000, message: 'the server process to die' });

    const res = await run('everything_echo', { message: 'back again' }, 15_000);
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(textOf(res)).toBe('Echo: back again');
    const after = stdioEverything();
    expect(after?.pid).toBeGreaterThan(0);
    expect(after?.pid).not.toBe(before.pid);
    // Exactly one server-everything over stdio: the new one, nothing left over or unreaped.
    expect(mcpServers().filter((c) => c.args.includes(EVERYTHING_ENTRY))).toEqual([expect.objectContaining({ pid: after!.pid })]);
  });

  it('keeps the process count of adapter-mcp flat across 1,000 calls, and counts them in the statistics', async () => {
    const before = childrenOf(adapter.pid);
    expect(mcpServers()).toHaveLength(3); // everything, fs, fx over stdio; web is a remote server
    const tools = ['everything_echo', 'web_echo', 'fs_list_allowed_directories', 'fx_pid'];
    for (let i = 0; i < 1000; i += 25) {
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, k) => {
          const name = tools[(i + k) % tools.length]!;
          return run(name, name.endsWith('echo') ? { message: `m${i + k}` } : {});
        }),
      );
      for (const r of results) expect(r.status).toBe(RunStatus.RUN_STATUS_OK);
    }
    const after = childrenOf(adapter.pid);
    expect(after.map((c) => c.pid).sort()).toEqual(before.map((c) => c.pid).sort());
    expect(after.filter((c) => c.stat.startsWith('Z'))).toEqual([]);

    // Every run was measured: the registry counts each from its durable tool.called event, once.
    const counted = async () => {
      const out: Record<string, number> = {};
      for (const name of ['everything_echo', 'web_echo']) out[name] = Number((await registry.admin.getToolStats(`mcp:${name}`))?.calls ?? 0) - baseline.get(`mcp:${name}`)!;
      return out;
    };
    const expected = { everything_echo: runs.get('everything_echo'), web_echo: runs.get('web_echo') };
    await waitFor(async () => JSON.stringify(await counted()) === JSON.stringify(expected), { timeoutMs: 20_000, intervalMs: 200, message: `the registry to count ${JSON.stringify(expected)}` });
    await new Promise((r) => setTimeout(r, 1000)); // a redelivery would show up as a double count now
    expect(await counted()).toEqual(expected);
  }, 120_000);

  it('stops every MCP server it started on SIGTERM', async () => {
    const servers = mcpServers().map((c) => c.pid);
    expect(servers).toHaveLength(3);
    const exit = await adapter.kill('SIGTERM');
    expect(exit.code).toBe(0);
    for (const pid of servers) await waitFor(() => !isAlive(pid), { timeoutMs: 5000, message: `MCP server ${pid} to exit` });
    // The remote server outlives the adapter, which only held a session with it.
    expect(isAlive(web.pid)).toBe(true);
  });
});
