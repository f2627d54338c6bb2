/**
 * An adapter replica killed mid-run, through real services: a dispatcher process on real NATS
 * (JetStream work queue TOOLHUB_RUNS) and MongoDB (FerretDB locally; run records in a database of
 * this test), and two replicas of one test provider, each its own process
 * (fixtures/runs-replica-adapter.ts). Replica A holds its calls until it is killed; replica B
 * finishes the same calls in 2 s. Both runs are started while A is the only replica, so A holds
 * both (each run's progress names the pid running it); then B starts, the dispatcher sees it, and
 * A is SIGKILLed. The idempotent run completes on B (its result names B's pid); the
 * non-idempotent one ends UNKNOWN ("may or may not have run"), never run again.
 */
import { RunState, RunStatus } from '@toolhub/contracts';
import { mongoUrl, natsUrl, spawnProcess, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { connectClient, type TestClient } from '../../libs/dispatcher-core/test/support/grpc-client';
import { startDispatcherProcess } from './support/stack';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '../..');
const PROVIDER = `replicas${randomUUID().replace(/-/g, '').slice(0, 10)}`;
const DB = `e2e_runs_replicas_${randomUUID().slice(0, 8)}`;

describe('an adapter replica killed mid-run (real NATS and MongoDB, two replicas of one provider)', () => {
  let dispatcher: SpawnedProcess;
  let client: TestClient;
  const replicas: SpawnedProcess[] = [];

  const startReplica = async (holdSeconds: number): Promise<SpawnedProcess> => {
    const proc = await spawnProcess(process.execPath, ['--import', 'tsx', 'test/e2e/fixtures/runs-replica-adapter.ts'], {
      cwd: ROOT,
      env: { NATS_URL: await natsUrl(), TEST_PROVIDER: PROVIDER, TEST_HOLD_SECONDS: String(holdSeconds) },
      readyPattern: /runs-replica-adapter ready/,
      timeoutMs: 60_000,
    });
    replicas.push(proc);
    return proc;
  };
  const replicasSeen = async () => (await client.listProviders({})).providers.find((p) => p.provider === PROVIDER)?.replicas ?? 0;
  const call = (name: string, label: string) => ({ call: { provider: PROVIDER, name, arguments: { label }, timeoutMs: 120_000, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' } });
  const getRun = async (runId: string) => (await client.getRun({ runId })).run!;

  beforeAll(async () => {
    const [d] = await Promise.all([
      startDispatcherProcess(await natsUrl(), { MONGO_URL: await mongoUrl(), TOOLHUB_MONGO_DB: DB, TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_RUN_ACK_WAIT: '2s', TOOLHUB_RUN_REQUEUE_AFTER: '2s' }),
      startReplica(600),
    ]);
    dispatcher = d.proc;
    client = connectClient(d.address);
    // Async runs come on once the runs database answers (in the background of the start).
    await waitFor(() => /async runs on/.test(dispatcher.output()), { timeoutMs: 30_000, message: 'the dispatcher to turn async runs on' });
    await waitFor(async () => (await replicasSeen().catch(() => 0)) === 1, { timeoutMs: 30_000, message: 'the dispatcher to see replica A' });
  }, 180_000);

  afterAll(async () => {
    client?.close();
    await Promise.all([dispatcher?.kill('SIGTERM'), ...replicas.map((r) => r.kill('SIGTERM'))]);
    const mongo = new MongoClient(await mongoUrl(), { serverSelectionTimeoutMS: 10_000 });
    await mongo.connect();
    await mongo.db(DB).dropDatabase().catch(() => undefined);
    await mongo.close();
  });

  it('the idempotent run completes on the other replica and the non-idempotent one is reported unknown', async () => {
    const [a] = replicas;
    const idem = (await client.startRun(call('long_idempotent', 'kill-idem'))).run!;
    const plain = (await client.startRun(call('long_plain', 'kill-plain'))).run!;
    // The tool's progress names the pid running it: A (the only replica) holds both.
    await waitFor(async () => (await getRun(idem.runId)).progress?.message === `pid ${a!.pid} runs kill-idem` && (await getRun(plain.runId)).progress?.message === `pid ${a!.pid} runs kill-plain`, {
      timeoutMs: 60_000,
      message: 'both runs to report progress from replica A',
    });
    const b = await startReplica(2);
    await waitFor(async () => (await replicasSeen()) === 2, { timeoutMs: 30_000, message: 'the dispatcher to see replica B' });
    await a!.kill('SIGKILL');

    const ended = (r: { state: RunState }) => r.state !== RunState.RUN_STATE_QUEUED && r.state !== RunState.RUN_STATE_RUNNING;
    await waitFor(async () => ended(await getRun(plain.runId)), { timeoutMs: 60_000, message: 'the non-idempotent run to end' }).catch((err: Error) => {
      throw new Error(`${err.message}; the dispatcher said:\n${dispatcher.output().slice(-6000)}`);
    });
    const unknown = await getRun(plain.runId);
    expect(unknown.state).toBe(RunState.RUN_STATE_UNKNOWN);
    expect(unknown.error!.message).toContain('adapter replica running');
    expect(unknown.error!.message).toContain('may or may not have run');
    expect(unknown.result).toBeUndefined();

    await waitFor(async () => ended(await getRun(idem.runId)), { timeoutMs: 60_000, message: 'the idempotent run to end' });
    const done = await getRun(idem.runId);
    expect(done.state).toBe(RunState.RUN_STATE_SUCCEEDED);
    expect(done.result!.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(done.result!.structured).toEqual({ label: 'kill-idem', pid: b.pid });
    expect(done.result!.attempts).toBeGreaterThanOrEqual(2); // A's attempt, then B's
    // Never run again behind the caller's back: B never started the non-idempotent call.
    expect(b.output()).toContain(`start kill-idem on pid ${b.pid}`);
    expect(b.output()).not.toContain('start kill-plain');
    expect(a!.output()).toContain(`start kill-plain on pid ${a!.pid}`);
  });

  it('a run whose record was written but never queued (a dispatcher crash between the two) is queued again and runs', async () => {
    // Only replicas that finish calls (A, which holds them, is gone once the first test ran).
    const [a] = replicas;
    if (a!.child.exitCode === null && a!.child.signalCode === null) await a!.kill('SIGKILL');
    if (replicas.filter((r) => r !== a).length === 0) await startReplica(2);
    // A is dead (its NATS subscription gone), so calls reach the live replica whatever the dispatcher's list still shows.
    await waitFor(async () => (await replicasSeen()) >= 1, { timeoutMs: 30_000, message: 'the dispatcher to know a replica' });
    // A real run gives the record's shape and this caller's principal; the copy gets a new id and
    // is written straight to the store, with no queue message: what a crash after the write leaves.
    const template = (await client.startRun(call('long_idempotent', 'template'))).run!;
    await waitFor(async () => (await getRun(template.runId)).state === RunState.RUN_STATE_SUCCEEDED, { timeoutMs: 60_000, message: 'the template run to succeed' });
    const mongo = new MongoClient(await mongoUrl(), { serverSelectionTimeoutMS: 10_000 });
    await mongo.connect();
    try {
      const runs = mongo.db(DB).collection<Record<string, unknown> & { _id: string }>('runs');
      const stored = (await runs.findOne({ _id: template.runId }))!;
      const id = `run_${Date.now().toString(36).padStart(10, '0')}${randomBytes(8).toString('hex')}`;
      await runs.insertOne({
        ...stored,
        _id: id,
        argumentsJson: JSON.stringify({ label: 'crash-gap' }),
        state: 'queued',
        attempts: 0,
        rev: 0,
        queuedUnixMs: Date.now(),
        startedUnixMs: 0,
        finishedUnixMs: 0,
        expiresUnixMs: 0,
        owner: '',
        result: '',
        error: '',
        progress: null,
        logs: [],
      });
      expect((await getRun(id)).state).toBe(RunState.RUN_STATE_QUEUED);
      await waitFor(async () => (await getRun(id)).state === RunState.RUN_STATE_SUCCEEDED, { timeoutMs: 60_000, message: 'the run left queued to be queued again and succeed' }).catch((err: Error) => {
        throw new Error(`${err.message}; the dispatcher said:\n${dispatcher.output().slice(-4000)}`);
      });
      expect((await getRun(id)).result!.structured).toMatchObject({ label: 'crash-gap' });
      expect(dispatcher.output()).toMatch(/queued async runs again that stayed queued too long/);
      expect((await runs.findOne({ _id: id }))!['requeuedUnixMs']).toBeGreaterThan(0);
    } finally {
      await mongo.close();
    }
  });
});
