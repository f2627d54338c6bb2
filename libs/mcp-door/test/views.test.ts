/**
 * The views and the ops side: the flat view (every visible tool as provider__name, hidden ones
 * absent), the token budget of looked-up tools (least recently used released, list_changed), and
 * the metrics on an ops registry.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerMcpMetrics } from '@toolhub/mcp-door';
import { waitFor } from '@toolhub/test-harness';
import { Registry } from 'prom-client';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';
import { countListChanged, textOf } from './support/interop';

async function connect(url: string) {
  const client = new Client({ name: 'views-test', version: '1.0.0' });
  const changes = countListChanged(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } } }));
  return { client, changes };
}

describe('the flat view', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    stack = await startDoorStack({ view: 'flat' });
  });
  afterAll(() => stack?.close());

  it('lists the meta-tools and every tool the principal may see as provider__name, and runs them typed', async () => {
    const { client } = await connect(stack.door.address);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.slice(0, 4)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search']);
      expect(names).toEqual(expect.arrayContaining(['local__echo_text', 'local__add_numbers', 'local__slow_wait']));
      expect(names).not.toContain('local__launch_codes');
      expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
      expect(textOf(await client.callTool({ name: 'local__echo_text', arguments: { text: 'flat' } }))).toBe('flat');
    } finally {
      await client.close();
    }
  });
});

describe('the token budget of looked-up tools, and metrics', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    // echo_text, count_calls and slow_wait render to 42, 34 and 32 tokens (bytes / 4): room for two of them.
    stack = await startDoorStack({ loadedTokenBudget: 80 });
  });
  afterAll(() => stack?.close());

  it('releases the least recently used tool when a look-up goes over the budget, and says so with list_changed', async () => {
    const { client, changes } = await connect(stack.door.address);
    try {
      const discovered = async () => (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('local__'));
      await client.callTool({ name: 'tool_info', arguments: { name: 'local:echo_text' } });
      await client.callTool({ name: 'tool_info', arguments: { name: 'local:count_calls' } });
      expect(await discovered()).toEqual(['local__echo_text', 'local__count_calls']);
      // echo_text used again: count_calls is now the least recently used.
      await client.callTool({ name: 'local__echo_text', arguments: { text: 'x' } });
      const seen = changes();
      await client.callTool({ name: 'tool_info', arguments: { name: 'local:slow_wait' } });
      await waitFor(() => changes() > seen);
      const now = await discovered();
      expect(now).toContain('local__slow_wait');
      expect(now).not.toContain('local__count_calls');
      // A released tool still runs by its name (the model may call it from history).
      expect(textOf(await client.callTool({ name: 'local__count_calls', arguments: {} }))).toMatch(/^\d+$/);

      const registry = new Registry();
      registerMcpMetrics(registry, stack.door);
      const text = await registry.metrics();
      expect(text).toMatch(/toolhub_mcp_sessions_open\{transport="streamable-http"\} [1-9]/);
      expect(text).toMatch(/toolhub_mcp_sessions_open\{transport="sse"\} 0/);
      expect(text).toMatch(/toolhub_mcp_requests_total\{method="tools\/list",outcome="ok"\} \d+|toolhub_mcp_loaded_tools \d+/);
      expect(text).toMatch(/toolhub_mcp_loaded_tools [1-9]/);
    } finally {
      await client.close();
    }
  });
});

describe('admission shared with the gRPC door', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    stack = await startDoorStack();
  });
  afterAll(() => stack?.close());

  it('counts an MCP run in the same admission gate as gRPC runs, and frees its slot when the MCP client cancels', async () => {
    const { ToolHubAgentClient } = await import('@toolhub/agent-kit');
    const grpc = await ToolHubAgentClient.connect(stack.running.grpc.address, { token: AGENT_KEY });
    const { client } = await connect(stack.door.address);
    const gate = stack.running.dispatcher.admission;
    try {
      const viaGrpc = new AbortController();
      const viaMcp = new AbortController();
      const runs = stack.slow.runs;
      const holding = grpc.runTool({ provider: 'local', name: 'slow_wait', arguments: {} }, { signal: viaGrpc.signal }).catch(() => undefined);
      await waitFor(() => stack.slow.runs > runs);
      const slow = client.callTool({ name: 'tool_run', arguments: { name: 'local:slow_wait', arguments: {} } }, undefined, { signal: viaMcp.signal, timeout: 120_000 }).catch(() => undefined);
      await waitFor(() => stack.slow.runs > runs + 1);
      expect(gate.running).toBe(2);
      viaMcp.abort();
      await slow;
      await waitFor(() => gate.running === 1);
      viaGrpc.abort();
      await holding;
      await waitFor(() => gate.running === 0);
    } finally {
      await client.close();
      grpc.close();
    }
  });
});

describe('the preload set in the default view', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    stack = await startDoorStack();
    const list = await stack.registry.getPreloadList();
    await stack.registry.setPreloadList(['local:echo_text', 'local:launch_codes'], list.revision, 'test', 'preload for the MCP door test');
    // The registry lists a preloaded tool once the adapter's catalog reached it.
    await waitFor(async () => (await stack.registry.preloadSet({ format: 0 } as never)).tools.some((t) => t.id === 'local:echo_text'));
  });
  afterAll(() => stack?.close());

  it('lists the preloaded tools the principal may see right after the meta-tools, callable typed', async () => {
    const { client } = await connect(stack.door.address);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.slice(0, 5)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search', 'local__echo_text']);
      // Hidden by the grants: never in the list, even when preloaded.
      expect(names).not.toContain('local__launch_codes');
      expect(textOf(await client.callTool({ name: 'local__echo_text', arguments: { text: 'preloaded' } }))).toBe('preloaded');
    } finally {
      await client.close();
    }
  });
});
