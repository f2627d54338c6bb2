/**
 * Bounds of async runs in one process (in-process bus, real embedded run store, API keys): the
 * attempt window a run may ask for (TOOLHUB_RUN_MAX_ATTEMPT) and the queued runs allowed per
 * principal and in total. One worker and a tool that holds each call until the test releases it,
 * so which runs are queued is known, never guessed from time.
 */
import { status } from '@grpc/grpc-js';
import { Authenticator, hashApiKey } from '@toolhub/auth';
import { type AdapterService, serveAdapter, staticCatalog, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { RunState } from '@toolhub/contracts';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { scratchDir, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient, withApiKey } from './support/grpc-client';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef01';
const as = withApiKey;

/** Calls the tool holds (label → release), and the deadline each call was given. */
const held = new Map<string, () => void>();
const deadlines = new Map<string, number>();
const hold: ToolDefinition<never> = {
  name: 'hold',
  path: 'test',
  description: 'Holds the call until the test releases it.',
  inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  run: async (a: { label: string }, ctx) => {
    deadlines.set(a.label, ctx.deadline);
    await new Promise<void>((resolve, reject) => {
      held.set(a.label, resolve);
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    held.delete(a.label);
    return { content: [{ text: `done ${a.label}` }] };
  },
};

describe('async-run bounds (one process, one worker)', () => {
  const dir = scratchDir('async-runs-limits');
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;
  let authenticator: Authenticator;
  const call = (label: string, timeoutMs = 60_000) => ({ call: { provider: 'local', name: 'hold', arguments: { label }, timeoutMs, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' } });
  const start = (key: string, label: string, timeoutMs?: number) => client.startRun(call(label, timeoutMs), { metadata: as(key) });
  const stateOf = async (key: string, runId: string) => (await client.getRun({ runId }, { metadata: as(key) })).run!.state;

  beforeAll(async () => {
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ name: 'alice', sha256: hashApiKey(ALICE), roles: ['agent'] }, { name: 'bob', sha256: hashApiKey(BOB), roles: ['agent'] }] }));
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', [hold]) });
    running = await startDispatcher(bus, {
      grpc: { port: 0, authenticator },
      dispatcher: { warmCoreTools: false },
      deps: { asyncRuns: { store: await openEmbeddedRunStore({ dir: join(dir, 'runs') }), queue: 'local', concurrency: 1, maxAttemptMs: 600_000, maxQueuedPerPrincipal: 2, maxQueued: 3 } },
    });
    client = connectClient(running.grpc.address);
  });

  afterAll(async () => {
    for (const release of held.values()) release();
    client.close();
    await running.close(100);
    await adapter.close();
    await bus.close();
    authenticator.close();
  });

  it('gives an attempt the timeout_ms asked for beyond RunTool’s 5 minutes, and refuses more than the server’s window with a message that says the limit', async () => {
    const over = await failure(start(ALICE, 'too-long', 600_001));
    expect(over.code).toBe(status.INVALID_ARGUMENT);
    expect(over.details).toContain('at most 600000 (10 min; the server\'s TOOLHUB_RUN_MAX_ATTEMPT)');
    expect(over.details).toContain('Nothing was started');
    expect(over.info!.violations[0]).toMatchObject({ field: 'call.timeout_ms' });
    expect((await client.listRuns({}, { metadata: as(ALICE) })).runs).toEqual([]);

    const before = Date.now();
    const { run } = await start(ALICE, 'long-window', 500_000);
    await waitFor(() => held.has('long-window'), { message: 'the tool to start' });
    // The adapter was given the whole 500 s window (a RunTool is capped at 300 s).
    expect(deadlines.get('long-window')! - before).toBeGreaterThan(300_000);
    expect(deadlines.get('long-window')! - before).toBeLessThanOrEqual(500_000 + (Date.now() - before));
    held.get('long-window')!();
    await waitFor(async () => (await stateOf(ALICE, run!.runId)) === RunState.RUN_STATE_SUCCEEDED, { message: 'the run to succeed' });
  });

  it('refuses StartRun past the queued runs allowed per principal, then in total, with RESOURCE_EXHAUSTED saying how many, the limit and what to do; nothing is stored', async () => {
    // The one worker holds h1; what alice and bob start next waits in the queue.
    const h1 = (await start(ALICE, 'h1')).run!;
    await waitFor(() => held.has('h1'), { message: 'the worker to take h1' });
    const q1 = (await start(ALICE, 'q1')).run!;
    const q2 = (await start(ALICE, 'q2')).run!;
    expect(await stateOf(ALICE, q2.runId)).toBe(RunState.RUN_STATE_QUEUED);

    const mine = await failure(start(ALICE, 'q3'));
    expect(mine.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(mine.details).toContain('You have 2 async runs queued');
    expect(mine.details).toContain('the limit per caller is 2 (TOOLHUB_RUN_MAX_QUEUED_PER_PRINCIPAL)');
    expect(mine.details).toContain('CancelRun');
    expect(mine.info!.retryable).toBe(true);

    // Bob has none queued: his first fits the total (3), his second does not.
    const b1 = (await start(BOB, 'b1')).run!;
    const all = await failure(start(BOB, 'b2'));
    expect(all.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(all.details).toContain('3 async runs are queued on this ToolHub (all callers); the limit is 3 (TOOLHUB_RUN_MAX_QUEUED)');
    expect(running.dispatcher.asyncRuns!.refusedQueueFull).toEqual({ principal: 1, total: 1 });
    const listed = (await client.listRuns({}, { metadata: as(ALICE) })).runs.map((r) => r.runId);
    expect(listed).toHaveLength(4); // long-window, h1, q1, q2: the refused ones were never stored

    // Once h1 ends and q1 starts, alice has room for one more.
    held.get('h1')!();
    await waitFor(() => held.has('q1'), { message: 'the worker to take q1' });
    let q4: string | undefined;
    await waitFor(async () => (q4 = (await start(ALICE, 'q4').catch(() => undefined))?.run?.runId) !== undefined, { message: 'alice to have room for another run' });
    for (const label of ['q1', 'q2', 'b1', 'q4']) {
      await waitFor(() => held.has(label), { message: `${label} to start` });
      held.get(label)!();
    }
    for (const [key, id] of [[ALICE, h1.runId], [ALICE, q1.runId], [ALICE, q2.runId], [BOB, b1.runId], [ALICE, q4!]] as const) {
      await waitFor(async () => (await stateOf(key, id)) === RunState.RUN_STATE_SUCCEEDED, { message: `run ${id} to succeed` });
    }
  });
});
