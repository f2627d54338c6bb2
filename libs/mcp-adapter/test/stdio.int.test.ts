/**
 * The adapter against real MCP servers over stdio: the reference server `server-everything` (from
 * npm) and a small SDK-built fixture server for what the reference server cannot do on demand
 * (pagination, tools added at run time, observable cancellation, a crash).
 */
import { isValidToolName, ToolHubError } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { type CatalogChangeEvent, createMcpAdapter, type McpAdapter, parseMcpConfig } from '../src';
import { childProcesses, EVERYTHING_ENTRY, FIXTURE_SERVER, isAlive, recordingLogger, runContext, textOf } from './support';

jest.setTimeout(60_000);

const SECRET = 'fixture-secret-d41d8cd98f';

describe('MCP adapter over stdio', () => {
  const logger = recordingLogger();
  const events: CatalogChangeEvent[] = [];
  let adapter: McpAdapter;
  const pidOf = (alias: string): number => adapter.status().find((s) => s.alias === alias)!.pid!;

  beforeAll(async () => {
    const config = parseMcpConfig(
      [
        'servers:',
        '  - alias: everything',
        '    transport: stdio',
        '    package: "@modelcontextprotocol/server-everything"',
        '    args: [stdio]',
        '    env: { EVERYTHING_TOKEN: "${FIXTURE_SECRET}" }',
        '    mount: demo/everything',
        '    connect: eager',
        '  - alias: fx',
        '    transport: stdio',
        '    command: node',
        `    args: ["${FIXTURE_SERVER}"]`,
        '    env: { FIXTURE_SECRET: "${FIXTURE_SECRET}" }',
        '    mount: test/fixture',
        '    timeout: 10s',
      ].join('\n'),
      { env: { FIXTURE_SECRET: SECRET }, baseDir: __dirname },
    );
    adapter = createMcpAdapter(config, { logger, onCatalogChanged: (e) => void events.push(e), backoff: { initialMs: 100 } });
    await adapter.start();
  });

  afterAll(async () => {
    const pids = adapter.status().flatMap((s) => (s.pid ? [s.pid] : []));
    await adapter.close();
    // close() stops every server it started: nothing is left running or unreaped.
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(childProcesses().filter((c) => c.args.includes(EVERYTHING_ENTRY) || c.args.includes(FIXTURE_SERVER))).toEqual([]);
  });

  it('connects eager servers at start and lazy ones on first use', () => {
    const rows = Object.fromEntries(adapter.status().map((s) => [s.alias, s.state]));
    expect(rows).toEqual({ everything: 'ready', fx: 'idle' });
  });

  it('lists the mounted tree of every server', async () => {
    const root = await adapter.listTools('', false);
    expect(root.categories).toEqual([
      { path: 'demo', name: 'demo', toolCount: expect.any(Number) },
      { path: 'test', name: 'test', toolCount: expect.any(Number) },
    ]);
    const demo = await adapter.listTools('demo/everything', false);
    expect(demo.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['everything_echo', 'everything_get_sum', 'everything_get_tiny_image', 'everything_trigger_long_running_operation']));
    expect(demo.tools.find((t) => t.name === 'everything_echo')).toEqual({
      id: 'mcp:everything_echo',
      provider: 'mcp',
      name: 'everything_echo',
      path: 'demo/everything',
      summary: 'Echoes back the input string',
      importance: expect.any(Number),
    });
    for (const t of (await adapter.listTools('', true)).tools) expect(isValidToolName(t.name)).toBe(true);
  });

  it('follows tools/list pagination to the last page', async () => {
    // The fixture serves its nine tools three per page.
    const fixture = await adapter.listTools('test/fixture', false);
    expect(fixture.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['fx_add_tool', 'fx_slow_op', 'fx_cancellations', 'fx_describe_args', 'fx_collide', 'fx_fail', 'fx_pid', 'fx_crash']),
    );
    expect(fixture.tools).toHaveLength(9);
  });

  it("gets a tool's info with snake_case parameters and the MCP annotations", async () => {
    const info = await adapter.getToolInfo('everything_get_annotated_message');
    expect(info).toMatchObject({
      id: 'mcp:everything_get_annotated_message',
      path: 'demo/everything',
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      tags: ['mcp', 'everything'],
    });
    expect(info.inputSchema).not.toHaveProperty('$schema');
    expect(Object.keys(info.inputSchema?.properties as object).sort()).toEqual(['include_image', 'message_type']);
    expect(info.inputSchema?.required).toEqual(['message_type']);
    const structured = await adapter.getToolInfo('everything_get_structured_content');
    expect(structured.outputDescription).toMatch(/^Returns structured JSON matching this schema: .*"temperature"/);
    // The schema itself, for MCP clients of the door (they check structuredContent against it).
    expect(JSON.parse(structured.outputSchemaJson!)).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' } } });
  });

  it('answers an unknown name with not_found and close matches', async () => {
    const err = await adapter.getToolInfo('everything_ecko').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('not_found');
    expect((err as ToolHubError).suggestions).toContain('everything_echo');
  });

  it('runs tools and carries text, image, resource and structured content through', async () => {
    expect(textOf(await adapter.runTool('everything_echo', { message: 'hello' }, runContext(5000)))).toBe('Echo: hello');
    const image = await adapter.runTool('everything_get_tiny_image', {}, runContext(5000));
    const png = image.content.find((b) => b.image)?.image;
    expect(png?.mimeType).toBe('image/png');
    expect(png?.data.subarray(1, 4).toString('latin1')).toBe('PNG');
    const ref = await adapter.runTool('everything_get_resource_reference', { resource_type: 'Text', resource_id: 2 }, runContext(5000));
    expect(ref.content.find((b) => b.resource)?.resource).toMatchObject({ uri: 'demo://resource/dynamic/text/2', mimeType: 'text/plain', text: expect.stringContaining('Resource 2') });
    const weather = await adapter.runTool('everything_get_structured_content', { location: 'Chicago' }, runContext(5000));
    expect(weather.structured).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
  });

  it('maps snake_case arguments back to the native names on every run, nested ones too', async () => {
    const res = await adapter.runTool('fx_describe_args', { user_name: 'ada', filter_options: { max_results: 5, sort_order: 'asc' } }, runContext(5000));
    expect(res.structured).toEqual({ userName: 'ada', filterOptions: { maxResults: 5, sortOrder: 'asc' } });
  });

  it("turns an isError result into a failed run with the server's message", async () => {
    const res = await adapter.runTool('everything_get_sum', { a: 'one', b: 2 }, runContext(5000));
    expect(res.isError).toBe(true);
    expect(res.errorMessage).toMatch(/Invalid arguments for tool get-sum: .*expected number/);
  });

  it('passes the server’s notifications/progress to ctx.progress (the last one before the result included); a call nobody listens to runs as before', async () => {
    const updates: Array<{ progress?: number; total?: number }> = [];
    const ctx = { ...runContext(15_000), progress: (u: { progress?: number; total?: number }) => void updates.push(u) };
    const res = await adapter.runTool('everything_trigger_long_running_operation', { duration: 0.3, steps: 3 }, ctx);
    expect(textOf(res)).toMatch(/Long running operation completed/);
    // server-everything sends them only to a request that carried a progressToken, before its result.
    expect(updates.map((u) => [u.progress, u.total])).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect(textOf(await adapter.runTool('everything_trigger_long_running_operation', { duration: 0.1, steps: 2 }, runContext(15_000)))).toMatch(/completed/);
  });

  it('gives up at the deadline, sends the server a cancellation, and keeps the process', async () => {
    const pid = pidOf('everything');
    const started = Date.now();
    const err = await adapter.runTool('everything_trigger_long_running_operation', { duration: 10, steps: 2 }, runContext(400)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('timeout');
    expect((err as ToolHubError).message).toMatch(/did not finish within \d+ ms and was cancelled/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(pidOf('everything')).toBe(pid);
    expect(textOf(await adapter.runTool('everything_echo', { message: 'still here' }, runContext(5000)))).toBe('Echo: still here');

    // The fixture records the notifications/cancelled it receives.
    await expect(adapter.runTool('fx_slow_op', { duration_ms: 30_000 }, runContext(300))).rejects.toMatchObject({ code: 'timeout' });
    const count = await waitFor(async () => JSON.parse(textOf(await adapter.runTool('fx_cancellations', {}, runContext(5000)))).count as number);
    expect(count).toBe(1);
  });

  it('reports a parameter collision at start-up, and keeps the tool usable with its native names', async () => {
    const warning = logger.lines.find((l) => l.level === 'warn' && /collide after normalisation/.test(l.msg));
    expect(warning?.msg).toMatch(/tool "fx_collide" .*"pageSize" and "page_size"/);
    const info = await adapter.getToolInfo('fx_collide');
    expect(Object.keys(info.inputSchema?.properties as object)).toEqual(['pageSize', 'page_size']);
    expect(textOf(await adapter.runTool('fx_collide', { pageSize: 1, page_size: 2 }, runContext(5000)))).toBe('{"pageSize":1,"page_size":2}');
  });

  it('cuts a long tool name to at most 64 characters and still calls the right tool', async () => {
    const long = (await adapter.listTools('test/fixture', false)).tools.find((t) => t.name.startsWith('fx_a_tool_with'))!;
    expect(long.name.length).toBeLessThanOrEqual(64);
    expect(long.name).toMatch(/_[0-9a-f]{8}$/);
    expect(textOf(await adapter.runTool(long.name, {}, runContext(5000)))).toBe('long');
  });

  it('follows list_changed: re-lists the tools and re-announces the catalog', async () => {
    // server-everything registers more tools right after initialisation and says so.
    expect(events.some((e) => e.alias === 'everything' && e.reason === 'list_changed')).toBe(true);
    await adapter.runTool('fx_add_tool', { tool_name: 'brandNewTool' }, runContext(5000));
    const event = await waitFor(() => events.find((e) => e.alias === 'fx' && e.reason === 'list_changed' && e.added.includes('fx_brand_new_tool')));
    expect(event).toEqual({ provider: 'mcp', alias: 'fx', reason: 'list_changed', added: ['fx_brand_new_tool'], removed: [], changed: [] });
    expect(textOf(await adapter.runTool('fx_brand_new_tool', {}, runContext(5000)))).toBe('hello from brandNewTool');
    expect((await adapter.catalog()).map((t) => t.name)).toContain('fx_brand_new_tool');
  });

  it('restarts a stdio server whose process exits, without waiting for a call', async () => {
    const before = adapter.status().find((s) => s.alias === 'fx')!;
    await adapter.runTool('fx_crash', {}, runContext(5000));
    const after = await waitFor(() => adapter.status().find((s) => s.alias === 'fx' && s.state === 'ready' && s.connects === before.connects + 1), { timeoutMs: 10_000 });
    expect(after.pid).not.toBe(before.pid);
    expect(isAlive(before.pid!)).toBe(false);
    // The restarted server has lost the tool added at run time; the catalog says so.
    await waitFor(() => events.find((e) => e.alias === 'fx' && e.reason === 'reconnected' && e.removed.includes('fx_brand_new_tool')));
    expect(textOf(await adapter.runTool('fx_pid', {}, runContext(5000)))).toBe(String(after.pid));
  });

  it('reconnects after the server process is killed, and the next call succeeds', async () => {
    const pid = pidOf('everything');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid));
    const res = await adapter.runTool('everything_echo', { message: 'back again' }, runContext(10_000));
    expect(textOf(res)).toBe('Echo: back again');
    const row = adapter.status().find((s) => s.alias === 'everything')!;
    expect(row.state).toBe('ready');
    expect(row.pid).not.toBe(pid);
    expect(row.connects).toBeGreaterThanOrEqual(2);
  });

  it('keeps one process per server, and the process count flat, across 1,000 calls', async () => {
    const servers = (): number[] =>
      childProcesses()
        .filter((c) => c.args.includes(EVERYTHING_ENTRY) || c.args.includes(FIXTURE_SERVER))
        .map((c) => c.pid)
        .sort();
    const before = childProcesses();
    expect(servers()).toEqual([pidOf('everything'), pidOf('fx')].sort());
    const calls = Array.from({ length: 1000 }, (_, i) => i);
    for (let i = 0; i < calls.length; i += 20) {
      await Promise.all(
        calls.slice(i, i + 20).map(async (n) => {
          const tool = n % 2 === 0 ? 'everything_echo' : 'fx_describe_args';
          const args = n % 2 === 0 ? { message: `m${n}` } : { user_name: `u${n}` };
          const res = await adapter.runTool(tool, args, runContext(10_000));
          expect(res.isError).toBeUndefined();
        }),
      );
    }
    const after = childProcesses();
    expect(after.map((c) => c.pid).sort()).toEqual(before.map((c) => c.pid).sort());
    expect(after.filter((c) => c.stat.startsWith('Z'))).toEqual([]);
    expect(servers()).toEqual([pidOf('everything'), pidOf('fx')].sort());
  });

  it('keeps secrets from env out of ToolInfo, errors, logs, status and events', async () => {
    const failed = await adapter.runTool('fx_fail', {}, runContext(5000));
    expect(failed.errorMessage).toBe('fixture failure (secret is set; value [REDACTED])');
    const everywhere = JSON.stringify([await adapter.catalog(), events, adapter.status(), await adapter.health!(), failed]) + logger.text();
    expect(everywhere).not.toContain(SECRET);
  });

  it('keeps a secret out of a successful result: server-everything get-env prints its own environment', async () => {
    const res = await adapter.runTool('everything_get_env', {}, runContext(5000));
    expect(res.isError).toBeFalsy();
    const text = textOf(res);
    expect(text).toContain('"EVERYTHING_TOKEN": "[REDACTED]"');
    expect(JSON.stringify(res)).not.toContain(SECRET);
  });
});
