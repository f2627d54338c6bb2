/**
 * Batch benchmark (issue 35): 10 calls in 3 dependency levels of a tool that waits (level maxima
 * 400 + 500 + 600 = 1,500 ms; all ten 3,000 ms; longest dependency chain 1,300 ms), run three ways through the dispatcher: one RunTools
 * batch; the same calls as ten RunTool calls one after another (what an agent without batches does);
 * and by hand in levels (each level's RunTool calls in parallel, then the next: three round trips).
 * Prints a table and writes bench/results/batch.json. A script, not a timed test:
 *
 *   npm run bench -- batch      (builds the apps and this bench, runs node dist/bench/batch/batch.bench.js)
 *
 * NATS_URL uses a running nats-server; without it a private one is started. The dispatcher
 * (dist/apps/dispatcher/main.js) and the adapter (dist/bench/batch/sleep-adapter.js) run as their own
 * processes; this process is the agent.
 */
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { type BatchCall, BatchCallState, RunStatus, type RunToolRequest, type RunToolResponse, type RunToolsRequest, type RunToolsResponse, ToolHubClient } from '@toolhub/contracts';
import { freePort, repoRoot, spawnProcess, type SpawnedProcess, startNatsServer } from '@toolhub/test-harness';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, resolve } from 'node:path';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/batch.json');
const ROUNDS = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 5));
const PROVIDER = 'benchsleep';

/** Sleep of each call (ms), by level; each call of a level reads an output of the level before. */
const LEVELS: Array<Record<string, number>> = [
  { a0: 100, a1: 200, a2: 300, a3: 400 },
  { b0: 300, b1: 500, b2: 200 },
  { c0: 150, c1: 250, c2: 600 },
];
const DEPS: Record<string, string> = { b0: 'a0', b1: 'a1', b2: 'a3', c0: 'b0', c1: 'b2', c2: 'b1' };
const IDEAL_MS = LEVELS.reduce((s, l) => s + Math.max(...Object.values(l)), 0);
/** The longest chain of dependencies: a batch starts each call as soon as what it reads has ended, so this is its floor. */
const SLEEP_OF: Record<string, number> = Object.assign({}, ...LEVELS);
const finishAt = (id: string): number => SLEEP_OF[id]! + (DEPS[id] ? finishAt(DEPS[id]!) : 0);
const CRITICAL_PATH_MS = Math.max(...Object.keys(SLEEP_OF).map(finishAt));
const SEQUENTIAL_MS = LEVELS.reduce((s, l) => s + Object.values(l).reduce((x, y) => x + y, 0), 0);

const batchCalls = (): BatchCall[] =>
  LEVELS.flatMap((level) =>
    Object.entries(level).map(([id, ms]) => ({
      id,
      provider: PROVIDER,
      name: 'sleep',
      arguments: { ms, value: DEPS[id] ? { $ref: `#/calls/${DEPS[id]}/structured/value` } : id },
      timeoutMs: 10_000,
      idempotencyKey: '',
      expectedVersion: '',
      after: [],
    })),
  );

const runReq = (ms: number, value: unknown): RunToolRequest => ({ provider: PROVIDER, name: 'sleep', arguments: { ms, value }, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: 'bench', searchId: '' });

function unary<Req, Res>(client: ToolHubClient, method: 'runTool' | 'runTools', req: Req): Promise<Res> {
  return new Promise((ok, fail) => {
    const fn = (client as unknown as Record<string, (...a: unknown[]) => void>)[method]!.bind(client);
    fn(req, new Metadata(), { deadline: new Date(Date.now() + 30_000) }, (err: ServiceError | null, res: Res) => (err ? fail(err) : ok(res)));
  });
}

async function runBatchOnce(client: ToolHubClient): Promise<number> {
  const t0 = performance.now();
  const res = await unary<RunToolsRequest, RunToolsResponse>(client, 'runTools', { calls: batchCalls(), maxParallel: 0, caller: 'bench', searchId: '' });
  const ms = performance.now() - t0;
  const bad = res.results.filter((r) => r.state !== BatchCallState.BATCH_CALL_STATE_OK);
  if (bad.length) throw new Error(`batch calls failed: ${bad.map((r) => `${r.id}: ${r.error?.message}`).join('; ')}`);
  return ms;
}

/** Ten RunTool calls one after another, each reading the output it needs from the answers before. */
async function runSequentialOnce(client: ToolHubClient): Promise<number> {
  const out = new Map<string, unknown>();
  const t0 = performance.now();
  for (const level of LEVELS) {
    for (const [id, ms] of Object.entries(level)) {
      const res = await unary<RunToolRequest, RunToolResponse>(client, 'runTool', runReq(ms, DEPS[id] ? out.get(DEPS[id]!) : id));
      if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error(`${id} failed`);
      out.set(id, (res.structured as { value: unknown }).value);
    }
  }
  return performance.now() - t0;
}

