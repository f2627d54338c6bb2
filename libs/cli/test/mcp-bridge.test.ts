/**
 * `toolhub mcp` as a host launches it: the TypeScript SDK client spawns the CLI over stdio, and the
 * bridge carries the session to a running MCP door with TOOLHUB_TOKEN.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { repoRoot, waitFor } from '@toolhub/test-harness';
import { join } from 'node:path';

import { AGENT_KEY, type DoorStack, startDoorStack } from '../../mcp-door/test/support/door-stack';
import { countListChanged, runInteropScenario } from '../../mcp-door/test/support/interop';

describe('toolhub mcp (stdio bridge)', () => {
  let stack: DoorStack;
  let client: Client;

  beforeAll(async () => {
    stack = await startDoorStack();
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('searches, loads, calls typed, is refused a hidden tool and cancels a slow call, through stdio', async () => {
    client = new Client({ name: 'stdio-host', version: '1.0.0' });
    const changes = countListChanged(client);
    const root = repoRoot(__dirname);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'libs/cli/src/bin.ts'), 'mcp', '--url', stack.door.address],
        env: { PATH: process.env.PATH ?? '', TOOLHUB_TOKEN: AGENT_KEY },
        stderr: 'inherit',
      }),
    );
    await runInteropScenario(client, changes, stack);
  }, 120_000);

  it('carries MCP tasks (async runs): a task polled to its result, another cancelled at the adapter, through stdio', async () => {
    const tasks = await startDoorStack({ taskPollIntervalMs: 200 }, true, {}, true);
    const host = new Client({ name: 'stdio-host', version: '1.0.0' });
    const root = repoRoot(__dirname);
    try {
      await host.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'libs/cli/src/bin.ts'), 'mcp', '--url', tasks.door.address],
          env: { PATH: process.env.PATH ?? '', TOOLHUB_TOKEN: AGENT_KEY },
          stderr: 'inherit',
        }),
      );
      expect(host.getServerCapabilities()?.tasks?.requests?.tools?.call).toEqual({});
      const seen: string[] = [];
      let text = '';
      for await (const m of host.experimental.tasks.callToolStream({ name: 'tool_run', arguments: { name: 'local:echo_text', arguments: { text: 'over stdio' } } }, CallToolResultSchema, { task: {} })) {
        seen.push(m.type);
        if (m.type === 'result') text = (m.result.content as Array<{ text?: string }>).map((b) => b.text ?? '').join('');
        if (m.type === 'error') throw m.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      expect(text).toBe('over stdio');
      const { task } = await host.request({ method: 'tools/call', params: { name: 'tool_run', arguments: { name: 'local:slow_wait', arguments: {} }, task: {} } }, CreateTaskResultSchema);
      await waitFor(() => tasks.slow.signal !== undefined, { message: 'slow_wait to start at the adapter' });
      expect((await host.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
      await waitFor(() => tasks.slow.signal?.aborted, { message: 'the adapter to be told to stop' });
    } finally {
      await host.close();
      await tasks.close();
    }
  }, 120_000);

  it('answers a request with a clear error when the hub is not reachable', async () => {
    const lonely = new Client({ name: 'stdio-host', version: '1.0.0' });
    const root = repoRoot(__dirname);
    const connecting = lonely.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'libs/cli/src/bin.ts'), 'mcp', '--url', 'http://127.0.0.1:9/mcp'],
        env: { PATH: process.env.PATH ?? '' },
        stderr: 'ignore',
      }),
    );
    await expect(connecting).rejects.toThrow(/unreachable or refused/);
    await lonely.close();
  }, 60_000);
});
