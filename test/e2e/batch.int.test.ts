/**
 * RunTools through real NATS: the dispatcher app in its own process, a test adapter on the bus
 * whose `wait` tool holds each call until every call of its level has started (so a level run one
 * call at a time would never finish), then sleeps its own `ms` like a slow tool. Order is read from
 * the adapter's own log of starts and ends, never from timings; the batch's time against the sum of
 * each level's slowest call and the sum of all ten is printed (bench/batch measures it properly).
 */
import { status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { type EventConsumer, NatsBus } from '@toolhub/bus';
import { type BatchCall, BatchCallState, decodeToolCalledMessage, ErrorCode, eventSubject, RunStatus, type ToolCalled } from '@toolhub/contracts';
import { natsUrl, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { connectClient, failure, type TestClient } from '../../libs/dispatcher-core/test/support/grpc-client';
import { deleteConsumer, startDispatcherProcess } from './support/stack';

jest.setTimeout(120_000);

/** A provider of this run only, so events of other runs on a shared NATS are not counted. */
const PROVIDER = `batch${randomUUID().replace(/-/g, '').slice(0, 10)}`;
const anySchema = { type: 'object', additionalProperties: true };

/** The adapter's log: `start:<label>` and `end:<label>` in the order they happened. */
const log: string[] = [];
const gates = new Map<string, { started: number; open: Array<() => void> }>();
let sideEffects = 0;

const tools: ToolDefinition<never>[] = [
  {
    name: 'wait',
    path: 'batch',
    description: 'Waits until `n` calls of `group` have started, then `ms` more, and returns {label, value}.',
    inputSchema: anySchema,
    run: async (a: { label: string; group: string; n: number; ms: number; value: unknown }, ctx) => {
      log.push(`start:${a.label}`);
      const g = gates.get(a.group) ?? { started: 0, open: [] };
      gates.set(a.group, g);
      g.started++;
      await new Promise<void>((resolve, reject) => {
        g.open.push(resolve);
        if (g.started >= a.n) g.open.forEach((f) => f());
        ctx.signal.addEventListener('abort', () => reject(new Error(`aborted while ${g.started} of ${a.n} calls of ${a.group} had started`)), { once: true });
      });
      await sleep(a.ms);
      log.push(`end:${a.label}`);
      return { content: [{ text: String(a.value) }], structured: { label: a.label, value: a.value } };
    },
  },
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
  { name: 'marker', path: 'batch', description: 'Does nothing; its event marks a point in the event stream.', inputSchema: anySchema, run: async () => textResult('marked') },
];

const call = (id: string, name: string, args: Record<string, unknown> = {}, after: string[] = []): BatchCall => ({
  id,
  provider: PROVIDER,
  name,
  arguments: args,
  // Bounds a gate that never opens (a level run one call at a time): the call fails instead of hanging.
  timeoutMs: 30_000,
  idempotencyKey: '',
  expectedVersion: '',
  after,
});
const ref = (r: string) => ({ $ref: r });
const wait = (id: string, level: number, n: number, ms: number, value: unknown, after: string[] = []) => call(id, 'wait', { label: id, group: `L${level}`, n, ms, value }, after);

/** How long each call sleeps once its level's gate opens: level maxima 400 + 500 + 600 = 1,500 ms; all ten 3,000 ms. */
const LEVELS: Array<Record<string, number>> = [
  { a0: 100, a1: 200, a2: 300, a3: 400 },
  { b0: 300, b1: 500, b2: 200 },
  { c0: 150, c1: 250, c2: 600 },
];

describe('RunTools through real NATS (dispatcher process, adapter on the bus)', () => {
  let bus: NatsBus;
  let adapter: AdapterService;
  let dispatcher: { proc: SpawnedProcess; address: string };
  let client: TestClient;
  let consumer: EventConsumer;
  const events = new Map<string, ToolCalled>();
  const durable = `e2e_batch_${PROVIDER}`;

  beforeAll(async () => {
    const nats = await natsUrl();
    bus = await NatsBus.connect({ servers: nats, name: 'e2e-batch' });
    adapter = await serveAdapter(bus, { provider: PROVIDER, ...staticCatalog(PROVIDER, tools) });
    // 'ack': a reply comes only once JetStream holds the events of its runs, so an event seen
    // after a later call's event was never going to come (the check of "nothing ran" below).
    dispatcher = await startDispatcherProcess(nats, { TOOLHUB_EVENT_DURABILITY: 'ack' });
    client = connectClient(dispatcher.address);
    consumer = await bus.consumeEvents({
      durable,
      filterSubjects: [eventSubject('tool.called', PROVIDER), eventSubject('tool.called.batch', PROVIDER), eventSubject('tool.called.grouped', PROVIDER)],
      handler: async (batch) => {
        for (const m of batch) for (const e of decodeToolCalledMessage(m.subject, m.data)) events.set(e.eventId, e);
      },
    });
    // The dispatcher finds the provider by its heartbeat: wait until it can see the tools.
    await waitFor(() => client.getToolInfo({ provider: PROVIDER, name: 'wait' }).then(() => true, () => false), { timeoutMs: 30_000, message: 'the dispatcher to see the test provider' });
  }, 120_000);

  afterAll(async () => {
    await consumer?.close();
    client?.close();
    await dispatcher?.proc.kill('SIGTERM');
    await adapter?.close();
    await bus?.close();
    await deleteConsumer(await natsUrl(), durable);
  });

  const eventsFor = (caller: string) => [...events.values()].filter((e) => e.caller === caller);

  it('runs 10 calls in 3 levels: the calls of a level overlap, each call starts after what it depends on, outputs flow forward, one tool.called event per call', async () => {
    const calls = [
      ...Object.entries(LEVELS[0]!).map(([id, ms], i) => wait(id, 0, 4, ms, i * 10)),
      wait('b0', 1, 3, LEVELS[1]!['b0']!, ref('#/calls/a0/structured/value')),
      wait('b1', 1, 3, LEVELS[1]!['b1']!, ref('#/calls/a1/text')),
      wait('b2', 1, 3, LEVELS[1]!['b2']!, { from: [ref('#/calls/a2/structured/label'), ref('#/calls/a3/structured/value')] }),
      wait('c0', 2, 3, LEVELS[2]!['c0']!, ref('#/calls/b0/structured/value')),
      wait('c1', 2, 3, LEVELS[2]!['c1']!, ref('#/calls/b2/structured/value/from/0'), ['b1']),
      wait('c2', 2, 3, LEVELS[2]!['c2']!, ref('#/calls/b1/structured')),
    ];
    const res = await client.runTools({ calls, caller: 'batch-levels', maxParallel: 8 }, { deadlineMs: 90_000 });

    expect(res.results.map((r) => [r.id, r.state, r.level, r.error?.message ?? ''])).toEqual(calls.map((c) => [c.id, BatchCallState.BATCH_CALL_STATE_OK, Number(c.id[0] === 'b') + 2 * Number(c.id[0] === 'c'), '']));
    expect(res.levels).toBe(3);
    const out = Object.fromEntries(res.results.map((r) => [r.id, r.result!.structured]));
    expect(out['b0']).toEqual({ label: 'b0', value: 0 });
    expect(out['b1']).toEqual({ label: 'b1', value: '10' });
    expect(out['c0']).toEqual({ label: 'c0', value: 0 });
    expect(out['c1']).toEqual({ label: 'c1', value: 'a2' });
    expect(out['c2']).toEqual({ label: 'c2', value: { label: 'b1', value: '10' } });

    // Structure, from the adapter's own log: in each level every call started before any of them
    // ended (they overlapped), and each call started only after every call it depends on ended.
    const at = (entry: string) => log.indexOf(entry);
    LEVELS.forEach((level, n) => {
      const ids = Object.keys(level);
      expect(ids.filter((id) => at(`start:${id}`) < 0 || at(`end:${id}`) < 0)).toEqual([]);
      const lastStart = Math.max(...ids.map((id) => at(`start:${id}`)));
      const firstEnd = Math.min(...ids.map((id) => at(`end:${id}`)));
      expect({ level: n, overlapped: lastStart < firstEnd }).toEqual({ level: n, overlapped: true });
    });
    const DEPS: Record<string, string[]> = { b0: ['a0'], b1: ['a1'], b2: ['a2', 'a3'], c0: ['b0'], c1: ['b2', 'b1'], c2: ['b1'] };
    const early = Object.entries(DEPS).flatMap(([id, deps]) => deps.filter((d) => at(`start:${id}`) < at(`end:${d}`)).map((d) => `${id} started before ${d} ended`));
    expect(early).toEqual([]);

    await waitFor(() => eventsFor('batch-levels').length >= 10, { timeoutMs: 30_000, message: '10 tool.called events' });
    const mine = eventsFor('batch-levels');
    expect(mine.map((e) => e.toolId)).toEqual(Array(10).fill(`${PROVIDER}:wait`));
    expect(mine.every((e) => e.status === 'ok')).toBe(true);

    const levelMax = LEVELS.reduce((s, l) => s + Math.max(...Object.values(l)), 0);
    const all = LEVELS.reduce((s, l) => s + Object.values(l).reduce((x, y) => x + y, 0), 0);
    process.stdout.write(`batch report: ${JSON.stringify({ calls: 10, levels: res.levels, batchMs: res.latencyMs, sumOfLevelSlowestMs: levelMax, sumOfAllCallsMs: all })}\n`);
  });

  it('refuses a cycle and an unresolvable reference before anything runs: no tool ran, no tool.called event', async () => {
    const before = sideEffects;
    const logged = log.length;
    const cycle = await failure(
      client.runTools({ calls: [call('first', 'count'), call('x', 'count', { v: ref('#/calls/z/text') }), call('y', 'count', { v: ref('#/calls/x/text') }), call('z', 'count', {}, ['y'])], caller: 'batch-refused' }),
    );
    expect(cycle.code).toBe(status.INVALID_ARGUMENT);
    expect(cycle.info?.code).toBe(ErrorCode.ERROR_CODE_INVALID_ARGUMENT);
    expect(cycle.details).toMatch(/before any call ran.*cycle \(([xyz]) → [xyz] → [xyz] → \1\)/);

    const unresolvable = await failure(
      client.runTools({ calls: [call('first', 'count'), call('second', 'count', { a: { b: ref('#/calls/ghost/structured/x') } }), call('third', 'count', {}, ['phantom'])], caller: 'batch-refused' }),
    );
    expect(unresolvable.code).toBe(status.INVALID_ARGUMENT);
    expect(unresolvable.info!.violations.map((v) => v.field).sort()).toEqual(['/calls/1/arguments/a/b', '/calls/2/after/0']);
    expect(unresolvable.details).toContain('ghost');
    expect(unresolvable.details).toContain('before any call ran');

    // A later call's event marks the point in the stream by which any event of the refused batches
    // would be there too (durability 'ack': each reply waited for JetStream).
    const marked = await client.runTool({ provider: PROVIDER, name: 'marker', arguments: {}, caller: 'batch-marker' });
    expect(marked.status).toBe(RunStatus.RUN_STATUS_OK);
    await waitFor(() => eventsFor('batch-marker').length >= 1, { timeoutMs: 30_000, message: 'the marker event' });
    expect(eventsFor('batch-refused')).toEqual([]);
    expect(sideEffects).toBe(before);
    expect(log.length).toBe(logged);
  });
});