/** Each level's calls in parallel, then the next level: what an agent can do by hand in three round trips. */
async function runByLevelsOnce(client: ToolHubClient): Promise<number> {
  const out = new Map<string, unknown>();
  const t0 = performance.now();
  for (const level of LEVELS) {
    await Promise.all(
      Object.entries(level).map(async ([id, ms]) => {
        const res = await unary<RunToolRequest, RunToolResponse>(client, 'runTool', runReq(ms, DEPS[id] ? out.get(DEPS[id]!) : id));
        if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error(`${id} failed`);
        out.set(id, (res.structured as { value: unknown }).value);
      }),
    );
  }
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r1 = (n: number): number => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const ownNats = process.env['NATS_URL'] ? undefined : await startNatsServer();
  const natsUrl = process.env['NATS_URL'] ?? ownNats!.url;
  const children: SpawnedProcess[] = [];
  let client: ToolHubClient | undefined;
  try {
    const port = await freePort();
    const [adapter, dispatcher] = await Promise.all([
      spawnProcess(process.execPath, ['dist/bench/batch/sleep-adapter.js'], { cwd: ROOT, env: { NATS_URL: natsUrl }, readyPattern: /sleep adapter ready/, timeoutMs: 60_000 }),
      spawnProcess(process.execPath, ['dist/apps/dispatcher/main.js'], {
        cwd: ROOT,
        env: { NATS_URL: natsUrl, TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0', LOG_LEVEL: 'info' },
        readyPattern: /dispatcher listening/,
        timeoutMs: 60_000,
      }),
    ]);
    children.push(adapter, dispatcher);
    client = new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure());
    // The dispatcher finds the adapter by its heartbeat; one warm-up of each way also fills the caches.
    const until = Date.now() + 30_000;
    for (;;) {
      try {
        await runBatchOnce(client);
        break;
      } catch (err) {
        if (Date.now() > until) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await runSequentialOnce(client);
    await runByLevelsOnce(client);
    const samples = { batch: [] as number[], byLevels: [] as number[], sequential: [] as number[] };
    // Interleaved rounds, so a change of load falls on every way alike.
    for (let i = 0; i < ROUNDS; i++) {
      samples.batch.push(await runBatchOnce(client));
      samples.byLevels.push(await runByLevelsOnce(client));
      samples.sequential.push(await runSequentialOnce(client));
      process.stderr.write(`  round ${i + 1}/${ROUNDS}: batch ${r1(samples.batch.at(-1)!)} ms, by levels ${r1(samples.byLevels.at(-1)!)} ms, sequential ${r1(samples.sequential.at(-1)!)} ms\n`);
    }
    const rows = [
      { way: 'RunTools batch (1 request)', medianMs: r1(median(samples.batch)), minMs: r1(Math.min(...samples.batch)), maxMs: r1(Math.max(...samples.batch)) },
      { way: 'RunTool by levels (3 round trips)', medianMs: r1(median(samples.byLevels)), minMs: r1(Math.min(...samples.byLevels)), maxMs: r1(Math.max(...samples.byLevels)) },
      { way: 'RunTool one by one (10 round trips)', medianMs: r1(median(samples.sequential)), minMs: r1(Math.min(...samples.sequential)), maxMs: r1(Math.max(...samples.sequential)) },
    ];
    const head = ['way', 'median ms', 'min ms', 'max ms'];
    const body = rows.map((r) => [r.way, String(r.medianMs), String(r.minMs), String(r.maxMs)]);
    const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
    const line = (cells: string[]) => `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
    process.stdout.write(
      [
        `10 calls in 3 levels; sum of each level's slowest call ${IDEAL_MS} ms, sum of all ten ${SEQUENTIAL_MS} ms; ${ROUNDS} rounds`,
        line(head),
        `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
        ...body.map(line),
        `longest dependency chain ${CRITICAL_PATH_MS} ms (a batch starts a call as soon as what it reads has ended, not when its whole level has): batch over it ${r1(rows[0]!.medianMs - CRITICAL_PATH_MS)} ms; by levels over the sum of level maxima ${r1(rows[1]!.medianMs - IDEAL_MS)} ms (medians)`,
        '',
      ].join('\n'),
    );
    const result = {
      bench: 'batch',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      nats: ownNats ? 'private nats-server started by the script' : 'NATS_URL',
      rounds: ROUNDS,
      sumOfLevelSlowestMs: IDEAL_MS,
      sumOfAllCallsMs: SEQUENTIAL_MS,
      criticalPathMs: CRITICAL_PATH_MS,
      rows,
      batchOverCriticalPathMs: r1(rows[0]!.medianMs - CRITICAL_PATH_MS),
      samples,
    };
    mkdirSync(dirname(OUT), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    client?.close();
    for (const c of children) await c.kill('SIGTERM');
    await ownNats?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`batch bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
