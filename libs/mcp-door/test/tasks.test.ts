/**
 * MCP tasks on the door through the TypeScript SDK client's experimental tasks API, over
 * Streamable HTTP, with async runs on as in the one-process mode (the embedded run store is the
 * queue): a task-augmented call starts a run, tasks/get polls it, notifications report status and
 * progress, tasks/result answers what a synchronous call answers, tasks/cancel ends the work at the
 * adapter, and another principal sees nothing.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Task, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { META_TOOLS, renderTools } from '@toolhub/agent-kit';
import { META_IDEMPOTENCY_KEY } from '@toolhub/mcp-door';
import { waitFor } from '@toolhub/test-harness';

import { AGENT_B_KEY, AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';
import { rpcError } from './support/rpc-error';

type TextBlock = { type: string; text?: string };
const textOf = (r: object) => (((r as { content?: TextBlock[] }).content) ?? []).map((b) => b.text ?? '').join('\n');
/** A result without its _meta (tasks/result adds the related-task key). */
const bare = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== '_meta'));

async function connect(url: string, key = AGENT_KEY): Promise<{ client: Client; statuses: Task[] }> {
  const client = new Client({ name: 'tasks-test', version: '1.0.0' });
  const statuses: Task[] = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    statuses.push(n.params as Task);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return { client, statuses };
}

/** Starts a task-augmented tools/call; answers the created task. */
async function startTask(client: Client, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}): Promise<Task> {
  const res = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 }, _meta: meta } }, CreateTaskResultSchema);
  return res.task;
}

