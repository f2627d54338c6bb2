import { credentials, Metadata, status } from '@grpc/grpc-js';
import { textResult, toolError, type ToolDefinition } from '@toolhub/adapter-sdk';
import { type InProcessBus } from '@toolhub/bus';
import { decodeToolCalledMessage, RunStatus, TOOL_CALLED_FILTERS, type ToolCalled, ToolHubService } from '@toolhub/contracts';

import type { RunningDispatcher } from '../src';
import { failure, type TestClient } from './support/grpc-client';
import { type LocalStack, startLocalStack } from './support/local-stack';

const objectSchema = { type: 'object', properties: { text: { type: 'string' } } };
let lastSlowSignal: AbortSignal | undefined;
let lastDeadline = 0;

const tools: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: objectSchema, run: async (a: { text?: string }) => textResult(a.text ?? '') },
  { name: 'core_echo', path: 'text', description: 'Echoes, and is core.', importance: 'core', inputSchema: objectSchema, run: async () => textResult('core') },
  { name: 'always_fails', path: 'text', description: 'Reports a failure.', inputSchema: objectSchema, run: async () => toolError('the thing is broken; try echo_text') },
  {
    name: 'slow_wait',
    path: 'time',
    description: 'Waits a long time.',
    inputSchema: objectSchema,
    run: (_a, ctx) => {
      lastSlowSignal = ctx.signal;
      lastDeadline = ctx.deadline;
      return new Promise((resolve) => {
        const t = setTimeout(() => resolve(textResult('done')), 10_000);
        ctx.signal.addEventListener('abort', () => clearTimeout(t));
      });
    },
  },
  {
    name: 'quick_default',
    path: 'time',
    description: 'Waits a long time, but declares a 150 ms default timeout (like a cloud document timeout).',
    inputSchema: objectSchema,
    defaultTimeoutMs: 150,
    run: (_a, ctx) =>
      new Promise((resolve) => {
        lastDeadline = ctx.deadline;
        const t = setTimeout(() => resolve(textResult('done')), 10_000);
        ctx.signal.addEventListener('abort', () => clearTimeout(t));
      }),
  },
];

