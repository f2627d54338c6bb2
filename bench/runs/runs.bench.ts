/**
 * Async-runs benchmark (issue 35), built JavaScript with real NATS (JetStream queue TOOLHUB_RUNS)
 * and MongoDB (run records; FerretDB when MONGO_URL is not set):
 *
 * 1. Overhead of an async short call against a synchronous one: RunTool of a 0 ms tool vs StartRun
 *    followed by WatchRun to the final update (the result in hand), vs StartRun then GetRun polled
 *    every 10 ms. Sequential calls, interleaved, medians and p95.
 * 2. 10,000 queued runs (BENCH_RUNS) of a 20 ms idempotent tool, started as fast as the API takes
 *    them; the dispatcher is killed (SIGKILL) once a third have ended and a new one started: every
 *    run must end (none left queued or running, none missing), the in-flight ones run again. The
 *    dispatchers' RSS is sampled throughout (bounded memory: records live in MongoDB and the queue in
 *    JetStream, not in the dispatcher).
 *
 *   npm run bench -- runs        (prints tables, writes bench/results/runs.json)
 */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { RunState, RunStatus, type RunToolRequest, ToolHubClient, type WatchRunResponse } from '@toolhub/contracts';
import { freePort, mongoUrl, natsUrl, repoRoot, spawnProcess, type SpawnedProcess, stopSharedServers } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/runs.json');
const CALLS = Math.max(10, Number(process.env['BENCH_CALLS'] ?? 300));
const RUNS = Math.max(100, Number(process.env['BENCH_RUNS'] ?? 10_000));
const PROVIDER = 'benchruns';
const DB = `bench_runs_${randomUUID().slice(0, 8)}`;

const req = (ms: number, value: unknown): RunToolRequest => ({ provider: PROVIDER, name: 'sleep', arguments: { ms, value }, timeoutMs: 30_000, idempotencyKey: '', expectedVersion: '', caller: 'bench', searchId: '' });

function unary<Res>(client: ToolHubClient, method: string, request: unknown): Promise<Res> {
  return new Promise((ok, fail) => {
    const fn = (client as unknown as Record<string, (...a: unknown[]) => void>)[method]!.bind(client);
    fn(request, new Metadata(), { deadline: new Date(Date.now() + 60_000) }, (err: ServiceError | null, res: Res) => (err ? fail(err) : ok(res)));
  });
}

function watchToEnd(client: ToolHubClient, runId: string): Promise<WatchRunResponse> {
  return new Promise((ok, fail) => {
    let last: WatchRunResponse | undefined;
    const stream = client.watchRun({ runId }, new Metadata(), { deadline: new Date(Date.now() + 60_000) });
    stream.on('data', (u: WatchRunResponse) => (last = u));
    stream.on('error', fail);
    stream.on('end', () => (last?.final ? ok(last) : fail(new Error(`watch of ${runId} ended without a final update`))));
  });
}