describe('MCP tasks over async runs (SDK client, Streamable HTTP)', () => {
  let stack: DoorStack;
  let client: Client;
  let statuses: Task[];

  beforeAll(async () => {
    stack = await startDoorStack({ taskPollIntervalMs: 200, taskListPageSize: 2 }, true, { maxArgumentDepth: 8 }, true);
    ({ client, statuses } = await connect(stack.door.address));
  });

  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('advertises tasks and marks tool_run and typed tools taskSupport optional; the meta-tools stay as agent-kit renders them', async () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    await client.callTool({ name: 'tool_info', arguments: { name: 'local:echo_text' } });
    const tools = (await client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('tool_run')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('local__echo_text')?.execution).toEqual({ taskSupport: 'optional' });
    for (const n of ['tool_list', 'tool_info', 'tool_search']) expect(byName.get(n)?.execution).toBeUndefined();
    // Byte for byte as on the wire (the SDK client re-orders keys): only tool_run gains `execution`.
    const res = await fetch(stack.door.address, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT_KEY}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': client.transport!.sessionId!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'raw-1', method: 'tools/list' }),
    });
    const raw = (JSON.parse(await res.text()) as { result: { tools: Array<Record<string, unknown>> } }).result.tools.slice(0, 4);
    const stripped = raw.map((t) => Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'execution')));
    expect(JSON.stringify(stripped)).toBe(renderTools(META_TOOLS, 'mcp').json);
  });

  it('a long tool as a task: created working, polled, status and progress notified, then its result', async () => {
    let release: (() => void) | undefined;
    stack.slow.nextStep = () => new Promise<void>((resolve) => (release = resolve));
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const messages: string[] = [];
    const stream = client.experimental.tasks.callToolStream({ name: 'tool_run', arguments: { name: 'local:progress_steps', arguments: {} } }, CallToolResultSchema, {
      task: { ttl: 60_000 },
      onprogress: (p) => progress.push(p),
      // The SDK polls tasks/get at the task's pollInterval; its per-request timeout does not bound the task.
      timeout: 60_000,
    });
    const seen: string[] = [];
    let result: Record<string, unknown> | undefined;
    let taskId = '';
    const consume = (async () => {
      for await (const m of stream) {
        seen.push(m.type === 'taskStatus' || m.type === 'taskCreated' ? `${m.type}:${m.task.status}` : m.type);
        if (m.type === 'taskCreated') taskId = m.task.taskId;
        if (m.type === 'result') result = m.result as Record<string, unknown>;
        if (m.type === 'error') messages.push(String(m.error));
      }
    })();
    for (let step = 1; step <= 3; step++) {
      await waitFor(() => progress.some((p) => p.progress === step), { message: `progress ${step} of the task` });
      // Still working while the tool waits on the test: polled through tasks/get.
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
      release!();
    }
    await consume;
    expect(messages).toEqual([]);
    expect(taskId).toMatch(/^run_/);
    expect(seen[0]).toBe('taskCreated:working');
    expect(seen).toContain('taskStatus:working');
    expect(seen.at(-2)).toBe('taskStatus:completed');
    expect(seen.at(-1)).toBe('result');
    expect(progress).toEqual(expect.arrayContaining([expect.objectContaining({ progress: 3, total: 3, message: 'step 3 of 3' })]));
    expect(textOf(result!)).toContain('three steps');
    expect(result!['_meta']).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    // notifications/tasks/status on the session's GET stream, ending with completed.
    await waitFor(() => statuses.some((s) => s.taskId === taskId && s.status === 'completed'), { message: 'the completed status notification' });
    stack.slow.nextStep = undefined;
  });

  it('tasks/result answers exactly what the synchronous call answers: structured output, a tool error, invalid arguments', async () => {
    await client.callTool({ name: 'tool_info', arguments: { name: 'local:add_numbers' } });
    const calls: Array<[string, Record<string, unknown>, Task['status']]> = [
      ['local__add_numbers', { a: 4, b: 5 }, 'completed'],
      ['tool_run', { name: 'local:always_fails', arguments: { text: 'x' } }, 'failed'],
      ['tool_run', { name: 'local:add_numbers', arguments: { a: 'four', b: 5 } }, 'failed'],
    ];
    for (const [name, args, status] of calls) {
      const sync = await client.callTool({ name, arguments: args });
      const task = await startTask(client, name, args);
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(bare(result)).toEqual(bare(sync));
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe(status);
    }
  });

  it('tasks/cancel ends the work at the adapter; the task is cancelled and cannot be cancelled again', async () => {
    const runsBefore = stack.slow.runs;
    const task = await startTask(client, 'tool_run', { name: 'local:slow_wait', arguments: {} });
    await waitFor(() => stack.slow.runs > runsBefore && stack.slow.signal !== undefined, { message: 'slow_wait to start at the adapter' });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    await waitFor(() => stack.slow.signal?.aborted, { message: 'the adapter to be told to stop' });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('cancelled');
    const again = await rpcError(client.experimental.tasks.cancelTask(task.taskId));
    expect(again.code).toBe(-32602);
    expect(again.message).toContain("terminal status 'cancelled'");
  });

  it("another principal's task answers as a missing one on get, result and cancel, and is not listed", async () => {
    const mine = await startTask(client, 'tool_run', { name: 'local:echo_text', arguments: { text: 'mine' } });
    const other = await connect(stack.door.address, AGENT_B_KEY);
    try {
      const missing = await rpcError(other.client.experimental.tasks.getTask('run_0000000000ffffffffffffffff'));
      for (const attempt of [other.client.experimental.tasks.getTask(mine.taskId), other.client.experimental.tasks.getTaskResult(mine.taskId, CallToolResultSchema), other.client.experimental.tasks.cancelTask(mine.taskId)]) {
        const err = await rpcError(attempt);
        expect(err.code).toBe(-32602);
        expect(err.message.replace(mine.taskId, 'ID')).toBe(missing.message.replace('run_0000000000ffffffffffffffff', 'ID'));
      }
      expect((await other.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    } finally {
      await other.client.close();
    }
    expect(textOf(await client.experimental.tasks.getTaskResult(mine.taskId, CallToolResultSchema))).toContain('mine');
  });

  it('tasks/list pages through the caller’s tasks, newest first, with an opaque cursor; a bad cursor is invalid params', async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.experimental.tasks.listTasks(cursor);
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      ids.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await rpcError(client.experimental.tasks.listTasks('not-a-cursor'))).code).toBe(-32602);
  });

  it('an idempotency key starts one run: the same task again', async () => {
    const meta = { [META_IDEMPOTENCY_KEY]: 'tasks-test-once' };
    const first = await startTask(client, 'tool_run', { name: 'local:count_calls', arguments: {} }, meta);
    const second = await startTask(client, 'tool_run', { name: 'local:count_calls', arguments: {} }, meta);
    expect(second.taskId).toBe(first.taskId);
  });

  it('refuses tasks for the other meta-tools (method not found), hidden tools and unknown names, with texts to act on', async () => {
    const meta = await rpcError(startTask(client, 'tool_search', { queries: ['echo'] }));
    expect(meta.code).toBe(-32601);
    expect(meta.message).toContain('cannot run as a task');
    const hidden = await rpcError(startTask(client, 'tool_run', { name: 'local:launch_codes', arguments: {} }));
    expect(hidden.code).toBe(-32602);
    const syncHidden = await client.callTool({ name: 'tool_run', arguments: { name: 'local:launch_codes', arguments: {} } });
    expect(hidden.message).toContain(textOf(syncHidden));
    const unknown = await rpcError(startTask(client, 'local__no_such_tool', {}));
    expect(unknown.message).toContain('tool_search');
  });

  it('applies the argument limits before a run is queued: too deep is refused with the text a sync call gives', async () => {
    let deep: Record<string, unknown> = { text: 'bottom' };
    for (let i = 0; i < 12; i++) deep = { nested: deep };
    const args = { name: 'local:echo_text', arguments: { text: 'x', extra: deep } };
    const sync = await client.callTool({ name: 'tool_run', arguments: args });
    expect(sync.isError).toBe(true);
    const before = (await client.experimental.tasks.listTasks()).tasks[0]?.taskId;
    const refused = await rpcError(startTask(client, 'tool_run', args));
    expect(refused.code).toBe(-32602);
    expect(refused.message).toContain(textOf(sync));
    // Nothing was queued.
    expect((await client.experimental.tasks.listTasks()).tasks[0]?.taskId).toBe(before);
  });

  it('a call without task still answers at once, unchanged', async () => {
    const res = await client.callTool({ name: 'tool_run', arguments: { name: 'local:echo_text', arguments: { text: 'plain' } } });
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toBe('plain');
    expect(res['task']).toBeUndefined();
  });

  it('follows each task only while its run lives: the door-wide follower count returns to 0', async () => {
    expect(stack.door.taskWatchers.max).toBe(512);
    await waitFor(() => stack.door.taskWatchers.active === 0, { message: 'every follower to end with its run' });
  });
});

