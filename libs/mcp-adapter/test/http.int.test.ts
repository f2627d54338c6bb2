/**
 * The adapter against the real `server-everything` running as its own process over Streamable
 * HTTP (and over the older HTTP+SSE transport), on free loopback ports.
 */
import { ToolHubError } from '@toolhub/contracts';
import { freePort, spawnProcess, type SpawnedProcess, waitFor } from '@toolhub/test-harness';

import { createMcpAdapter, type McpAdapter, parseMcpConfig } from '../src';
import { EVERYTHING_ENTRY, recordingLogger, runContext, textOf } from './support';

jest.setTimeout(60_000);

const TOKEN = 'http-header-token-5f4dcc3b5a';

function startEverything(mode: 'streamableHttp' | 'sse', port: number): Promise<SpawnedProcess> {
  return spawnProcess(process.execPath, [EVERYTHING_ENTRY, mode], { env: { PORT: String(port) }, readyPattern: /listening on port|running on port/i });
}

describe('MCP adapter over Streamable HTTP', () => {
  const logger = recordingLogger();
  let port: number;
  let server: SpawnedProcess;
  let adapter: McpAdapter;

  beforeAll(async () => {
    port = await freePort();
    server = await startEverything('streamableHttp', port);
    const config = parseMcpConfig(
      ['servers:', '  - alias: web', '    transport: streamable-http', `    url: http://127.0.0.1:${port}/mcp`, '    headers: { Authorization: "Bearer ${TOKEN}" }', '    mount: remote/everything'].join('\n'),
      { env: { TOKEN } },
    );
    adapter = createMcpAdapter(config, { logger, backoff: { initialMs: 100, maxMs: 1000 } });
  });

  afterAll(async () => {
    await adapter.close();
    await server.kill();
  });

  it('connects on first use and lists the mounted tools', async () => {
    expect(adapter.status()[0]?.state).toBe('idle');
    const listing = await adapter.listTools('remote', true);
    expect(listing.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['web_echo', 'web_get_sum', 'web_get_tiny_image']));
    expect(adapter.status()[0]).toMatchObject({ state: 'ready', transport: 'streamable-http', endpoint: `http://127.0.0.1:${port}` });
  });

  it("gets a tool's info", async () => {
    const info = await adapter.getToolInfo('web_get_resource_links');
    expect(info.path).toBe('remote/everything');
    expect(info.inputSchema?.properties).toHaveProperty('count');
  });

  it('runs tools, including one that reports an error', async () => {
    expect(textOf(await adapter.runTool('web_get_sum', { a: 2, b: 40 }, runContext(5000)))).toBe('The sum of 2 and 40 is 42.');
    const failed = await adapter.runTool('web_get_sum', { a: 2 }, runContext(5000));
    expect(failed.isError).toBe(true);
    expect(failed.errorMessage).toMatch(/Invalid arguments for tool get-sum/);
  });

  it('cancels a call at its deadline and keeps the session', async () => {
    const err = await adapter.runTool('web_trigger_long_running_operation', { duration: 10, steps: 2 }, runContext(400)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('timeout');
    expect(textOf(await adapter.runTool('web_echo', { message: 'after' }, runContext(5000)))).toBe('Echo: after');
    expect(adapter.status()[0]?.connects).toBe(1);
  });

  it('reconnects with backoff when the server goes away and comes back', async () => {
    await server.kill('SIGKILL');
    const down = await adapter.runTool('web_echo', { message: 'down' }, runContext(3000)).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ToolHubError);
    expect((down as ToolHubError).code).toBe('unavailable');
    expect((down as ToolHubError).retryable).toBe(true);
    server = await startEverything('streamableHttp', port);
    // The background reconnect finds the new server (a new MCP session) without any call.
    await waitFor(() => adapter.status()[0]?.state === 'ready', { timeoutMs: 10_000 });
    expect(textOf(await adapter.runTool('web_echo', { message: 'back' }, runContext(5000)))).toBe('Echo: back');
    expect(adapter.status()[0]?.connects).toBe(2);
  });

  it('keeps header secrets out of ToolInfo, errors, logs and status', async () => {
    const everywhere = JSON.stringify([await adapter.catalog(), adapter.status(), await adapter.health!()]) + logger.text();
    expect(everywhere).not.toContain(TOKEN);
  });
});

describe('MCP adapter over HTTP+SSE (older servers)', () => {
  let server: SpawnedProcess;
  let adapter: McpAdapter;

  beforeAll(async () => {
    const port = await freePort();
    server = await startEverything('sse', port);
    adapter = createMcpAdapter(parseMcpConfig(`servers: [{ alias: legacy, transport: sse, url: "http://127.0.0.1:${port}/sse" }]`));
  });

  afterAll(async () => {
    await adapter.close();
    await server.kill();
  });

  it('lists and runs tools', async () => {
    expect((await adapter.catalog()).map((t) => t.name)).toContain('legacy_echo');
    expect(textOf(await adapter.runTool('legacy_echo', { message: 'sse' }, runContext(5000)))).toBe('Echo: sse');
  });
});
