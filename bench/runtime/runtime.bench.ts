/**
 * Runtime benchmark: each app as production runs it (`node dist/apps/<app>/main.js`, the esbuild
 * bundle) against the development way (`npx tsx apps/<app>/src/main.ts`): time from spawn to ready
 * (its /readyz answers 200: the readiness checks of libs/ops pass), resident memory of the whole
 * process tree idle, and its peak under load (RunTool calls through the dispatcher to adapter-local).
 * Prints a table and writes bench/results/runtime.json. A script, not a timed test:
 *
 *   npx tsx bench/runtime/runtime.bench.ts        # BENCH_CALLS (default 2000), BENCH_CONCURRENCY (32)
 *
 * Private nats-server, Redis and FerretDB are started (test-harness) unless NATS_URL/REDIS_URL/MONGO_URL are set.
 */
import { connectClient } from '../../libs/dispatcher-core/test/support/grpc-client';
import { childrenOf, freePort, mongoUrl, redisUrl, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, repoRoot } from '@toolhub/test-harness';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/runtime.json');
const CALLS = Number(process.env['BENCH_CALLS'] ?? 2000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 32);
const APPS = ['registry', 'adapter-local', 'adapter-mcp', 'adapter-cloud', 'dispatcher'] as const;
type App = (typeof APPS)[number];
type Mode = 'node dist' | 'npx tsx';

interface Row {
  app: App;
  mode: Mode;
  readyMs: number;
  rssIdleMiB: number;
  rssLoadMiB: number;
  processes: number;
}

/** Resident set of a process and all its descendants, in KiB, and how many processes that is. */
function treeRss(pid: number): { kib: number; processes: number } {
  let kib = 0;
  let processes = 0;
  const visit = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      kib += Number(m?.[1] ?? 0);
      processes++;
    } catch {
      return; // exited meanwhile
    }
    for (const c of childrenOf(p)) visit(c.pid);
  };
  visit(pid);
  return { kib, processes };
}

async function waitReady(url: string, proc: SpawnedProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms: ${url}\n${proc.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function runMode(mode: Mode, env: Record<string, string>): Promise<Row[]> {
  const procs = new Map<App, { proc: SpawnedProcess; readyMs: number; metricsPort: number }>();
  const grpcPort = await freePort();
  const root = scratchDir('bench-runtime-files');
  try {
    for (const app of APPS) {
      const metricsPort = await freePort();
      const appEnv = { ...env, TOOLHUB_METRICS_PORT: String(metricsPort), TOOLHUB_HEALTH_PORT: '0', TOOLHUB_GRPC_PORT: String(grpcPort), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: String(await freePort()), TOOLHUB_LOCAL_ROOT: root, LOG_LEVEL: 'warn' };
      const [cmd, args] = mode === 'node dist' ? [process.execPath, [`dist/apps/${app}/main.js`]] : ['npx', ['tsx', `apps/${app}/src/main.ts`]];
      const started = performance.now();
      const proc = await spawnProcess(cmd, args, { cwd: ROOT, env: appEnv });
      await waitReady(`http://127.0.0.1:${metricsPort}/readyz`, proc);
      procs.set(app, { proc, readyMs: Math.round(performance.now() - started), metricsPort });
      process.stderr.write(`  ${mode} ${app}: ready in ${procs.get(app)!.readyMs} ms\n`);
    }
    await new Promise((r) => setTimeout(r, 3000));
    const idle = new Map(APPS.map((a) => [a, treeRss(procs.get(a)!.proc.pid)]));

    const peak = new Map(APPS.map((a) => [a, 0]));
    const sampler = setInterval(() => {
      for (const a of APPS) peak.set(a, Math.max(peak.get(a)!, treeRss(procs.get(a)!.proc.pid).kib));
    }, 200);
    const client = connectClient(`127.0.0.1:${grpcPort}`);
    let next = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CALLS) {
          const i = next++;
          await client.runTool({ provider: 'local', name: 'time_now', arguments: {}, caller: `bench-${i % 8}` }, { deadlineMs: 60_000 }).catch(() => failed++);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    for (const a of APPS) peak.set(a, Math.max(peak.get(a)!, treeRss(procs.get(a)!.proc.pid).kib));
    client.close();
    process.stderr.write(`  ${mode}: ${CALLS} RunTool calls in ${seconds.toFixed(1)} s (${Math.round(CALLS / seconds)}/s, ${failed} failed)\n`);
    return APPS.map((app) => ({
      app,
      mode,
      readyMs: procs.get(app)!.readyMs,
      rssIdleMiB: Math.round(idle.get(app)!.kib / 1024),
      rssLoadMiB: Math.round(peak.get(app)! / 1024),
      processes: idle.get(app)!.processes,
    }));
  } finally {
    // `npx tsx` is a tree (npm, shell, tsx, node): the wrapper exiting does not end the app, so
    // every descendant is collected first and killed after the graceful stop.
    const descendants = (pid: number): number[] => childrenOf(pid).flatMap((c) => [c.pid, ...descendants(c.pid)]);
    const trees = [...procs.values()].map((p) => descendants(p.proc.pid));
    await Promise.all([...procs.values()].map((p) => p.proc.kill('SIGTERM')));
    for (const pid of trees.flat()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

function table(rows: Row[]): string {
  const head = ['app', 'runtime', 'processes', 'time to ready ms', 'RSS idle MiB', `RSS peak under load MiB`];
  const body = rows.map((r) => [r.app, r.mode, String(r.processes), String(r.readyMs), String(r.rssIdleMiB), String(r.rssLoadMiB)]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, c) => (c < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build-apps.mjs', ...APPS], { cwd: ROOT, stdio: 'inherit' });
  const nats = process.env['NATS_URL'] ? undefined : await startNatsServer();
  const env = { NATS_URL: process.env['NATS_URL'] ?? nats!.url, REDIS_URL: await redisUrl(), MONGO_URL: await mongoUrl() };
  const rows: Row[] = [];
  for (const mode of ['node dist', 'npx tsx'] as const) {
    // A fresh database and consumer per mode: the registry's work is the same in both.
    const run = `${Date.now()}`;
    rows.push(...(await runMode(mode, { ...env, TOOLHUB_MONGO_DB: `bench_runtime_${run}`, TOOLHUB_STATS_CONSUMER: `bench_runtime_${run}` })));
  }
  rows.sort((a, b) => APPS.indexOf(a.app) - APPS.indexOf(b.app));
  process.stdout.write(`\n${table(rows)}\n\nLoad: ${CALLS} RunTool calls (local time_now) at concurrency ${CONCURRENCY} through the dispatcher.\n`);
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(
    OUT,
    `${JSON.stringify({ when: new Date().toISOString(), node: process.version, cpus: cpus().length, memMiB: Math.round(totalmem() / 2 ** 20), calls: CALLS, concurrency: CONCURRENCY, rows }, null, 2)}\n`,
  );
  await nats?.stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