describe('MCP tasks, stateless and off', () => {
  it('stateless: a task started in one request is polled and fetched in the next ones', async () => {
    const stack = await startDoorStack({ stateless: true, taskPollIntervalMs: 200 }, true, {}, true);
    const { client } = await connect(stack.door.address);
    try {
      const task = await startTask(client, 'tool_run', { name: 'local:echo_text', arguments: { text: 'stateless' } });
      await waitFor(async () => (await client.experimental.tasks.getTask(task.taskId)).status === 'completed', { message: 'the task to complete' });
      expect(textOf(await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toBe('stateless');
    } finally {
      await client.close();
      await stack.close();
    }
  });

  it('past the follower cap a task sends no notifications but is still polled to its result', async () => {
    const stack = await startDoorStack({ taskPollIntervalMs: 200, maxTaskWatchersTotal: 0 }, true, {}, true);
    const { client, statuses } = await connect(stack.door.address);
    try {
      const task = await startTask(client, 'tool_run', { name: 'local:echo_text', arguments: { text: 'unwatched' } });
      await waitFor(async () => (await client.experimental.tasks.getTask(task.taskId)).status === 'completed', { message: 'the task to complete' });
      expect(textOf(await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toBe('unwatched');
      expect(stack.door.taskWatchers.active).toBe(0);
      expect(statuses).toEqual([]);
    } finally {
      await client.close();
      await stack.close();
    }
  });

  it('without async runs the door offers no tasks capability and no taskSupport', async () => {
    const stack = await startDoorStack();
    const { client } = await connect(stack.door.address);
    try {
      expect(client.getServerCapabilities()?.tasks).toBeUndefined();
      expect((await client.listTools()).tools.find((t) => t.name === 'tool_run')?.execution).toBeUndefined();
      // The spec: without the capability, a task-augmented request is processed normally, `task` ignored.
      const plain = await client.request({ method: 'tools/call', params: { name: 'tool_run', arguments: { name: 'local:echo_text', arguments: { text: 'no tasks here' } }, task: {} } }, CallToolResultSchema);
      expect(textOf(plain)).toBe('no tasks here');
    } finally {
      await client.close();
      await stack.close();
    }
  });
});
