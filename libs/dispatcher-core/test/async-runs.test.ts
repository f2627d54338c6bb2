/**
 * Async runs in one process: the in-process bus, a real embedded run store (NeDB file in a scratch
 * directory), the gRPC API with API keys, and an adapter whose `sleep` tools hold each call until
 * the test releases it (or its signal aborts), so "running" is observed, never guessed from time.
 */
import { status } from '@grpc/grpc-js';
import { Authenticator, hashApiKey } from '@toolhub/auth';
import { type AdapterService, serveAdapter, staticCatalog, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { RunState, RunStatus } from '@toolhub/contracts';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { scratchDir, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';
import { connectClient, failure, type TestClient, withApiKey } from './support/grpc-client';

const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef01';
const as = withApiKey;

/** Calls the adapter holds: label → release, and what happened to each. */
const held = new Map<string, () => void>();
const events: string[] = [];

const sleeper = (name: string, annotations: ToolDefinition<never>['annotations']): ToolDefinition<never> => ({
  name,
  path: 'test',
  description: 'Holds the call until the test releases it, then answers {label}.',
  inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  annotations,
  run: async (a: { label: string }, ctx) => {
    events.push(`start:${a.label}`);
    // Set only when the caller listens (an async run's worker always does).
    ctx.progress?.({ progress: 1, total: 2, message: `holding ${a.label}` });
    ctx.log?.(`log line of ${a.label}`);
    await new Promise<void>((resolve, reject) => {
      held.set(a.label, resolve);
      ctx.signal.addEventListener('abort', () => {
        events.push(`aborted:${a.label}`);
        held.delete(a.label);
        reject(new Error('aborted'));
      }, { once: true });
    });
    held.delete(a.label);
    events.push(`end:${a.label}`);
    return { content: [{ text: `done ${a.label}` }], structured: { label: a.label } };
  },
});
const tools = [sleeper('sleep', { readOnly: false, destructive: false, idempotent: false, openWorld: false }), sleeper('sleep_idempotent', { readOnly: false, destructive: false, idempotent: true, openWorld: false })];

describe('async runs (one process, embedded run store)', () => {
  const dir = scratchDir('async-runs');
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;
  let authenticator: Authenticator;

  const start = async () => {
    const store = await openEmbeddedRunStore({ dir: join(dir, 'runs') });
    running = await startDispatcher(bus, {
      grpc: { port: 0, authenticator },
      dispatcher: { warmCoreTools: false },
      deps: { asyncRuns: { store, queue: 'local', concurrency: 4, retentionMs: 60_000 } },
    });
    client = connectClient(running.grpc.address);
  };
  const stop = async () => {
    client.close();
    await running.close(100);
  };
  const call = (name: string, label: string, extra: Record<string, unknown> = {}) => ({ call: { provider: 'local', name, arguments: { label }, timeoutMs: 60_000, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '', ...extra } });
  const stateOf = async (runId: string, key = ALICE) => (await client.getRun({ runId }, { metadata: as(key) })).run!.state;

  beforeAll(async () => {
    writeFileSync(
      join(dir, 'keys.json'),
      JSON.stringify({ keys: [{ name: 'alice', sha256: hashApiKey(ALICE), roles: ['agent'] }, { name: 'bob', sha256: hashApiKey(BOB), roles: ['agent'] }] }),
    );
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json') });
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    await start();
  });

  afterAll(async () => {
    await stop();
    await adapter.close();
    await bus.close();
    authenticator.close();
  });

  it('answers StartRun at once with a queued run; GetRun shows it running, then its result', async () => {
    const { run } = await client.startRun(call('sleep', 'r1'), { metadata: as(ALICE) });
    expect(run!.runId).toMatch(/^run_/);
    expect([RunState.RUN_STATE_QUEUED, RunState.RUN_STATE_RUNNING]).toContain(run!.state);
    await waitFor(() => held.has('r1'), { message: 'the tool to start' });
    expect(await stateOf(run!.runId)).toBe(RunState.RUN_STATE_RUNNING);
    held.get('r1')!();
    await waitFor(async () => (await stateOf(run!.runId)) === RunState.RUN_STATE_SUCCEEDED, { message: 'the run to succeed' });
    const done = (await client.getRun({ runId: run!.runId }, { metadata: as(ALICE) })).run!;
    expect(done.result!.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(done.result!.content[0]!.text).toBe('done r1');
    expect(done.attempts).toBe(1);
    expect(done.finishedUnixMs).toBeGreaterThanOrEqual(done.startedUnixMs);
    expect(done.expiresUnixMs).toBe(done.finishedUnixMs + 60_000);
    const listed = await client.listRuns({}, { metadata: as(ALICE) });
    expect(listed.runs.map((r) => r.runId)).toContain(run!.runId);
  });

  it('streams the run through WatchRun to its final update with the result', async () => {
    const { run } = await client.startRun(call('sleep', 'w1'), { metadata: as(ALICE) });
    const seen: RunState[] = [];
    const watching = client.watchRun(run!.runId, { metadata: as(ALICE), onUpdate: (u) => seen.push(u.run!.state) });
    await waitFor(() => held.has('w1') && seen.includes(RunState.RUN_STATE_RUNNING), { message: 'the watcher to see the run running' });
    held.get('w1')!();
    const updates = await watching;
    expect(updates.at(-1)!.final).toBe(true);
    expect(updates.at(-1)!.run!.state).toBe(RunState.RUN_STATE_SUCCEEDED);
    expect(updates.at(-1)!.run!.result!.content[0]!.text).toBe('done w1');
    expect(updates.filter((u) => u.final)).toHaveLength(1);
  });

  it("passes the tool's progress and log lines on through WatchRun and GetRun while it runs", async () => {
    const { run } = await client.startRun(call('sleep', 'pg1'), { metadata: as(ALICE) });
    const logs: string[] = [];
    let lastProgress: { progress: number; total: number; message: string } | undefined;
    const watching = client.watchRun(run!.runId, {
      metadata: as(ALICE),
      onUpdate: (u) => {
        logs.push(...u.newLogLines);
        if (u.run!.progress?.message) lastProgress = u.run!.progress;
      },
    });
    await waitFor(() => lastProgress?.message === 'holding pg1' && logs.includes('log line of pg1'), { message: "the watcher to see the tool's progress and log line" });
    expect(lastProgress).toMatchObject({ progress: 1, total: 2 });
    // The record is written at most once a second, the last update always (GetRun reads the record).
    await waitFor(
      async () => {
        const got = (await client.getRun({ runId: run!.runId }, { metadata: as(ALICE) })).run!;
        return got.progress?.message === 'holding pg1' && got.logLines.includes('log line of pg1');
      },
      { message: "GetRun to show the tool's last progress and log line" },
    );
    held.get('pg1')!();
    expect((await watching).at(-1)!.run!.state).toBe(RunState.RUN_STATE_SUCCEEDED);
  });

  it('cancel ends the work at the adapter, and the run ends cancelled', async () => {
    const { run } = await client.startRun(call('sleep', 'c1'), { metadata: as(ALICE) });
    await waitFor(() => held.has('c1'), { message: 'the tool to start' });
    const cancelled = await client.cancelRun({ runId: run!.runId, reason: 'not needed' }, { metadata: as(ALICE) });
    expect([RunState.RUN_STATE_RUNNING, RunState.RUN_STATE_CANCELLED]).toContain(cancelled.run!.state);
    await waitFor(() => events.includes('aborted:c1'), { message: 'the adapter to abort the call' });
    await waitFor(async () => (await stateOf(run!.runId)) === RunState.RUN_STATE_CANCELLED, { message: 'the run to end cancelled' });
    const after = (await client.getRun({ runId: run!.runId }, { metadata: as(ALICE) })).run!;
    expect(after.error!.message).toContain('not needed');
    expect(events).not.toContain('end:c1');
  });

  it('another principal gets the same NOT_FOUND for a run that is not theirs as for a missing one', async () => {
    const { run } = await client.startRun(call('sleep', 'p1'), { metadata: as(ALICE) });
    const theirs = await failure(client.getRun({ runId: run!.runId }, { metadata: as(BOB) }));
    const missing = await failure(client.getRun({ runId: 'run_0000000000ffffffffffffffff' }, { metadata: as(BOB) }));
    expect(theirs.code).toBe(status.NOT_FOUND);
    expect(missing.code).toBe(status.NOT_FOUND);
    expect(theirs.details.replace(run!.runId, 'ID')).toBe(missing.details.replace('run_0000000000ffffffffffffffff', 'ID'));
    expect((await failure(client.cancelRun({ runId: run!.runId }, { metadata: as(BOB) }))).code).toBe(status.NOT_FOUND);
    expect((await failure(client.watchRun(run!.runId, { metadata: as(BOB) }))).code).toBe(status.NOT_FOUND);
    expect((await client.listRuns({}, { metadata: as(BOB) })).runs.map((r) => r.runId)).not.toContain(run!.runId);
    await waitFor(() => held.has('p1'), { message: 'the tool to start' });
    held.get('p1')!();
    await waitFor(async () => (await stateOf(run!.runId)) === RunState.RUN_STATE_SUCCEEDED, { message: 'the run to succeed' });
  });

  it('refuses a tool the caller cannot find before queuing anything, with close matches', async () => {
    const err = await failure(client.startRun(call('sleeep', 'x'), { metadata: as(ALICE) }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.info!.suggestions).toContain('sleep');
  });

  it('a restart re-runs an idempotent run cut short and reports a non-idempotent one unknown', async () => {
    const idem = (await client.startRun(call('sleep_idempotent', 'i1'), { metadata: as(ALICE) })).run!;
    const plain = (await client.startRun(call('sleep', 'n1'), { metadata: as(ALICE) })).run!;
    await waitFor(() => held.has('i1') && held.has('n1'), { message: 'both tools to start' });
    await stop(); // the dispatcher stops: both attempts are aborted and handed back
    expect(events).toEqual(expect.arrayContaining(['aborted:i1', 'aborted:n1']));
    await start();
    await waitFor(async () => (await stateOf(plain.runId)) === RunState.RUN_STATE_UNKNOWN, { message: 'the non-idempotent run to be reported unknown' });
    const unknown = (await client.getRun({ runId: plain.runId }, { metadata: as(ALICE) })).run!;
    expect(unknown.error!.message).toContain('may or may not have run');
    expect(unknown.attempts).toBe(1);
    await waitFor(() => held.has('i1'), { message: 'the idempotent run to start again' });
    held.get('i1')!();
    await waitFor(async () => (await stateOf(idem.runId)) === RunState.RUN_STATE_SUCCEEDED, { message: 'the idempotent run to succeed' });
    expect((await client.getRun({ runId: idem.runId }, { metadata: as(ALICE) })).run!.attempts).toBe(2);
    // Statistics (metrics): the new process made one attempt, a retry of a run cut short.
    expect(running.dispatcher.runStats.retries).toBe(1);
    expect(running.dispatcher.runStats.ended.get('succeeded')).toBe(1);
    expect(events.filter((e) => e === 'start:n1')).toHaveLength(1);
  });

  it('StartRun with an idempotency key returns the same run when repeated', async () => {
    const a = (await client.startRun(call('sleep', 'k1', { idempotencyKey: 'key-1' }), { metadata: as(ALICE) })).run!;
    const b = (await client.startRun(call('sleep', 'k1', { idempotencyKey: 'key-1' }), { metadata: as(ALICE) })).run!;
    expect(b.runId).toBe(a.runId);
    await waitFor(() => held.has('k1'), { message: 'the tool to start' });
    held.get('k1')!();
    await waitFor(async () => (await stateOf(a.runId)) === RunState.RUN_STATE_SUCCEEDED, { message: 'the run to succeed' });
  });
});
