/**
 * The MCP door through the official TypeScript SDK client over Streamable HTTP: the meta-tools as
 * agent-kit renders them, progressive loading with list_changed, typed calls, grants, repairs,
 * structured output, the gRPC door's error texts, idempotency keys and cancellation at the adapter.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { META_TOOLS, renderTools, ToolCallExecutor, ToolHubAgentClient } from '@toolhub/agent-kit';
import { decodeToolCalledMessage, TOOL_CALLED_FILTERS, type ToolCalled } from '@toolhub/contracts';
import { META_IDEMPOTENCY_KEY } from '@toolhub/mcp-door';
import { waitFor } from '@toolhub/test-harness';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';

type TextBlock = { type: string; text?: string };
const textOf = (r: object) => (((r as { content?: TextBlock[] }).content) ?? []).map((b) => b.text ?? '').join('\n');

async function connect(url: string, key = AGENT_KEY): Promise<{ client: Client; changes: () => number }> {
  const client = new Client({ name: 'door-test', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return { client, changes: () => changes };
}

describe('the MCP door through the TypeScript SDK client', () => {
  let stack: DoorStack;
  let client: Client;
  let changes: () => number;

  beforeAll(async () => {
    stack = await startDoorStack();
    ({ client, changes } = await connect(stack.door.address));
    // The registry indexes the adapter's catalog moments after it announced it.
    await waitFor(async () => textOf(await client.callTool({ name: 'tool_search', arguments: { queries: ['echo text'] } })).includes('local:echo_text'));
  });

  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('lists the four meta-tools exactly as agent-kit renders them, byte for byte', async () => {
    const res = await fetch(stack.door.address, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT_KEY}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': client.transport!.sessionId!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'raw-1', method: 'tools/list' }),
    });
    // An answer with nothing before it comes as one JSON body (the door's transport answers SSE only when a notification comes first).
    expect(res.headers.get('content-type')).toBe('application/json');
    const data = await res.text();
    const tools = (JSON.parse(data) as { result: { tools: unknown[] } }).result.tools;
    expect(JSON.stringify(tools.slice(0, 4))).toBe(renderTools(META_TOOLS, 'mcp').json);
  });

  it('searches, loads a tool with tool_info (list_changed), and calls it typed by its listed name', async () => {
    const found = await client.callTool({ name: 'tool_search', arguments: { queries: ['echo text'] } });
    expect(textOf(found)).toContain('local:echo_text');
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).not.toContain('local__echo_text');
    const seen = changes();
    const info = await client.callTool({ name: 'tool_info', arguments: { name: 'local:echo_text' } });
    expect(textOf(info)).toContain('call: local__echo_text directly');
    await waitFor(() => changes() > seen);
    const listed = (await client.listTools()).tools.find((t) => t.name === 'local__echo_text');
    expect(listed?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    const ran = await client.callTool({ name: 'local__echo_text', arguments: { text: 'hello door' } });
    expect(ran.isError).toBeFalsy();
    expect(textOf(ran)).toBe('hello door');
  });

  it('keeps tool_run working for hosts that ignore list_changed', async () => {
    const ran = await client.callTool({ name: 'tool_run', arguments: { provider: 'local', name: 'echo_text', arguments: { text: 'via tool_run' } } });
    expect(textOf(ran)).toBe('via tool_run');
  });

  it('passes structured output through as structuredContent and reports argument repairs', async () => {
    const ran = await client.callTool({ name: 'tool_run', arguments: { name: 'local:add_numbers', arguments: { a: '2', b: 3 } } });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toEqual({ sum: 5 });
    expect(textOf(ran)).toMatch(/note: argument .*a.* was repaired/);
  });

  it("lists a loaded tool's outputSchema and answers its typed calls with structuredContent the client checks against it", async () => {
    await client.callTool({ name: 'tool_info', arguments: { name: 'local:add_numbers' } });
    const listed = await waitFor(async () => (await client.listTools()).tools.find((t) => t.name === 'local__add_numbers'));
    expect(listed.outputSchema).toEqual({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] });
    // The SDK client validates structuredContent against the listed outputSchema (and throws when it does not match).
    const ran = await client.callTool({ name: 'local__add_numbers', arguments: { a: 4, b: 5 } });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toEqual({ sum: 9 });
    // Tools that declare none list none.
    const echo = (await client.listTools()).tools.find((t) => t.name === 'local__echo_text');
    expect(echo && 'outputSchema' in echo).toBe(false);
  });

  it('hides a tool the grants deny: not searchable, not listable, refused on call', async () => {
    const found = await client.callTool({ name: 'tool_search', arguments: { queries: ['launch codes'] } });
    expect(textOf(found)).not.toContain('launch_codes');
    const listed = await client.callTool({ name: 'tool_list', arguments: { provider: 'local', recursive: true } });
    expect(textOf(listed)).not.toContain('launch_codes');
    const direct = await client.callTool({ name: 'local__launch_codes', arguments: {} });
    expect(direct.isError).toBe(true);
    expect(textOf(direct)).toMatch(/^error not_found/);
    expect(textOf(direct)).not.toContain('0000');
    const info = await client.callTool({ name: 'tool_info', arguments: { name: 'local:launch_codes' } });
    expect(info.isError).toBe(true);
  });

  it('answers failures as isError results with the same text the gRPC door gives agent-kit', async () => {
    const grpc = await ToolHubAgentClient.connect(stack.running.grpc.address, { token: AGENT_KEY });
    try {
      const executor = new ToolCallExecutor(grpc, { rememberSearches: false });
      for (const call of [
        { name: 'tool_run', arguments: { provider: 'local', name: 'echo_txt', arguments: { text: 'x' } } },
        { name: 'tool_run', arguments: { provider: 'local', name: 'echo_text', arguments: { nope: 1 } } },
        { name: 'tool_run', arguments: { provider: 'local', name: 'always_fails', arguments: { text: 'x' } } },
        { name: 'tool_info', arguments: { provider: 'nowhere', name: 'x' } },
      ]) {
        const viaGrpc = await executor.execute(call);
        const viaMcp = await client.callTool(call);
        expect(viaGrpc.isError).toBe(true);
        expect(viaMcp.isError).toBe(true);
        expect(textOf(viaMcp)).toBe(viaGrpc.content);
      }
    } finally {
      grpc.close();
    }
  });

  it('records tool.called events with the MCP principal as caller and honours idempotency keys', async () => {
    const events: ToolCalled[] = [];
    const consumer = await stack.bus.consumeEvents({
      durable: 'mcp-door-test',
      filterSubjects: [...TOOL_CALLED_FILTERS],
      handler: async (batch) => {
        events.push(...batch.flatMap((m) => decodeToolCalledMessage(m.subject, m.data)));
      },
    });
    try {
      const call = { name: 'tool_run', arguments: { provider: 'local', name: 'count_calls', arguments: {} }, _meta: { [META_IDEMPOTENCY_KEY]: 'key-1' } };
      const first = await client.callTool(call);
      const second = await client.callTool(call);
      const third = await client.callTool({ ...call, _meta: { [META_IDEMPOTENCY_KEY]: 'key-2' } });
      expect(textOf(second)).toBe(textOf(first));
      expect(Number(textOf(third))).toBe(Number(textOf(first)) + 1);
      const ev = await waitFor(() => events.find((e) => e.toolId === 'local:count_calls' && e.caller.startsWith('key:agent-a/mcp:door-test')));
      expect(ev.status).toBe('ok');
    } finally {
      await consumer.close();
    }
  });

  it('cancels a slow call at the adapter when the client cancels (notifications/cancelled)', async () => {
    const abort = new AbortController();
    const pending = client.callTool({ name: 'tool_run', arguments: { provider: 'local', name: 'slow_wait', arguments: {} } }, undefined, { signal: abort.signal, timeout: 120_000 });
    const runs = stack.slow.runs;
    await waitFor(() => stack.slow.runs > runs && stack.slow.signal);
    abort.abort('the user pressed stop');
    await expect(pending).rejects.toThrow();
    await waitFor(() => stack.slow.signal?.aborted);
  });
});