const rssMiB = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : NaN;
};
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const r1 = (n: number): number => Math.round(n * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((b) => b[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const nats = await natsUrl();
  const mongo = await mongoUrl();
  const db = new MongoClient(mongo);
  await db.connect();
  const runs = db.db(DB).collection<{ _id: string; state: string; attempts: number; queuedUnixMs: number; startedUnixMs: number; finishedUnixMs: number }>('runs');
  const children: SpawnedProcess[] = [];
  const clients: ToolHubClient[] = [];
  const port = await freePort();
  const startDispatcher = async () => {
    const d = await spawnProcess(process.execPath, ['dist/apps/dispatcher/main.js'], {
      cwd: ROOT,
      env: { NATS_URL: nats, MONGO_URL: mongo, TOOLHUB_MONGO_DB: DB, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_RUN_CONCURRENCY: '16', TOOLHUB_RUN_ACK_WAIT: '2s', TOOLHUB_RUN_MAX_QUEUED_PER_PRINCIPAL: String(RUNS * 2), TOOLHUB_RUN_MAX_QUEUED: String(RUNS * 2), LOG_LEVEL: 'info' },
      readyPattern: /dispatcher listening/,
      timeoutMs: 60_000,
    });
    children.push(d);
    const started = Date.now();
    while (!/async runs on/.test(d.output())) {
      if (Date.now() - started > 30_000) throw new Error(`async runs did not come on:\n${d.output()}`);
      await sleep(100);
    }
    const client = new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure());
    clients.push(client);
    return { proc: d, client };
  };
  try {
    const adapter = await spawnProcess(process.execPath, ['dist/bench/runs/runs-adapter.js'], { cwd: ROOT, env: { NATS_URL: nats }, readyPattern: /runs adapter ready/, timeoutMs: 60_000 });
    children.push(adapter);
    let { proc: dispatcher, client } = await startDispatcher();
    for (const until = Date.now() + 30_000; ; ) {
      try {
        await unary(client, 'runTool', req(0, 'warm'));
        break;
      } catch (err) {
        if (Date.now() > until) throw err;
        await sleep(200);
      }
    }

    // 1. Overhead: sync vs async (start + watch, start + polled get), interleaved.
    const samples = { sync: [] as number[], startWatch: [] as number[], startPoll: [] as number[] };
    for (let i = 0; i < CALLS; i++) {
      let t0 = performance.now();
      const res = await unary<{ status: RunStatus }>(client, 'runTool', req(0, i));
      if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error('sync call failed');
      samples.sync.push(performance.now() - t0);
      t0 = performance.now();
      const a = await unary<{ run: { runId: string } }>(client, 'startRun', { call: req(0, i) });
      const end = await watchToEnd(client, a.run.runId);
      if (end.run?.state !== RunState.RUN_STATE_SUCCEEDED) throw new Error('async call failed');
      samples.startWatch.push(performance.now() - t0);
      t0 = performance.now();
      const b = await unary<{ run: { runId: string } }>(client, 'startRun', { call: req(0, i) });
      for (;;) {
        const got = await unary<{ run: { state: RunState } }>(client, 'getRun', { runId: b.run.runId });
        if (got.run.state === RunState.RUN_STATE_SUCCEEDED) break;
        if (got.run.state !== RunState.RUN_STATE_QUEUED && got.run.state !== RunState.RUN_STATE_RUNNING) throw new Error('async call failed');
        await sleep(10);
      }
      samples.startPoll.push(performance.now() - t0);
    }
    const overhead = [
      { way: 'RunTool (sync)', ...stats(samples.sync) },
      { way: 'StartRun + WatchRun to the end', ...stats(samples.startWatch) },
      { way: 'StartRun + GetRun every 10 ms', ...stats(samples.startPoll) },
    ];
    process.stdout.write(`\nAsync overhead: ${CALLS} sequential calls of a 0 ms tool each way (interleaved)\n`);
    process.stdout.write(`${table(['way', 'p50 ms', 'p95 ms', 'mean ms'], overhead.map((r) => [r.way, String(r.p50), String(r.p95), String(r.mean)]))}\n`);

    // 2. 10,000 queued runs across a dispatcher kill.
    const rss: Array<{ t: number; pid: number; mib: number }> = [];
    const t0 = Date.now();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const c of children.slice(1)) if (c.child.exitCode === null && c.child.signalCode === null) rss.push({ t: Date.now() - t0, pid: c.pid, mib: rssMiB(c.pid) });
        await sleep(500);
      }
    })();
    let next = 0;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < RUNS) {
          const i = next++;
          const r = await unary<{ run: { runId: string } }>(client, 'startRun', { call: req(20, i) });
          ids.push(r.run.runId);
        }
      }),
    );
    const startedAllMs = Date.now() - t0;
    // The runs of this part only (the overhead part's runs were queued before t0).
    const ended = () => runs.countDocuments({ queuedUnixMs: { $gte: t0 }, state: { $in: ['succeeded', 'failed', 'cancelled', 'unknown'] } });
    while ((await ended()) < RUNS / 3) {
      if (dispatcher.child.exitCode !== null) throw new Error(`the dispatcher exited:\n${dispatcher.output().slice(-4000)}`);
      await sleep(200);
    }
    const atKill = await ended();
    const killedAtMs = Date.now() - t0;
    await dispatcher.kill('SIGKILL');
    ({ proc: dispatcher, client } = await startDispatcher());
    const restartedAtMs = Date.now() - t0;
    const deadline = Date.now() + 10 * 60_000;
    while ((await ended()) < RUNS) {
      if (Date.now() > deadline || dispatcher.child.exitCode !== null) break;
      await sleep(500);
    }
    const doneMs = Date.now() - t0;
    if ((await ended()) < RUNS) process.stderr.write(`not every run ended; the dispatcher said:\n${dispatcher.output().slice(-4000)}\n`);
    sampling = false;
    await sampler;
    const byState: Record<string, number> = {};
    for (const d of await runs.find({ queuedUnixMs: { $gte: t0 } }, { projection: { state: 1 } }).toArray()) byState[d.state] = (byState[d.state] ?? 0) + 1;
    const retried = await runs.countDocuments({ queuedUnixMs: { $gte: t0 }, attempts: { $gt: 1 } });
    const mine = new Set(ids);
    const stored = await runs.find({ queuedUnixMs: { $gte: t0 } }, { projection: { _id: 1, queuedUnixMs: 1, startedUnixMs: 1 } }).toArray();
    const storedIds = new Set(stored.map((s) => s._id));
    const missing = ids.filter((id) => !storedIds.has(id)).length;
    const waits = stored.filter((s) => mine.has(s._id) && s.startedUnixMs).map((s) => s.startedUnixMs - s.queuedUnixMs);
    const first = rss.filter((s) => s.t < killedAtMs);
    const second = rss.filter((s) => s.t >= restartedAtMs);
    const queued = {
      runs: RUNS,
      startedAllMs,
      endedAtKill: atKill,
      killedAtMs,
      restartedAtMs,
      doneMs,
      byState,
      retried,
      missing,
      notEnded: RUNS - (await ended()),
      queueWaitMs: { p50: pct(waits, 50), p95: pct(waits, 95), max: Math.max(...waits) },
      dispatcherRssMiB: { firstMax: Math.max(...first.map((s) => s.mib)), firstLast: first.at(-1)?.mib, secondMax: Math.max(...second.map((s) => s.mib)), secondLast: second.at(-1)?.mib },
    };
    process.stdout.write(`\n${RUNS} queued runs of a 20 ms idempotent tool; dispatcher SIGKILLed after ${atKill} ended, a new one started\n`);
    process.stdout.write(
      `${table(
        ['measure', 'value'],
        [
          ['all StartRun answered after', `${startedAllMs} ms`],
          ['killed at / new dispatcher at', `${killedAtMs} / ${restartedAtMs} ms`],
          ['every run ended after', `${doneMs} ms`],
          ['runs by state', JSON.stringify(byState)],
          ['runs run again (attempts > 1)', String(retried)],
          ['missing / not ended', `${missing} / ${queued.notEnded}`],
          ['queue wait p50 / p95 / max', `${queued.queueWaitMs.p50} / ${queued.queueWaitMs.p95} / ${queued.queueWaitMs.max} ms`],
          ['dispatcher RSS max (first / after restart)', `${queued.dispatcherRssMiB.firstMax} / ${queued.dispatcherRssMiB.secondMax} MiB`],
        ],
      )}\n`,
    );
    const result = { bench: 'runs', date: new Date().toISOString(), machine: { cpus: cpus().length, node: process.version }, calls: CALLS, overhead, queued, rss, samples };
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    for (const c of clients) c.close();
    for (const c of children) await c.kill('SIGTERM');
    await db.db(DB).dropDatabase().catch(() => undefined);
    await db.close();
    await stopSharedServers();
  }
}

function stats(xs: number[]): { p50: number; p95: number; mean: number } {
  return { p50: r1(pct(xs, 50)), p95: r1(pct(xs, 95)), mean: r1(xs.reduce((a, b) => a + b, 0) / xs.length) };
}

main().catch((err: unknown) => {
  process.stderr.write(`runs bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