describe('dispatcher over the in-process bus', () => {
  let stack: LocalStack;
  let bus: InProcessBus;
  let running: RunningDispatcher;
  let client: TestClient;

  beforeAll(async () => {
    stack = await startLocalStack(tools, { maxMessageBytes: 64 * 1024, maxArgumentDepth: 8 });
    ({ bus, running, client } = stack);
  });

  afterAll(() => stack.close());

  it('lists the running providers at the root', async () => {
    const res = await client.listTools({});
    expect(res.categories.map((c) => c.name)).toEqual(['local']);
    expect(res.hint).toContain('local');
  });

  it('lists a provider root as categories with a hint for the next step', async () => {
    const res = await client.listTools({ provider: 'local' });
    expect(res.categories.map((c) => c.path)).toEqual(['text', 'time']);
    expect(res.hint).toContain('tool_list');
  });

  it('returns the full info of a tool', async () => {
    const res = await client.getToolInfo({ provider: 'local', name: 'echo_text' });
    expect(res.tool).toMatchObject({ id: 'local:echo_text', path: 'text', inputSchema: objectSchema });
  });

  it('runs a tool and says who served it', async () => {
    const res = await client.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'hi' } });
    expect(res).toMatchObject({ status: RunStatus.RUN_STATUS_OK, servedBy: 'local:echo_text', attempts: 1 });
    expect(res.content).toEqual([{ text: 'hi' }]);
  });

  it('reports a tool that ran and failed as TOOL_ERROR with its message', async () => {
    const res = await client.runTool({ provider: 'local', name: 'always_fails' });
    expect(res.status).toBe(RunStatus.RUN_STATUS_TOOL_ERROR);
    expect(res.error?.message).toContain('try echo_text');
  });

  it('answers an unknown provider with NOT_FOUND naming the known providers', async () => {
    const err = await failure(client.runTool({ provider: 'nope', name: 'echo_text' }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.details).toContain('Known providers: local');
    expect(err.info?.suggestions).toEqual(['local']);
  });

  it('answers an unknown tool with NOT_FOUND, close names and the parent path', async () => {
    const err = await failure(client.getToolInfo({ provider: 'local', name: 'echo_txt' }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.info?.suggestions[0]).toBe('echo_text');
    expect(err.info?.parentPath).toBe('text');
  });

  it('rejects a missing provider and a malformed name with INVALID_ARGUMENT', async () => {
    const missing = await failure(client.runTool({ name: 'echo_text' }));
    expect(missing.code).toBe(status.INVALID_ARGUMENT);
    expect(missing.details).toContain('Provider is required');
    const bad = await failure(client.getToolInfo({ provider: 'local', name: 'Echo-Text' }));
    expect(bad.code).toBe(status.INVALID_ARGUMENT);
    expect(bad.details).toContain('"echo_text"');
  });

  it('rejects an oversized request with INVALID_ARGUMENT naming the limit', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'x'.repeat(100_000) } }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('limit is 65536 bytes');
  });

  it('rejects bytes that are not a valid request with INVALID_ARGUMENT', async () => {
    const def = ToolHubService.runTool;
    const garbage = await new Promise<{ code?: number; details?: string }>((resolve) => {
      client.raw.makeUnaryRequest(def.path, (b: Buffer) => b, def.responseDeserialize, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), new Metadata(), {}, (err) => resolve(err ?? {}));
    });
    expect(garbage.code).toBe(status.INVALID_ARGUMENT);
    expect(garbage.details).toContain('could not be decoded');
  });

  it('rejects arguments nested past the depth limit', async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 12; i++) deep = { d: deep };
    const err = await failure(client.runTool({ provider: 'local', name: 'echo_text', arguments: deep }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('deeper than the limit of 8');
    let absurd: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 200; i++) absurd = { d: absurd };
    const decodeErr = await failure(client.runTool({ provider: 'local', name: 'echo_text', arguments: absurd }));
    expect(decodeErr.code).toBe(status.INVALID_ARGUMENT);
    expect(decodeErr.details).toContain('nest too deeply');
  });

  it('times out a slow tool at timeout_ms, cancels it, and keeps serving', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'slow_wait', timeoutMs: 100 }));
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    expect(err.details).toContain('timeout_ms');
    expect(lastSlowSignal?.aborted).toBe(true);
    expect((await client.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'still here' } })).content).toEqual([{ text: 'still here' }]);
  });

  it("applies the tool's own default timeout when the call sets none", async () => {
    const before = Date.now();
    const err = await failure(client.runTool({ provider: 'local', name: 'quick_default' }));
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    expect(lastDeadline).toBeLessThanOrEqual(before + 1000);
  });

  it('passes the caller gRPC deadline through to the adapter', async () => {
    const before = Date.now();
    const err = await failure(client.runTool({ provider: 'local', name: 'slow_wait' }, { deadlineMs: 300 }));
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    expect(lastDeadline).toBeGreaterThan(before);
    expect(lastDeadline).toBeLessThanOrEqual(before + 400);
  });

  it('emits a durable tool.called event for every run, with its outcome', async () => {
    const events: ToolCalled[] = [];
    const consumer = await bus.consumeEvents({
      durable: 'dispatcher-test',
      filterSubjects: [...TOOL_CALLED_FILTERS],
      handler: async (batch) => {
        events.push(...batch.flatMap((m) => decodeToolCalledMessage(m.subject, m.data)));
      },
    });
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && !events.some((e) => e.status === 'timeout')) await new Promise((r) => setTimeout(r, 20));
    await consumer.close();
    const statuses = new Set(events.map((e) => `${e.toolId} ${e.status}`));
    // The call cut by its caller's 300 ms gRPC deadline: the client resets the stream at its own
    // deadline, which on a busy machine reaches the dispatcher before the server-side deadline
    // (computed on arrival, so later by the transit time) has passed: then it is recorded as
    // cancelled. Either record says the caller got no result; the other slow_wait call (timeout_ms
    // 100, ended by the dispatcher) must still be recorded as a timeout below.
    statuses.delete('local:slow_wait cancelled');
    expect(statuses).toEqual(new Set(['local:echo_text ok', 'local:always_fails tool_error', 'local:slow_wait timeout', 'local:quick_default timeout', 'local:echo_text invalid_argument', 'nope:echo_text not_found']));
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    expect(events.every((e) => e.timestampUnixMs > 0 && e.attempts === 1)).toBe(true);
  });

  it('warms the cache with core tools at start-up, so their first info is a cache hit', async () => {
    expect(await running.dispatcher.warmCoreTools()).toBe(1);
    const hits = running.dispatcher.metadata.stats.hits;
    await client.getToolInfo({ provider: 'local', name: 'core_echo' });
    expect(running.dispatcher.metadata.stats.hits).toBe(hits + 1);
  });

  it('reports its health detail: cache, event backlog and providers', async () => {
    const res = await new Promise<{ cacheHealthy: boolean; cacheDetail: string; providers: Array<{ provider: string }> }>((resolve, reject) =>
      client.raw.getStatus({}, (err, r) => (err ? reject(err) : resolve(r))),
    );
    expect(res.cacheHealthy).toBe(true);
    expect(res.providers.map((p) => p.provider)).toEqual(['local']);
  });

  it('serves the standard health service', async () => {
    const { HealthClient } = await healthClientCtor();
    const health = new HealthClient(running.grpc.address, credentials.createInsecure());
    const res = await new Promise<{ status: string }>((resolve, reject) =>
      health.check({ service: 'toolhub.v1.ToolHub' }, (err: Error | null, r: { status: string }) => (err ? reject(err) : resolve(r))),
    );
    health.close();
    expect(res.status).toBe('SERVING');
  });
});

async function healthClientCtor(): Promise<{ HealthClient: new (address: string, creds: unknown) => { check: (...a: unknown[]) => void; close(): void } }> {
  const grpc = await import('@grpc/grpc-js');
  const { service } = await import('grpc-health-check');
  return { HealthClient: grpc.makeGenericClientConstructor(service as never, 'grpc.health.v1.Health') as never };
}
