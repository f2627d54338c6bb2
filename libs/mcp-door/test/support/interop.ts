/**
 * The interop scenario every real client runs against the door: search, load a tool (list_changed),
 * call it typed, call a hidden tool (refused), cancel a slow call (the adapter sees the abort).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '@toolhub/test-harness';

import type { DoorStack } from './door-stack';

type TextBlock = { text?: string };
export const textOf = (r: object) => ((r as { content?: TextBlock[] }).content ?? []).map((b) => b.text ?? '').join('\n');

/** Counts list_changed notifications on `client` (call before connect). */
export function countListChanged(client: Client): () => number {
  let n = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    n++;
  });
  return () => n;
}

export async function runInteropScenario(client: Client, changes: () => number, stack: DoorStack): Promise<void> {
  const found = await waitFor(async () => {
    const r = textOf(await client.callTool({ name: 'tool_search', arguments: { queries: ['add two numbers'] } }));
    return r.includes('local:add_numbers') ? r : undefined;
  });
  expect(found).toContain('local:add_numbers');
  const seen = changes();
  await client.callTool({ name: 'tool_info', arguments: { name: 'local:add_numbers' } });
  await waitFor(() => changes() > seen);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('local__add_numbers');
  const typed = await client.callTool({ name: 'local__add_numbers', arguments: { a: 20, b: 22 } });
  expect(typed.structuredContent).toEqual({ sum: 42 });
  const hidden = await client.callTool({ name: 'tool_run', arguments: { name: 'local:launch_codes', arguments: {} } });
  expect(hidden.isError).toBe(true);
  expect(textOf(hidden)).toMatch(/^error not_found/);
  const abort = new AbortController();
  const runs = stack.slow.runs;
  const slow = client.callTool({ name: 'tool_run', arguments: { name: 'local:slow_wait', arguments: {} } }, undefined, { signal: abort.signal, timeout: 120_000 });
  await waitFor(() => stack.slow.runs > runs);
  abort.abort('stop');
  await expect(slow).rejects.toThrow();
  await waitFor(() => stack.slow.signal?.aborted);
}
