/**
 * The door through the official TypeScript SDK's `SSEClientTransport` (HTTP+SSE, 2024-11-05, what
 * older hosts speak), auth on: the interop scenario every client runs (search, load with
 * list_changed, typed call, hidden tool refused, slow call cancelled at the adapter), progress
 * notifications on the session's stream, and the metrics labelled by transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { registerMcpMetrics } from '@toolhub/mcp-door';
import { waitFor } from '@toolhub/test-harness';
import { Registry } from 'prom-client';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';
import { countListChanged, runInteropScenario, textOf } from './support/interop';

describe('the MCP door through the TypeScript SDK SSEClientTransport', () => {
  let stack: DoorStack;
  let client: Client;
  let changes: () => number;
  const metrics = new Registry();

  beforeAll(async () => {
    stack = await startDoorStack();
    registerMcpMetrics(metrics, stack.door);
    client = new Client({ name: 'sse-test', version: '1.0.0' });
    changes = countListChanged(client);
    await client.connect(new SSEClientTransport(new URL(stack.door.sseAddress), { requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } } }));
  });

  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('is refused without credentials', async () => {
    const anon = new Client({ name: 'sse-anon', version: '1.0.0' });
    await expect(anon.connect(new SSEClientTransport(new URL(stack.door.sseAddress)))).rejects.toThrow(/401/);
  });

  it('searches, loads a tool (list_changed), calls it typed, is refused a hidden tool and cancels a slow call at the adapter', async () => {
    await runInteropScenario(client, changes, stack);
  });

  it('sends a call\'s progress on the session stream before its result', async () => {
    const seen: Progress[] = [];
    const waiting: Array<() => void> = [];
    // The tool takes its next step only once the client has seen the last update: no timing involved.
    stack.slow.nextStep = () => new Promise<void>((resolve) => waiting.push(resolve));
    try {
      const result = await client.callTool({ name: 'tool_run', arguments: { provider: 'local', name: 'progress_steps', arguments: {} } }, undefined, {
        onprogress: (p) => {
          seen.push(p);
          waiting.shift()?.();
        },
        timeout: 60_000,
      });
      expect(textOf(result)).toBe('three steps, watched');
      expect(seen.map((p) => [p.progress, p.message])).toEqual([
        [1, 'step 1 of 3'],
        [2, 'step 2 of 3'],
        [3, 'step 3 of 3'],
      ]);
    } finally {
      stack.slow.nextStep = undefined;
    }
  });

  it('counts its requests and sessions under transport="sse"', async () => {
    const text = await metrics.metrics();
    expect(text).toMatch(/toolhub_mcp_requests_total\{method="GET",outcome="ok",transport="sse"\} [1-9]/);
    expect(text).toMatch(/toolhub_mcp_requests_total\{method="tools\/call",outcome="ok",transport="sse"\} [1-9]/);
    expect(text).toMatch(/toolhub_mcp_sessions_open\{transport="sse"\} [1-9]/);
  });

  it('ends the session at the door when the client closes', async () => {
    const other = new Client({ name: 'sse-close', version: '1.0.0' });
    await other.connect(new SSEClientTransport(new URL(stack.door.sseAddress), { requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } } }));
    const open = stack.door.sessionsByTransport().sse;
    await other.close();
    await waitFor(() => stack.door.sessionsByTransport().sse === open - 1);
  });
});
