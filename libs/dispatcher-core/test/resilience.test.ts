/** Argument repair, stale schemas, safe retries and per-caller limits, through the gRPC API. */
import { status } from '@grpc/grpc-js';
import { textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { RunStatus, ToolHubError } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { failure, type TestClient } from './support/grpc-client';
import { type LocalStack, startLocalStack } from './support/local-stack';

let flakyCalls = 0;
let unsafeCalls = 0;
/** Runs of slow_op that reached the adapter; each waits for `slowGate`. */
let slowStarted = 0;
let slowGate: Promise<void> = Promise.resolve();
const tools: ToolDefinition<never>[] = [
  {
    name: 'repeat_text',
    path: 'text',
    description: 'Repeats a text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, times: { type: 'integer', minimum: 1 }, style: { type: 'string', enum: ['plain', 'shout'], default: 'plain' } },
      required: ['text', 'times'],
      additionalProperties: false,
    },
    run: async (a: { text: string; times: number; style: string }) => textResult(`${a.style}:${a.text.repeat(a.times)}`),
  },
  {
    name: 'flaky_read',
    path: 'text',
    description: 'Fails once, then works.',
    inputSchema: { type: 'object' },
    annotations: { readOnly: true },
    run: async () => {
      if (++flakyCalls === 1) throw ToolHubError.unavailable('backend hiccup');
      return textResult('read ok');
    },
  },
  {
    name: 'flaky_write',
    path: 'text',
    description: 'Fails once, then works; not safe to repeat.',
    inputSchema: { type: 'object' },
    run: async () => {
      if (++unsafeCalls === 1) throw ToolHubError.unavailable('backend hiccup');
      return textResult('written');
    },
  },
  {
    name: 'slow_op',
    path: 'text',
    description: 'Takes until the test releases it.',
    inputSchema: { type: 'object' },
    run: async () => {
      slowStarted++;
      await slowGate;
      return textResult('done');
    },
  },
];

describe('dispatcher resilience', () => {
  let stack: LocalStack;
  let client: TestClient;

  beforeAll(async () => {
    stack = await startLocalStack(tools, { maxConcurrentPerCaller: 2, retryBaseMs: 5, warmCoreTools: false });
    client = stack.client;
  });

  afterAll(() => stack.close());

  it('repairs safe mistakes, reports each fix, and runs', async () => {
    const res = await client.runTool({ provider: 'local', name: 'repeat_text', arguments: { text: 'ab', times: '2', style: 'shoutt' } });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(res.content).toEqual([{ text: 'shout:abab' }]);
    expect(res.fixes.map((f) => f.field).sort()).toEqual(['/style', '/times']);
  });

  it('rejects what it cannot repair with every field, the expected type and an example', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'repeat_text', arguments: { times: 'many', colour: 'red' } }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    const fields = err.info!.violations.map((v) => v.field);
    expect(fields).toEqual(expect.arrayContaining(['/text', '/times']));
    expect(err.info!.violations.find((v) => v.field === '/times')).toMatchObject({ expected: expect.stringContaining('integer') });
    expect(err.info!.violations.every((v) => v.example !== '' || v.field === '/colour')).toBe(true);
  });

  it('refuses a call made with a stale schema version and names the new one', async () => {
    const info = await client.getToolInfo({ provider: 'local', name: 'repeat_text' });
    const err = await failure(client.runTool({ provider: 'local', name: 'repeat_text', arguments: { text: 'a', times: 1 }, expectedVersion: 'old-version' }));
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(err.details).toContain(info.tool!.version);
    expect(err.details).toContain('tool_info');
  });

  it('retries a read-only tool after a transient failure and reports the attempts', async () => {
    const res = await client.runTool({ provider: 'local', name: 'flaky_read' });
    expect(res).toMatchObject({ status: RunStatus.RUN_STATUS_OK, attempts: 2 });
  });

  it('does not retry a tool that is unsafe to repeat, unless the call carries an idempotency key', async () => {
    const err = await failure(client.runTool({ provider: 'local', name: 'flaky_write' }));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(unsafeCalls).toBe(1);
    unsafeCalls = 0;
    const res = await client.runTool({ provider: 'local', name: 'flaky_write', idempotencyKey: 'k-1' });
    expect(res).toMatchObject({ status: RunStatus.RUN_STATUS_OK, attempts: 2 });
  });

  it('limits concurrent runs per caller and says which limit, while other callers still run', async () => {
    let release!: () => void;
    slowGate = new Promise((r) => (release = r));
    slowStarted = 0;
    const slow = [client.runTool({ provider: 'local', name: 'slow_op', caller: 'greedy' }), client.runTool({ provider: 'local', name: 'slow_op', caller: 'greedy' })];
    // Both runs are in the adapter (so both hold their caller slot) before the third is sent.
    await waitFor(() => slowStarted === 2, { timeoutMs: 20_000, message: 'both greedy runs to reach the adapter' });
    const err = await failure(client.runTool({ provider: 'local', name: 'slow_op', caller: 'greedy' }));
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(err.details).toContain('limit is 2 concurrent runs per caller');
    const other = await client.runTool({ provider: 'local', name: 'repeat_text', arguments: { text: 'a', times: 1 }, caller: 'polite' });
    expect(other.status).toBe(RunStatus.RUN_STATUS_OK);
    release();
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([RunStatus.RUN_STATUS_OK, RunStatus.RUN_STATUS_OK]);
  });
});
