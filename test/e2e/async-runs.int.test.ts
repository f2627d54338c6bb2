/**
 * Async runs through real services: two dispatcher processes on real NATS (JetStream work queue
 * TOOLHUB_RUNS) and MongoDB (FerretDB locally; run records in a database of this test), API keys
 * for two principals, and a test adapter on the bus whose `sleep` tools sleep `ms` (the first test:
 * 30 s, as the issue asks; the others TOOLHUB_TEST_RUN_MS, default 3 s) in one-second steps,
 * reporting each step's progress and a log line, honouring their abort signal. Which dispatcher works a run is read from its record's `owner` (each
 * dispatcher logs its instance id), so the one killed is the one holding the run.
 */
import { Metadata, status } from '@grpc/grpc-js';
import { hashApiKey } from '@toolhub/auth';
import { type AdapterService, serveAdapter, staticCatalog, type ToolDefinition } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { RunState, RunStatus } from '@toolhub/contracts';
import { mongoUrl, natsUrl, scratchDir, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { connectClient, failure, type TestClient } from '../../libs/dispatcher-core/test/support/grpc-client';
import { startDispatcherProcess } from './support/stack';

jest.setTimeout(180_000);

const RUN_MS = Number(process.env['TOOLHUB_TEST_RUN_MS'] ?? 3000);
const PROVIDER = `runs${randomUUID().replace(/-/g, '').slice(0, 10)}`;
const DB = `e2e_runs_${randomUUID().slice(0, 8)}`;
const ALICE = 'alice-key-0123456789abcdef';
const BOB = 'bob-key-0123456789abcdef01';
const as = (key: string) => {
  const m = new Metadata();
  m.set('x-api-key', key);
  return m;
};

/** What the adapter saw, per label: start, end, aborted (in order). */
const seen: string[] = [];
/** Labels whose calls end at their next step, whatever `ms` they were given. */
const released = new Set<string>();
const sleeper = (name: string, idempotent: boolean): ToolDefinition<never> => ({
  name,
  path: 'test',
  description: `Sleeps in one-second steps, reporting each, then answers {label}. ${idempotent ? 'Idempotent.' : 'Not idempotent.'}`,
  inputSchema: { type: 'object', properties: { label: { type: 'string' }, ms: { type: 'number' } }, required: ['label'] },
  annotations: { readOnly: false, destructive: false, idempotent, openWorld: false },
  run: async (a: { label: string; ms?: number }, ctx) => {
    seen.push(`start:${a.label}`);
    const ms = a.ms ?? RUN_MS;
    const steps = Math.ceil(ms / 1000);
    try {
      for (let i = 0; i < steps && !released.has(a.label); i++) {
        ctx.progress?.({ progress: i, total: steps, message: `${a.label}: second ${i + 1} of ${steps}` });
        ctx.log?.(`${a.label} step ${i + 1}`);
        await sleep(Math.min(1000, ms - i * 1000), undefined, { signal: ctx.signal });
      }
    } catch (err) {
      seen.push(`aborted:${a.label}`);
      throw err;
    }
    seen.push(`end:${a.label}`);
    return { content: [{ text: `slept ${a.label}` }], structured: { label: a.label } };
  },
});

describe('async runs through real NATS and MongoDB, two dispatcher replicas', () => {
  let bus: NatsBus;
  let adapter: AdapterService;
  let mongo: MongoClient;
  const dispatchers: Array<{ proc: SpawnedProcess; address: string; client: TestClient; instance: string }> = [];
  const dir = scratchDir('async-runs-e2e');

  const startOne = async () => {
    const nats = await natsUrl();
    const d = await startDispatcherProcess(nats, {
      MONGO_URL: await mongoUrl(),
      TOOLHUB_MONGO_DB: DB,
      TOOLHUB_RUN_ACK_WAIT: '3s',
      TOOLHUB_RUN_CONCURRENCY: '4',
      TOOLHUB_AUTH_API_KEYS: join(dir, 'keys.json'),
      TOOLHUB_CONSOLE_PORT: '0',
    });
    // Async runs come on once the runs database answers (in the background of the start).
    await waitFor(() => /"instance":"[0-9a-f]+"/.test(d.proc.output()), { timeoutMs: 30_000, message: 'the dispatcher to turn async runs on' });
    const instance = /"instance":"([0-9a-f]+)"/.exec(d.proc.output())![1]!;
    const entry = { ...d, client: connectClient(d.address), instance };
    dispatchers.push(entry);
    return entry;
  };
  const runs = () => mongo.db(DB).collection<{ _id: string; owner: string; attempts: number }>('runs');
  const call = (name: string, label: string, ms?: number) => ({
    call: { provider: PROVIDER, name, arguments: ms ? { label, ms } : { label }, timeoutMs: 120_000, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' },
  });

  beforeAll(async () => {
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ name: 'alice', sha256: hashApiKey(ALICE), roles: ['agent'] }, { name: 'bob', sha256: hashApiKey(BOB), roles: ['agent'] }] }));
    const nats = await natsUrl();
    bus = await NatsBus.connect({ servers: nats, name: 'e2e-async-runs' });
    adapter = await serveAdapter(bus, { provider: PROVIDER, ...staticCatalog(PROVIDER, [sleeper('sleep', false), sleeper('sleep_idempotent', true)]) });
    mongo = new MongoClient(await mongoUrl(), { serverSelectionTimeoutMS: 10_000 });
    await mongo.connect();
    await Promise.all([startOne(), startOne()]);
    for (const d of dispatchers) {
      await waitFor(() => d.client.getToolInfo({ provider: PROVIDER, name: 'sleep' }, { metadata: as(ALICE) }).then(() => true, () => false), { timeoutMs: 30_000, message: 'the dispatcher to see the test provider' });
    }
  }, 180_000);

  afterAll(async () => {
    for (const d of dispatchers) d.client.close();
    await Promise.all(dispatchers.map((d) => d.proc.kill('SIGTERM')));
    await adapter?.close();
    await bus?.close();
    await mongo?.db(DB).dropDatabase().catch(() => undefined);
    await mongo?.close();
  });

  const stateOf = async (client: TestClient, runId: string) => (await client.getRun({ runId }, { metadata: as(ALICE) })).run!.state;

  it('a 30-second tool started async: WatchRun (on the other replica) shows its progress while it runs, then GetRun fetches its result', async () => {
    const [a, b] = dispatchers;
    const TOOL_MS = 30_000;
    const started = Date.now();
    const { run } = await a!.client.startRun(call('sleep', 'slow30', TOOL_MS), { metadata: as(ALICE) });
    const answeredMs = Date.now() - started;
    const states: RunState[] = [run!.state];
    // Progress reported while the run was RUNNING (not final): what the watcher saw during the run.
    const during: number[] = [];
    const logLines: string[] = [];
    // Watched on the other replica: updates cross dispatchers over NATS.
    const watching = b!.client.watchRun(run!.runId, {
      metadata: as(ALICE),
      deadlineMs: 150_000,
      onUpdate: (u) => {
        states.push(u.run!.state);
        logLines.push(...u.newLogLines);
        if (!u.final && u.run!.state === RunState.RUN_STATE_RUNNING && u.run!.progress?.total === 30) during.push(u.run!.progress.progress);
      },
    });
    // Mid-run: the watcher has seen progress move, and GetRun (the record) says RUNNING with progress.
    await waitFor(() => new Set(during).size >= 3, { timeoutMs: 60_000, message: 'the watcher to see three progress steps' });
    const mid = (await a!.client.getRun({ runId: run!.runId }, { metadata: as(ALICE) })).run!;
    expect(mid.state).toBe(RunState.RUN_STATE_RUNNING);
    expect(seen).not.toContain('end:slow30');
    const updates = await watching;
    const last = updates.at(-1)!;
    expect(last.final).toBe(true);
    expect(last.run!.state).toBe(RunState.RUN_STATE_SUCCEEDED);
    expect(updates.filter((u) => u.final)).toHaveLength(1);
    expect(states).toContain(RunState.RUN_STATE_RUNNING);
    // Progress went forward while it ran (updates may coalesce or arrive by a store re-read, never backwards).
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect([...during].sort((x, y) => x - y)).toEqual(during);
    expect(logLines).toContain('slow30 step 1');
    const fetched = (await a!.client.getRun({ runId: run!.runId }, { metadata: as(ALICE) })).run!;
    expect(fetched.state).toBe(RunState.RUN_STATE_SUCCEEDED);
    expect(fetched.result!.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(fetched.result!.content[0]!.text).toBe('slept slow30');
    expect(fetched.result!.structured).toEqual({ label: 'slow30' });
    expect(fetched.finishedUnixMs - fetched.startedUnixMs).toBeGreaterThanOrEqual(TOOL_MS);
    process.stdout.write(
      `async-runs: StartRun answered in ${answeredMs} ms; a ${TOOL_MS} ms tool took ${fetched.finishedUnixMs - fetched.queuedUnixMs} ms from queued to finished; the watcher saw ${during.length} progress updates during it\n`,
    );
  });

  it('another principal cannot read, watch, cancel or list the run', async () => {
    const [a, b] = dispatchers;
    const { run } = await a!.client.startRun(call('sleep', 'mine'), { metadata: as(ALICE) });
    for (const client of [a!.client, b!.client]) {
      expect((await failure(client.getRun({ runId: run!.runId }, { metadata: as(BOB) }))).code).toBe(status.NOT_FOUND);
      expect((await failure(client.watchRun(run!.runId, { metadata: as(BOB) }))).code).toBe(status.NOT_FOUND);
      expect((await failure(client.cancelRun({ runId: run!.runId }, { metadata: as(BOB) }))).code).toBe(status.NOT_FOUND);
      expect((await client.listRuns({}, { metadata: as(BOB) })).runs).toEqual([]);
    }
    await waitFor(async () => (await stateOf(a!.client, run!.runId)) === RunState.RUN_STATE_SUCCEEDED, { timeoutMs: 60_000, message: 'the run to succeed' });
  });

  it('cancel ends the work at the adapter, whichever replica runs it', async () => {
    const [a] = dispatchers;
    const { run } = await a!.client.startRun(call('sleep', 'cancel1'), { metadata: as(ALICE) });
    await waitFor(() => seen.includes('start:cancel1'), { timeoutMs: 30_000, message: 'the tool to start' });
    await a!.client.cancelRun({ runId: run!.runId, reason: 'e2e' }, { metadata: as(ALICE) });
    await waitFor(() => seen.includes('aborted:cancel1'), { timeoutMs: 30_000, message: 'the adapter to abort the call' });
    await waitFor(async () => (await stateOf(a!.client, run!.runId)) === RunState.RUN_STATE_CANCELLED, { timeoutMs: 30_000, message: 'the run to end cancelled' });
    expect(seen).not.toContain('end:cancel1');
  });

  it('a dispatcher killed mid-run: the idempotent run completes on the other replica, the non-idempotent one is reported unknown', async () => {
    // One replica works both runs (the other is stopped first), then a fresh replica joins and the
    // first is killed: what the fresh one does with the two redelivered runs is what is checked.
    const [a, b] = dispatchers;
    b!.client.close();
    await b!.proc.kill('SIGTERM');
    // Both hold until released, so they are still running when the replica dies, however slow the new one starts.
    const idem = (await a!.client.startRun(call('sleep_idempotent', 'kill-idem', 600_000), { metadata: as(ALICE) })).run!;
    const plain = (await a!.client.startRun(call('sleep', 'kill-plain', 600_000), { metadata: as(ALICE) })).run!;
    await waitFor(() => seen.includes('start:kill-idem') && seen.includes('start:kill-plain'), { timeoutMs: 30_000, message: 'both tools to start' });
    const owners = await runs().find({ _id: { $in: [idem.runId, plain.runId] } }).toArray();
    expect(owners.map((o) => o.owner)).toEqual([a!.instance, a!.instance]);
    const c = await startOne();
    await waitFor(() => c.client.getToolInfo({ provider: PROVIDER, name: 'sleep' }, { metadata: as(ALICE) }).then(() => true, () => false), { timeoutMs: 30_000, message: 'the new dispatcher to see the test provider' });
    await a!.proc.kill('SIGKILL');
    await waitFor(async () => (await stateOf(c.client, plain.runId)) === RunState.RUN_STATE_UNKNOWN, { timeoutMs: 60_000, message: 'the non-idempotent run to be reported unknown' }).catch(async (err: Error) => {
      const records = await runs().find({ _id: { $in: [idem.runId, plain.runId] } }).toArray();
      throw new Error(`${err.message}; the records: ${JSON.stringify(records.map((r) => ({ ...r, argumentsJson: undefined, logs: undefined })))}; the new dispatcher said:\n${c.proc.output().slice(-6000)}`);
    });
    const unknown = (await c.client.getRun({ runId: plain.runId }, { metadata: as(ALICE) })).run!;
    expect(unknown.error!.message).toContain('may or may not have run');
    expect(unknown.attempts).toBe(1);
    released.add('kill-plain'); // its first (and only) call, which the dead dispatcher no longer waits for
    await waitFor(() => seen.filter((e) => e === 'start:kill-idem').length === 2, { timeoutMs: 60_000, message: 'the idempotent run to start again on the new dispatcher' });
    released.add('kill-idem');
    await waitFor(async () => (await stateOf(c.client, idem.runId)) === RunState.RUN_STATE_SUCCEEDED, { timeoutMs: 60_000, message: 'the idempotent run to complete' });
    const done = (await c.client.getRun({ runId: idem.runId }, { metadata: as(ALICE) })).run!;
    expect(done.result!.content[0]!.text).toBe('slept kill-idem');
    expect(done.attempts).toBe(2);
    expect((await runs().findOne({ _id: idem.runId }))!.owner).toBe('');
    // The adapter saw the idempotent run start twice, the other once: never run again behind the caller's back.
    expect(seen.filter((e) => e === 'start:kill-idem')).toHaveLength(2);
    expect(seen.filter((e) => e === 'start:kill-plain')).toHaveLength(1);
  });
});
