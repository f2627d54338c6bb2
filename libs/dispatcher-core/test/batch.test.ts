import { textResult, toolError, type ToolDefinition } from '@toolhub/adapter-sdk';
import { BatchCallState, type BatchCall, ErrorCode, decodeToolCalledMessage, type ToolCalled, TOOL_CALLED_FILTERS } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { failure } from './support/grpc-client';
import { type LocalStack, startLocalStack } from './support/local-stack';

/** Calls of the `gate` tool wait until `n` calls of their group have started: a batch that ran them one by one would never finish. */
const gates = new Map<string, { started: number; open: Array<() => void> }>();
let sideEffects = 0;

const anySchema = { type: 'object', additionalProperties: true };
const tools: ToolDefinition<never>[] = [
  {
    name: 'gate',
    path: 'batch',
    description: 'Waits until `n` calls of `group` have started, then returns {value}.',
    inputSchema: anySchema,
    run: async (a: { group: string; n: number; value: unknown }, ctx) => {
      const g = gates.get(a.group) ?? { started: 0, open: [] };
      gates.set(a.group, g);
      g.started++;
      await new Promise<void>((resolve, reject) => {
        g.open.push(resolve);
        if (g.started >= a.n) g.open.forEach((f) => f());
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
      return { content: [{ text: JSON.stringify(a.value) }], structured: { value: a.value, group: a.group } };
    },
  },
  { name: 'echo', path: 'batch', description: 'Returns its arguments as structured output.', inputSchema: anySchema, run: async (a: Record<string, unknown>) => ({ content: [{ text: 'echo' }], structured: a }) },
  {
    name: 'count',
    path: 'batch',
    description: 'Counts a side effect.',
    inputSchema: anySchema,
    run: async () => {
      sideEffects++;
      return textResult(String(sideEffects));
    },
  },
  { name: 'broken', path: 'batch', description: 'Always reports a failure.', inputSchema: anySchema, run: async () => toolError('broken on purpose') },
];

const call = (id: string, name: string, args: Record<string, unknown> = {}, after: string[] = []): BatchCall => ({
  id,
  provider: 'local',
  name,
  arguments: args,
  timeoutMs: 0,
  idempotencyKey: '',
  expectedVersion: '',
  after,
});
const ref = (r: string) => ({ $ref: r });

describe('RunTools: dependency-ordered batches', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startLocalStack(tools);
  });
  afterAll(() => stack.close());

  it('runs 10 calls in 3 levels, each level in parallel, feeding outputs forward, one tool.called event per call', async () => {
    const events: ToolCalled[] = [];
    const consumer = await stack.bus.consumeEvents({
      durable: 'batch-test',
      filterSubjects: [...TOOL_CALLED_FILTERS],
      handler: async (batch) => {
        events.push(...batch.flatMap((m) => decodeToolCalledMessage(m.subject, m.data)));
      },
    });
    const calls = [
      // Level 0: four calls that can only finish once all four have started.
      ...[0, 1, 2, 3].map((i) => call(`a${i}`, 'gate', { group: 'L0', n: 4, value: i * 10 })),
      // Level 1: three calls, each reading a level-0 output.
      call('b0', 'gate', { group: 'L1', n: 3, value: ref('#/calls/a0/structured/value') }),
      call('b1', 'gate', { group: 'L1', n: 3, value: ref('#/calls/a1/structured/value') }),
      call('b2', 'gate', { group: 'L1', n: 3, value: { nested: [ref('#/calls/a2/text')] } }),
      // Level 2: three calls reading level-1 (and level-0) outputs.
      call('c0', 'gate', { group: 'L2', n: 2, value: ref('#/calls/b0/structured/value') }),
      call('c1', 'echo', { x: ref('#/calls/b2/structured/value/nested/0'), y: ref('#/calls/a3/structured') }, ['b1']),
      call('c2', 'gate', { group: 'L2', n: 2, value: ref('#/calls/b1/structured/group') }),
    ];
    const res = await stack.client.runTools({ calls, caller: 'batch-agent' }, { deadlineMs: 20_000 });
    expect(res.levels).toBe(3);
    expect(res.results.map((r) => [r.id, r.state, r.level])).toEqual([
      ['a0', BatchCallState.BATCH_CALL_STATE_OK, 0],
      ['a1', BatchCallState.BATCH_CALL_STATE_OK, 0],
      ['a2', BatchCallState.BATCH_CALL_STATE_OK, 0],
      ['a3', BatchCallState.BATCH_CALL_STATE_OK, 0],
      ['b0', BatchCallState.BATCH_CALL_STATE_OK, 1],
      ['b1', BatchCallState.BATCH_CALL_STATE_OK, 1],
      ['b2', BatchCallState.BATCH_CALL_STATE_OK, 1],
      ['c0', BatchCallState.BATCH_CALL_STATE_OK, 2],
      ['c1', BatchCallState.BATCH_CALL_STATE_OK, 2],
      ['c2', BatchCallState.BATCH_CALL_STATE_OK, 2],
    ]);
    const byId = new Map(res.results.map((r) => [r.id, r]));
    expect(byId.get('b0')!.result!.structured).toEqual({ value: 0, group: 'L1' });
    expect(byId.get('c0')!.result!.structured).toEqual({ value: 0, group: 'L2' });
    expect(byId.get('c1')!.result!.structured).toEqual({ x: '20', y: { value: 30, group: 'L0' } });
    expect(byId.get('c2')!.result!.structured).toEqual({ value: 'L1', group: 'L2' });
    // A dependant starts only after what it depends on has ended.
    expect(byId.get('c1')!.startedMs).toBeGreaterThanOrEqual(byId.get('b1')!.endedMs);
    await waitFor(() => events.filter((e) => e.caller === 'batch-agent').length >= 10, { timeoutMs: 10_000 });
    await consumer.close();
    const mine = events.filter((e) => e.caller === 'batch-agent');
    expect(mine.map((e) => e.toolId).sort()).toEqual([...Array(9).fill('local:gate'), 'local:echo'].sort());
    expect(mine.every((e) => e.status === 'ok')).toBe(true);
  });

  it('refuses a cycle before running anything', async () => {
    const before = sideEffects;
    const err = await failure(
      stack.client.runTools({
        calls: [call('first', 'count'), call('x', 'echo', { v: ref('#/calls/z/text') }), call('y', 'echo', { v: ref('#/calls/x/text') }), call('z', 'echo', {}, ['y'])],
      }),
    );
    expect(err.info?.code).toBe(ErrorCode.ERROR_CODE_INVALID_ARGUMENT);
    expect(err.details).toMatch(/cycle \(([xyz]) → [xyz] → [xyz] → \1\)/);
    expect(err.details).toContain('before any call ran');
    expect(sideEffects).toBe(before);
  });

  it('refuses unresolvable references, bad ids and unknown tools, naming each call and field, before running anything', async () => {
    const before = sideEffects;
    const err = await failure(
      stack.client.runTools({
        calls: [call('first', 'count'), call('second', 'echo', { a: { b: ref('#/calls/nope/structured/x') } }), call('bad id!', 'echo'), call('third', 'echo', { r: ref('calls/first') }, ['ghost'])],
      }),
    );
    const fields = err.info!.violations.map((v) => v.field).sort();
    expect(fields).toEqual(['/calls/1/arguments/a/b', '/calls/2/id', '/calls/3/after/0', '/calls/3/arguments/r']);
    expect(err.info!.violations.find((v) => v.field === '/calls/1/arguments/a/b')!.message).toContain('nope');
    const unknownTool = await failure(stack.client.runTools({ calls: [call('first', 'count'), call('other', 'no_such_tool')] }));
    expect(unknownTool.info!.violations.map((v) => v.field)).toEqual(['/calls/1']);
    expect(unknownTool.details).toContain('no_such_tool');
    expect(sideEffects).toBe(before);
  });

  it('fails only the dependants of a failed call, reporting them skipped with the reason', async () => {
    const res = await stack.client.runTools({
      calls: [
        call('ok1', 'echo', { v: 1 }),
        call('bad', 'broken'),
        call('needs_bad', 'echo', { v: ref('#/calls/bad/text') }),
        call('needs_needs', 'echo', {}, ['needs_bad']),
        call('needs_ok', 'echo', { v: ref('#/calls/ok1/structured/v') }),
        call('missing_key', 'echo', { v: ref('#/calls/ok1/structured/nothere') }),
        call('after_missing', 'echo', {}, ['missing_key']),
      ],
    });
    const s = Object.fromEntries(res.results.map((r) => [r.id, r]));
    expect(s.ok1!.state).toBe(BatchCallState.BATCH_CALL_STATE_OK);
    expect(s.bad!.state).toBe(BatchCallState.BATCH_CALL_STATE_TOOL_ERROR);
    expect(s.bad!.error!.message).toContain('broken on purpose');
    expect(s.needs_bad!.state).toBe(BatchCallState.BATCH_CALL_STATE_SKIPPED);
    expect(s.needs_bad!.error!.message).toContain('call bad');
    expect(s.needs_needs!.state).toBe(BatchCallState.BATCH_CALL_STATE_SKIPPED);
    expect(s.needs_ok!.state).toBe(BatchCallState.BATCH_CALL_STATE_OK);
    expect(s.needs_ok!.result!.structured).toEqual({ v: 1 });
    expect(s.missing_key!.state).toBe(BatchCallState.BATCH_CALL_STATE_FAILED);
    expect(s.missing_key!.error!.message).toContain('has only the keys v');
    expect(s.after_missing!.state).toBe(BatchCallState.BATCH_CALL_STATE_SKIPPED);
  });

  it('keeps to max_parallel', async () => {
    // Three gate calls that each need 3 started at once cannot finish with max_parallel 2; with 3 they do.
    const res = await stack.client.runTools({ calls: [0, 1, 2].map((i) => call(`p${i}`, 'gate', { group: 'P3', n: 3, value: i })), maxParallel: 3 });
    expect(res.results.every((r) => r.state === BatchCallState.BATCH_CALL_STATE_OK)).toBe(true);
    const limited = await stack.client.runTools({ calls: [0, 1, 2].map((i) => call(`q${i}`, 'gate', { group: 'Q3', n: 3, value: i, x: i })).map((c) => ({ ...c, timeoutMs: 1500 })), maxParallel: 2 });
    expect(limited.results.filter((r) => r.state === BatchCallState.BATCH_CALL_STATE_FAILED).length).toBeGreaterThan(0);
  });
});
