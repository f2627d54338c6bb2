/**
 * Bounded work per request: argument limits refused before decoding or validation with the limit
 * and the size found, and large arguments validated on the worker pool with the same answers.
 */
import { status } from '@grpc/grpc-js';
import { textResult, type ToolDefinition } from '@toolhub/adapter-sdk';

import { failure } from './support/grpc-client';
import { type LocalStack, startLocalStack } from './support/local-stack';

const schema = {
  type: 'object',
  properties: { text: { type: 'string' }, count: { type: 'integer' }, items: { type: 'array', items: { type: 'integer' } } },
  additionalProperties: false,
};
let runs = 0;
const tools: ToolDefinition<never>[] = [
  {
    name: 'measure',
    path: 'text',
    description: 'Says how long the text is and what count is.',
    inputSchema: schema,
    run: async (a: { text?: string; count?: number; items?: number[] }) => {
      runs++;
      return textResult(`${a.text?.length ?? 0} ${typeof a.count} ${a.count ?? ''} ${a.items?.length ?? 0}`);
    },
  },
];

function manyProperties(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`unknown_${i}`] = 'x';
  return out;
}

describe('argument limits and off-thread validation', () => {
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startLocalStack(tools, { warmCoreTools: false, maxArgumentNodes: 10_000 });
  });
  afterAll(() => stack.close());
  beforeEach(() => (runs = 0));

  it('refuses 180,000 unknown properties (~4 MB) before decoding, naming the limit and the env var', async () => {
    const err = await failure(stack.client.runTool({ provider: 'local', name: 'measure', arguments: manyProperties(180_000) }, { deadlineMs: 20_000 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('more than 10000 properties and array items');
    expect(err.details).toContain('TOOLHUB_MAX_ARGUMENT_NODES');
    expect(err.info?.violations).toEqual([expect.objectContaining({ field: '/', expected: 'at most 10000 properties and array items in all' })]);
    expect(runs).toBe(0);
  });

  it('refuses a 350,000-item array the same way', async () => {
    const err = await failure(stack.client.runTool({ provider: 'local', name: 'measure', arguments: { items: Array.from({ length: 350_000 }, (_, i) => i) } }, { deadlineMs: 20_000 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('more than 10000 properties and array items');
    expect(runs).toBe(0);
  });

  it('counts a batch\'s calls together', async () => {
    const calls = [0, 1, 2].map((i) => ({
      ...{ timeoutMs: 0, idempotencyKey: '', expectedVersion: '', after: [] },
      ...{ id: `c${i}`, provider: 'local', name: 'measure', arguments: { items: Array.from({ length: 4000 }, (_, j) => j) } },
    }));
    const err = await failure(stack.client.runTools({ calls }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^The batch's arguments \(all calls together\) hold more than 10000/);
    expect(runs).toBe(0);
  });

  // 12,000 booleans: ~48 KB, below what the connection guard reads as it arrives, so the decoder's
  // wire count answers; "counted 10001" is the wire count's (the value check counts an array at once).
  const overNodes = { provider: 'local', name: 'measure', arguments: { items: Array.from({ length: 12_000 }, () => true) }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' };

  it('counts StartRun\'s arguments on the wire before decoding', async () => {
    const err = await failure(stack.client.startRun({ call: overNodes }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('(counted 10001 before stopping)');
    expect(err.details).toContain('TOOLHUB_MAX_ARGUMENT_NODES');
    expect(runs).toBe(0);
  });

  it('counts RunToolStream\'s arguments on the wire before decoding', async () => {
    const err = await failure(
      new Promise((resolve, reject) => {
        const stream = stack.client.raw.runToolStream({ run: overNodes });
        stream.on('data', () => undefined);
        stream.on('error', reject);
        stream.on('end', resolve);
      }),
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('(counted 10001 before stopping)');
    expect(runs).toBe(0);
  });

  it('refuses too many bytes with the size found', async () => {
    const small = await startLocalStack(tools, { warmCoreTools: false, maxArgumentBytes: 100_000 });
    try {
      const err = await failure(small.client.runTool({ provider: 'local', name: 'measure', arguments: { text: 'y'.repeat(200_000) } }));
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(err.details).toMatch(/^The arguments take 2000\d\d bytes; the limit is 100000 bytes \(TOOLHUB_MAX_ARGUMENT_BYTES\)/);
    } finally {
      await small.close();
    }
  });

  it('validates and repairs large arguments on a worker thread', async () => {
    const pool = stack.running.dispatcher.argumentWorkers!;
    const before = pool.stats().done;
    const res = await stack.client.runTool({ provider: 'local', name: 'measure', arguments: { text: 'z'.repeat(300_000), count: '5' } }, { deadlineMs: 20_000 });
    expect(res.content).toEqual([{ text: '300000 number 5 0' }]);
    expect(res.fixes).toEqual([expect.objectContaining({ field: '/count', description: 'converted the string "5" to the integer 5' })]);
    expect(pool.stats().done).toBe(before + 1);
    // Many items (not bytes) go there too, and a rejection there reads as on the main thread.
    const err = await failure(stack.client.runTool({ provider: 'local', name: 'measure', arguments: { items: Array.from({ length: 3000 }, (_, i) => i), cont: 1 } }, { deadlineMs: 20_000 }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.info?.violations[0]).toEqual(expect.objectContaining({ field: '/cont', message: expect.stringContaining('unknown property "cont"; did you mean "count"?') }));
    expect(pool.stats().done).toBe(before + 2);
    expect(runs).toBe(1);
  });

  it('validates small arguments on the serving thread', async () => {
    const pool = stack.running.dispatcher.argumentWorkers!;
    const before = pool.stats().done;
    const res = await stack.client.runTool({ provider: 'local', name: 'measure', arguments: { text: 'abc', count: '7' } });
    expect(res.content).toEqual([{ text: '3 number 7 0' }]);
    expect(pool.stats().done).toBe(before);
  });
});
