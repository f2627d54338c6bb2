/**
 * Progress on the MCP door, through the official TypeScript SDK client over Streamable HTTP: a
 * `tools/call` with a progressToken (the client's `onprogress`) gets the tool's progress as
 * notifications/progress and its log lines as notifications/message, then the result — for
 * tool_run and for a typed call on a loaded tool. A call without a token asks for none.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '@toolhub/test-harness';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';

type TextBlock = { type: string; text?: string };
const textOf = (r: object) => (((r as { content?: TextBlock[] }).content) ?? []).map((b) => b.text ?? '').join('\n');

describe('progress on the MCP door', () => {
  let stack: DoorStack;
  let client: Client;
  const logs: string[] = [];

  beforeAll(async () => {
    stack = await startDoorStack();
    client = new Client({ name: 'progress-test', version: '1.0.0' });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
    await client.connect(new StreamableHTTPClientTransport(new URL(stack.door.address), { requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } } }));
  });

  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  /**
   * Calls progress_steps with `onprogress`; the tool takes its next step only once the client has
   * seen the previous update, so every update is observed before the result without any timing.
   */
  async function watchedCall(name: string, args: Record<string, unknown>): Promise<{ result: object; seen: Progress[] }> {
    const seen: Progress[] = [];
    const waiting: Array<() => void> = [];
    stack.slow.nextStep = () => new Promise<void>((resolve) => waiting.push(resolve));
    const result = client.callTool({ name, arguments: args }, undefined, {
      onprogress: (p) => {
        seen.push(p);
        waiting.shift()?.();
      },
      timeout: 60_000,
    });
    return { result: await result, seen };
  }

  it('tool_run: notifications/progress for each step, log lines as notifications/message, then the result', async () => {
    logs.splice(0);
    const { result, seen } = await watchedCall('tool_run', { provider: 'local', name: 'progress_steps', arguments: {} });
    expect(textOf(result)).toBe('three steps, watched');
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'step 1 of 3' },
      { progress: 2, total: 3, message: 'step 2 of 3' },
      { progress: 3, total: 3, message: 'step 3 of 3' },
    ]);
    // Log lines between two updates travel together (coalesced), newline-separated.
    await waitFor(() => logs.join('\n').includes('finished step 3'));
    expect(logs.join('\n')).toBe('finished step 1\nfinished step 2\nfinished step 3');
  });

  it('a typed call on a loaded tool gets its progress the same way', async () => {
    await waitFor(async () => !(await client.callTool({ name: 'tool_info', arguments: { name: 'local:progress_steps' } })).isError);
    const { result, seen } = await watchedCall('local__progress_steps', {});
    expect(textOf(result)).toBe('three steps, watched');
    expect(seen.map((p) => p.progress)).toEqual([1, 2, 3]);
  });

  it('a call without a progressToken runs without progress: the tool is not asked for any', async () => {
    stack.slow.nextStep = undefined;
    const res = await client.callTool({ name: 'tool_run', arguments: { provider: 'local', name: 'progress_steps', arguments: {} } });
    expect(textOf(res)).toBe('three steps');
  });
});
