/**
 * MCP tasks on the multi-process dispatcher: the dispatcher app in its own process with async runs
 * on real MongoDB (FerretDB locally; records in a database of this test) and the JetStream work
 * queue on real NATS, its MCP door on a free port, API keys for two principals, and a test adapter
 * on the bus whose `sleep` tool reports progress, sleeps and honours its abort signal. Driven by the
 * MCP TypeScript SDK client's experimental tasks API over Streamable HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type AdapterService, serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { hashApiKey } from '@toolhub/auth';
import { NatsBus } from '@toolhub/bus';
import { mongoUrl, natsUrl, scratchDir, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { rpcError } from '../../libs/mcp-door/test/support/rpc-error';
import { startDispatcherProcess } from './support/stack';

jest.setTimeout(120_000);

const PROVIDER = `mcptasks${randomUUID().replace(/-/g, '').slice(0, 8)}`;
const DB = `e2e_mcp_tasks_${randomUUID().slice(0, 8)}`;
const ALICE = 'alice-mcp-key-0123456789abcdef';
const BOB = 'bob-mcp-key-0123456789abcdef01';

type TextBlock = { type: string; text?: string };
const textOf = (r: object) => (((r as { content?: TextBlock[] }).content) ?? []).map((b) => b.text ?? '').join('\n');

/** What the adapter saw, per label: start, end, aborted (in order). */
const seen: string[] = [];

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'e2e-mcp-tasks', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

describe('MCP tasks on the dispatcher app: async runs in MongoDB, queued on JetStream', () => {
  let bus: NatsBus;
  let adapter: AdapterService;
  let dispatcher: SpawnedProcess;
  let door = '';
  let alice: Client;
  const dir = scratchDir('mcp-tasks-e2e');
  const run = (label: string, ms: number) => ({ name: 'tool_run', arguments: { name: `${PROVIDER}:sleep`, arguments: { label, ms } } });

  beforeAll(async () => {
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ name: 'alice', sha256: hashApiKey(ALICE), roles: ['agent'] }, { name: 'bob', sha256: hashApiKey(BOB), roles: ['agent'] }] }));
    const nats = await natsUrl();
    bus = await NatsBus.connect({ servers: nats, name: 'e2e-mcp-tasks' });
    adapter = await serveAdapter(bus, {
      provider: PROVIDER,
      ...staticCatalog(PROVIDER, [
        {
          name: 'sleep',
          path: 'test',
          description: 'Reports progress, sleeps `ms`, then answers {label}.',
          inputSchema: { type: 'object', properties: { label: { type: 'string' }, ms: { type: 'number' } }, required: ['label', 'ms'] },
          run: async (a: { label: string; ms: number }, ctx) => {
            seen.push(`start:${a.label}`);
            ctx.progress?.({ progress: 1, total: 2, message: `sleeping ${a.label}` });
            try {
              await sleep(a.ms, undefined, { signal: ctx.signal });
            } catch (err) {
              seen.push(`aborted:${a.label}`);
              throw err;
            }
            seen.push(`end:${a.label}`);
            return { content: [{ text: `slept ${a.label}` }] };
          },
        },
      ]),
    });
    const d = await startDispatcherProcess(nats, {
      MONGO_URL: await mongoUrl(),
      TOOLHUB_MONGO_DB: DB,
      TOOLHUB_AUTH_API_KEYS: join(dir, 'keys.json'),
      TOOLHUB_CONSOLE_PORT: '0',
    });
    dispatcher = d.proc;
    // Tasks are offered to sessions opened once async runs are on (the runs database answered).
    await waitFor(() => /"instance":"[0-9a-f]+"/.test(dispatcher.output()), { timeoutMs: 30_000, message: 'the dispatcher to turn async runs on' });
    door = /MCP door listening on (http:\/\/\S+\/mcp)/.exec(dispatcher.output())![1]!;
    alice = await connect(door, ALICE);
    await waitFor(async () => !(await alice.callTool({ name: 'tool_info', arguments: { name: `${PROVIDER}:sleep` } })).isError, { timeoutMs: 30_000, message: 'the dispatcher to see the test provider' });
  }, 120_000);

  afterAll(async () => {
    await alice?.close();
    await dispatcher?.kill('SIGTERM');
    await adapter?.close();
    await bus?.close();
    const mongo = new MongoClient(await mongoUrl(), { serverSelectionTimeoutMS: 10_000 });
    await mongo.connect().then(() => mongo.db(DB).dropDatabase()).catch(() => undefined);
    await mongo.close();
  });

  it('a long tool as a task: working while it sleeps, its progress reported, then the result', async () => {
    expect(alice.getServerCapabilities()?.tasks?.requests?.tools?.call).toEqual({});
    const progress: Array<{ progress: number; message?: string }> = [];
    const stream = alice.experimental.tasks.callToolStream(run('long', 3000), CallToolResultSchema, { task: { ttl: 600_000 }, onprogress: (p) => progress.push(p), timeout: 60_000 });
    const statuses: string[] = [];
    let taskId = '';
    let result: Record<string, unknown> | undefined;
    for await (const m of stream) {
      if (m.type === 'taskCreated') taskId = m.task.taskId;
      if (m.type === 'taskStatus') statuses.push(m.task.status);
      if (m.type === 'result') result = m.result as Record<string, unknown>;
      if (m.type === 'error') throw m.error;
    }
    expect(taskId).toMatch(/^run_/);
    expect(statuses).toContain('working');
    expect(statuses.at(-1)).toBe('completed');
    expect(textOf(result!)).toBe('slept long');
    expect(seen).toEqual(expect.arrayContaining(['start:long', 'end:long']));
    expect(progress).toEqual(expect.arrayContaining([expect.objectContaining({ progress: 1, message: 'sleeping long' })]));
    // Kept in the run store: fetched again later, by id.
    expect(textOf(await alice.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).toBe('slept long');
    const listed = (await alice.experimental.tasks.listTasks()).tasks.find((t) => t.taskId === taskId);
    expect(listed?.status).toBe('completed');
  });

  it('tasks/cancel ends the work at the adapter', async () => {
    const { task } = await alice.request({ method: 'tools/call', params: { ...run('cancel-me', 60_000), task: {} } }, CreateTaskResultSchema);
    await waitFor(() => seen.includes('start:cancel-me'), { timeoutMs: 30_000, message: 'the tool to start at the adapter' });
    expect((await alice.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    expect((await alice.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
    await waitFor(() => seen.includes('aborted:cancel-me'), { timeoutMs: 30_000, message: 'the adapter to stop the tool' });
    const result = await alice.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('cancelled');
    expect(seen).not.toContain('end:cancel-me');
  });

  it("another principal cannot see, fetch, cancel or list the task", async () => {
    const { task } = await alice.request({ method: 'tools/call', params: { ...run('private', 10), task: {} } }, CreateTaskResultSchema);
    const bob = await connect(door, BOB);
    try {
      for (const attempt of [bob.experimental.tasks.getTask(task.taskId), bob.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema), bob.experimental.tasks.cancelTask(task.taskId)]) {
        const err = await rpcError(attempt);
        expect(err.code).toBe(-32602);
        expect(err.message).toContain('Task not found');
      }
      expect((await bob.experimental.tasks.listTasks()).tasks).toEqual([]);
    } finally {
      await bob.close();
    }
    expect(textOf(await alice.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toBe('slept private');
  });

  it('a call without task still answers at once, unchanged', async () => {
    const res = await alice.callTool(run('sync', 10));
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toBe('slept sync');
  });
});
