/**
 * CPU cost of issue 31's checks on an ordinary RunTool: two built one-process apps side by side,
 * this branch's and a build of another tree (e.g. main), each with API keys, measured in
 * interleaved rounds (the order alternates each round, so machine load hits both alike, as in
 * bench/auth). Per round: closed-loop RunTool of `time_now` at concurrency 8; the app process's CPU
 * time (user + system from /proc) per answered call is the figure. Prints a table and writes
 * bench/results/attacks-checks-cpu.json.
 *
 *   git archive main | tar -x -C /tmp/main && (cd /tmp/main && ln -s $PWD/node_modules && cp -r libs/contracts/src/gen … && node scripts/build.mjs apps/toolhub src/main.ts)
 *   node scripts/build.mjs apps/toolhub src/main.ts && node scripts/build.mjs bench/attacks checks-cpu.bench.ts
 *   BASE_APP=/tmp/main/dist/apps/toolhub/main.js node dist/bench/attacks/checks-cpu.bench.js
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { hashApiKey } from '@toolhub/auth';
import { ToolHubClient } from '@toolhub/contracts';
import { freePort, repoRoot, scratchDir, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/attacks-checks-cpu.json');
const BASE_APP = process.env['BASE_APP'];
/** The build measured against BASE_APP. @default this tree's */
const BRANCH_APP = process.env['BRANCH_APP'] ?? 'dist/apps/toolhub/main.js';
/** Extra node flags for both apps, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where each spends its CPU. */
const NODE_ARGS = (process.env['CHECKS_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 8);
const ROUND_MS = Number(process.env['BENCH_ROUND_MS'] ?? 3000);
const CONCURRENCY = 8;
const KEY = 'checks-cpu-bench-key-0123456789';
const TICK_US = 1e6 / 100; // /proc/<pid>/stat times are in clock ticks (USER_HZ = 100 on Linux)

const log = (msg: string): void => void process.stderr.write(`${msg}\n`);

function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime
}

interface Variant {
  name: string;
  app: SpawnedProcess;
  client: ToolHubClient;
  rounds: Array<{ calls: number; cpuUsPerCall: number }>;
}

async function start(name: string, script: string): Promise<Variant> {
  const dataDir = scratchDir(`checks-cpu-${name}`);
  mkdirSync(dataDir, { recursive: true });
  const keys = join(dataDir, 'api-keys.json');
  writeFileSync(keys, JSON.stringify({ keys: [{ name: 'bench', sha256: hashApiKey(KEY), roles: ['agent'] }] }));
  const port = await freePort();
  const app = await spawnProcess(process.execPath, [...NODE_ARGS, script], {
    cwd: ROOT,
    env: { TOOLHUB_GRPC_PORT: String(port), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: '0', TOOLHUB_DATA_DIR: dataDir, TOOLHUB_MCP: 'false', TOOLHUB_CLOUD: 'false', TOOLHUB_AUTH_API_KEYS: keys, LOG_LEVEL: 'warn' },
    readyPattern: /ToolHub is running/,
    timeoutMs: 120_000,
  });
  return { name, app, client: new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure()), rounds: [] };
}

async function round(v: Variant, ms: number, record: boolean): Promise<void> {
  const md = new Metadata();
  md.set('authorization', `Bearer ${KEY}`);
  const req = { provider: 'local', name: 'time_now', arguments: { timeZone: 'UTC' }, timeoutMs: 5000, idempotencyKey: '', expectedVersion: '', caller: 'bench', searchId: '' };
  const one = () => new Promise<void>((res, rej) => v.client.runTool(req, md, { deadline: Date.now() + 10_000 }, (err) => (err ? rej(err) : res())));
  const before = cpuUs(v.app.pid);
  const end = Date.now() + ms;
  let calls = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        await one();
        calls++;
      }
    }),
  );
  if (record) v.rounds.push({ calls, cpuUsPerCall: (cpuUs(v.app.pid) - before) / calls });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  if (!BASE_APP) throw new Error('Set BASE_APP to the main.js of the build to compare with (see the header).');
  const variants = [await start('base', BASE_APP), await start('branch', BRANCH_APP)];
  try {
    for (const v of variants) await round(v, 2000, false); // warm up
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) await round(v, ROUND_MS, true);
    }
  } finally {
    for (const v of variants) {
      v.client.close();
      await v.app.kill();
    }
  }
  const rows = variants.map((v) => ({
    variant: v.name,
    rounds: v.rounds.length,
    calls: v.rounds.reduce((a, r) => a + r.calls, 0),
    cpuUsPerCallMedian: Math.round(median(v.rounds.map((r) => r.cpuUsPerCall))),
    cpuUsPerCallMin: Math.round(Math.min(...v.rounds.map((r) => r.cpuUsPerCall))),
    cpuUsPerCallMax: Math.round(Math.max(...v.rounds.map((r) => r.cpuUsPerCall))),
  }));
  console.table(rows);
  const ratio = rows[1]!.cpuUsPerCallMedian / rows[0]!.cpuUsPerCallMedian;
  const result = { benchmark: 'attacks-checks-cpu', date: new Date().toISOString(), cpus: cpus().length, loadavg: loadavg().map((x) => Math.round(x * 100) / 100), base: BASE_APP, rows, branchOverBase: Math.round(ratio * 1000) / 1000, perRound: variants.map((v) => ({ variant: v.name, rounds: v.rounds })) };
  log(`branch / base CPU per call (median): ${result.branchOverBase}`);
  mkdirSync(resolve(OUT, '..'), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${OUT}`);
}

main().catch((err: unknown) => {
  log(String((err as Error).stack ?? err));
  process.exit(1);
});
