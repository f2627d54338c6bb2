/**
 * The MCP door's HTTP+SSE transport (2024-11-05, what older MCP hosts speak) end to end, auth on:
 * the dispatcher app in its own process with API keys, adapter-mcp running the real
 * `@modelcontextprotocol/server-everything` from npm over stdio, NATS between them. Driven by the
 * TypeScript SDK's `SSEClientTransport` (load a tool, list_changed, typed call, the upstream
 * server's progress passed through, a cancelled call) and the Python `mcp` client's `sse_client`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { type Progress, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey } from '@toolhub/auth';
import { natsUrl, scratchDir, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { mcpPython, runInterop } from '../../libs/mcp-door/test/support/python-interop';
import { startApp, startDispatcherProcess } from './support/stack';

jest.setTimeout(120_000);

const KEY = 'sse-e2e-agent-key-0123456789abcdef';

type TextBlock = { type: string; text?: string };
const textOf = (r: object) => (((r as { content?: TextBlock[] }).content) ?? []).map((b) => b.text ?? '').join('\n');

describe('an older MCP host over HTTP+SSE → dispatcher MCP door → NATS → adapter-mcp → server-everything', () => {
  let adapter: SpawnedProcess;
  let dispatcher: SpawnedProcess;
  let sseUrl = '';
  let client: Client;
  let changes = 0;

  beforeAll(async () => {
    const dir = scratchDir('mcp-sse-e2e');
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ name: 'sse-agent', sha256: hashApiKey(KEY), roles: ['agent'] }] }));
    const nats = await natsUrl();
    // The default MCP configuration: server-everything over stdio, mounted as mcp:everything_*.
    adapter = await startApp('adapter-mcp', { NATS_URL: nats }, /adapter-mcp ready/, 90_000);
    const d = await startDispatcherProcess(nats, { TOOLHUB_AUTH_API_KEYS: join(dir, 'keys.json'), TOOLHUB_CONSOLE_PORT: '0' });
    dispatcher = d.proc;
    const sseLine = /HTTP\+SSE \(older hosts\) at (http:\/\/\S+\/sse)/;
    sseUrl = (await waitFor(() => sseLine.exec(dispatcher.output())?.[1], { timeoutMs: 30_000, message: 'the MCP door to log its addresses' }))!;
    client = new Client({ name: 'e2e-mcp-sse', version: '1.0.0' });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    await client.connect(new SSEClientTransport(new URL(sseUrl), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
    // The dispatcher learns the provider from the adapter's heartbeat.
    await waitFor(async () => !(await client.callTool({ name: 'tool_info', arguments: { name: 'mcp:everything_echo' } })).isError, { timeoutMs: 60_000, message: 'the dispatcher to see mcp:everything_echo' });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await dispatcher?.kill('SIGTERM');
    await adapter?.kill('SIGTERM');
  });

  it('refuses a host without credentials with 401 and the protected-resource challenge', async () => {
    const res = await fetch(sseUrl, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
  });

  it('lists the loaded tool after list_changed and calls it typed on the real server', async () => {
    // beforeAll's tool_info loaded it: the session was told its list changed.
    await waitFor(() => changes > 0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('mcp__everything_echo');
    const echo = await client.callTool({ name: 'mcp__everything_echo', arguments: { message: 'hello over HTTP+SSE' } });
    expect(textOf(echo)).toBe('Echo: hello over HTTP+SSE');
  });

  it("passes the upstream server's progress notifications through on the session stream, then the result", async () => {
    const seen: Progress[] = [];
    const res = await client.callTool({ name: 'tool_run', arguments: { name: 'mcp:everything_trigger_long_running_operation', arguments: { duration: 0.6, steps: 3 } } }, undefined, {
      onprogress: (p) => void seen.push(p),
      timeout: 60_000,
    });
    expect(textOf(res)).toMatch(/Long running operation completed/);
    // Steps 200 ms apart; on a loaded machine two may be coalesced (newest wins), and the last step
    // can race the result inside adapter-mcp (the upstream SDK client dispatches a notification a
    // microtask after it reads it, a response at once, and drops progress of a request already answered):
    // updates of 3 steps, increasing, before the result.
    const values = seen.map((p) => p.progress);
    expect(values.length).toBeGreaterThan(0);
    expect(seen.every((p) => p.total === 3 && p.progress >= 1 && p.progress <= 3)).toBe(true);
    expect(new Set(values).size).toBe(values.length);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
  });

  it('cancels a call the host abandons, and the session keeps working', async () => {
    const abort = new AbortController();
    let firstProgress: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (firstProgress = resolve));
    const slow = client.callTool({ name: 'tool_run', arguments: { name: 'mcp:everything_trigger_long_running_operation', arguments: { duration: 30, steps: 30 } } }, undefined, {
      signal: abort.signal,
      onprogress: () => firstProgress(),
      timeout: 120_000,
    });
    await started;
    abort.abort('host gave up');
    await expect(slow).rejects.toThrow();
    expect(textOf(await client.callTool({ name: 'mcp__everything_echo', arguments: { message: 'still here' } }))).toBe('Echo: still here');
  });

  it('serves the Python mcp client over sse_client: load, list_changed, typed call', async () => {
    const { code, out } = await runInterop(mcpPython(), 'sse_interop.py', { DOOR_SSE_URL: sseUrl, DOOR_KEY: KEY, TOOL_ID: 'mcp:everything_echo' });
    expect({ code, out }).toMatchObject({ code: 0 });
    expect(out).toContain('ok: typed call echoes the message');
    expect(out).toContain('DONE');
  }, 320_000);
});
