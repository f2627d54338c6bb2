/**
 * Containment benchmark (issue 10, "What must show"): while a 1 MB text call and catastrophic
 * regexes run, do concurrent health checks and RunTool calls of other tools stay within 100 ms
 * p99, and do the bad calls end at their deadline?
 *
 *   node scripts/build-apps.mjs adapter-local dispatcher
 *   node scripts/build.mjs bench/containment containment.bench.ts && node dist/bench/containment/containment.bench.js
 *
 * Processes, as deployed: nats-server, the built adapter-local and dispatcher (plain node on the
 * bundles), this script sending the light traffic, and a child of it (forked, so building and
 * encoding megabyte requests never delays a light call's send) sending the heavy calls. Phases:
 * baseline (light traffic alone), heavy (light traffic + a stream of heavy calls), after (light
 * alone again: has the pool recovered?). Light calls are open-loop: each kind is sent at a fixed
 * rate whatever the answers do, and latency counts from the scheduled send time, so a stall shows
 * in full instead of slowing the sender. Prints tables; writes bench/results/containment.json.
 */
import { Client, credentials, Metadata, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import { ErrorCode, ErrorInfo, errorCodeFromProto, GRPC_ERROR_TRAILER, RunStatus, type RunToolResponse, ToolHubClient } from '@toolhub/contracts';
import { freePort, repoRoot, spawnProcess, type SpawnedProcess, startNatsServer } from '@toolhub/test-harness';
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { heavyCases, LIGHT_KINDS } from './workloads';

const ROOT = repoRoot(__dirname);
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/containment.json');
const BASELINE_MS = env('BENCH_BASELINE_MS', 8000);
const HEAVY_MS = env('BENCH_HEAVY_MS', 20_000);
const AFTER_MS = env('BENCH_AFTER_MS', 5000);
/** Light calls per second, per kind. */
const LIGHT_RATE = env('BENCH_LIGHT_RATE', 20);
/** Heavy calls in flight at once (the adapter's pool has min(4, max(2, cores)) workers). */
const HEAVY_STREAMS = env('BENCH_HEAVY_STREAMS', 2);
const HEAVY_TIMEOUT_MS = env('BENCH_HEAVY_TIMEOUT_MS', 2000);
/** timeout_ms of the text_stats case meant to overrun its deadline; 0 leaves that case out. */
const SHORT_TIMEOUT_MS = env('BENCH_SHORT_TIMEOUT_MS', 250);
const TEXT_BYTES = env('BENCH_TEXT_BYTES', 1_000_000);
const REGEX_CHARS = env('BENCH_REGEX_CHARS', 100_000);
const AIM_P99_MS = 100;
/** A heavy call "ends at its deadline" when it answers no later than this after it. */
const DEADLINE_GRACE_MS = 250;
const LIGHT_DEADLINE_MS = 10_000;

interface Outcome {
  ok: boolean;
  /** 'ok', 'tool_error', or the gRPC status name plus the ToolHub code. */
  outcome: string;
}

/** One heavy call as the heavy client saw it. */
interface HeavyCall {
  kind: string;
  timeoutMs: number;
  startedAtMs: number;
  durationMs: number;
  outcome: string;
  message: string;
}

function outcomeOfError(err: ServiceError): Outcome {
  const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
  let code = '';
  if (bin instanceof Buffer) {
    try {
      const info = ErrorInfo.decode(bin);
      if (info.code !== ErrorCode.ERROR_CODE_UNSPECIFIED) code = ` ${errorCodeFromProto(info.code)}`;
    } catch {
      // no structured error: the status alone
    }
  }
  return { ok: false, outcome: `${GrpcStatus[err.code] ?? err.code}${code}` };
}

function runTool(client: ToolHubClient, name: string, args: Record<string, unknown>, timeoutMs: number, deadlineMs: number): Promise<Outcome & { message: string }> {
  const req = { provider: 'local', name, arguments: args, timeoutMs, idempotencyKey: '', expectedVersion: '', caller: 'containment-bench', searchId: '' };
  return new Promise((done) =>
    client.runTool(req, new Metadata(), { deadline: Date.now() + deadlineMs }, (err: ServiceError | null, res: RunToolResponse) => {
      if (err) done({ ...outcomeOfError(err), message: err.details ?? err.message });
      else if (res.status === RunStatus.RUN_STATUS_OK) done({ ok: true, outcome: 'ok', message: '' });
      else done({ ok: false, outcome: 'tool_error', message: res.error?.message ?? '' });
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The heavy client (a forked child of this script).

async function heavyChild(): Promise<void> {
  // Inputs are built before the clock starts; then the parent says where and how long.
  const cases = heavyCases(TEXT_BYTES, REGEX_CHARS, SHORT_TIMEOUT_MS);
  const started = new Promise<{ address: string; durationMs: number }>((ok) => process.once('message', ok as (m: unknown) => void));
  process.send!({ ready: true });
  const start = await started;
  const client = new ToolHubClient(start.address, credentials.createInsecure(), { 'grpc.max_send_message_length': 8 * 2 ** 20 });
  const calls: HeavyCall[] = [];
  const t0 = Date.now();
  const end = t0 + start.durationMs;
  let next = 0;
  const stream = async (): Promise<void> => {
    while (Date.now() < end) {
      const c = cases[next++ % cases.length]!;
      const began = Date.now();
      // The client's own deadline leaves room for the server's timeout answer, as @toolhub/agent-kit does.
      const timeoutMs = c.timeoutMs ?? HEAVY_TIMEOUT_MS;
      const r = await runTool(client, c.name, c.arguments, timeoutMs, timeoutMs + 2000);
      calls.push({ kind: c.kind, timeoutMs, startedAtMs: began - t0, durationMs: Date.now() - began, outcome: r.outcome, message: r.message.slice(0, 160) });
    }
  };
  await Promise.all(Array.from({ length: HEAVY_STREAMS }, stream));
  client.close();
  process.send!({ calls }, () => process.exit(0));
}

// ---------------------------------------------------------------------------------------------
// The light traffic and the phases (this process).

/** CPU time (user + system) of a process so far, in ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

const signed = (n: number): string => (n >= 0 ? `+${n}` : String(n));
const round = (n: number): number => (Number.isFinite(n) ? (n >= 10 ? Math.round(n * 10) / 10 : Math.round(n * 100) / 100) : n);
function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

interface LightRow {
  phase: string;
  kind: string;
  calls: number;
  failed: number;
  failures: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  withinAim: boolean;
}

interface PhaseResult {
  phase: string;
  wallMs: number;
  light: LightRow[];
  /** CPU use of each process over the phase, in % of one core. */
  cpuPercent: Record<string, number>;
  /** This script's own event-loop delay p99 (ms): were the light calls sent on time? */
  senderLoopDelayP99Ms: number;
}

type LightCall = () => Promise<Outcome>;

async function lightPhase(phase: string, ms: number, calls: ReadonlyMap<string, LightCall>, watched: ReadonlyMap<string, number>): Promise<PhaseResult> {
  const lat = new Map<string, number[]>([...calls.keys()].map((k) => [k, []]));
  const failures = new Map<string, Record<string, number>>([...calls.keys()].map((k) => [k, {}]));
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = new Map([...watched].map(([n, pid]) => [n, cpuMs(pid)]));
  const t0 = performance.now();
  const period = 1000 / LIGHT_RATE;
  const pending: Promise<void>[] = [];
  await Promise.all(
    [...calls].map(async ([kind, call], k) => {
      // Kinds start staggered across one period, so their sends do not bunch up.
      for (let i = 0; ; i++) {
        const due = t0 + (k / calls.size + i) * period;
        if (due - t0 >= ms) break;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(
          call().then((o) => {
            lat.get(kind)!.push(performance.now() - due);
            if (!o.ok) failures.get(kind)![o.outcome] = (failures.get(kind)![o.outcome] ?? 0) + 1;
          }),
        );
      }
    }),
  );
  await Promise.all(pending);
  const wallMs = performance.now() - t0;
  loop.disable();
  const cpuPercent: Record<string, number> = {};
  for (const [n, pid] of watched) cpuPercent[n] = Math.round(((cpuMs(pid) - cpu0.get(n)!) / wallMs) * 100);
  const light = [...calls.keys()].map((kind): LightRow => {
    const sorted = lat.get(kind)!.sort((a, b) => a - b);
    const f = failures.get(kind)!;
    const p99 = percentile(sorted, 99);
    const failed = Object.values(f).reduce((a, b) => a + b, 0);
    return { phase, kind, calls: sorted.length, failed, failures: f, p50Ms: round(percentile(sorted, 50)), p99Ms: round(p99), maxMs: round(sorted.at(-1) ?? NaN), withinAim: p99 <= AIM_P99_MS && failed === 0 };
  });
  return { phase, wallMs: Math.round(wallMs), light, cpuPercent, senderLoopDelayP99Ms: round(loop.percentile(99) / 1e6) };
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, c) => (c < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}

function healthCheck(client: Client): Promise<Outcome> {
  const raw = (b: Buffer): Buffer => b;
  return new Promise((done) =>
    // Empty request = service "" (readiness), answered from the status the server keeps.
    client.makeUnaryRequest('/grpc.health.v1.Health/Check', raw, raw, Buffer.alloc(0), new Metadata(), { deadline: Date.now() + LIGHT_DEADLINE_MS }, (err: ServiceError | null, res?: Buffer) => {
      if (err) done(outcomeOfError(err));
      else done(res && res[0] === 0x08 && res[1] === 0x01 ? { ok: true, outcome: 'ok' } : { ok: false, outcome: `status ${res?.toString('hex') ?? '?'}` });
    }),
  );
}

async function main(): Promise<void> {
  const bundles = ['adapter-local', 'dispatcher'].map((app) => join(ROOT, 'dist/apps', app, 'main.js'));
  const missing = bundles.filter((b) => !existsSync(b));
  if (missing.length) throw new Error(`${missing.join(', ')} missing: run \`node scripts/build-apps.mjs adapter-local dispatcher\` first.`);
  const nats = await startNatsServer();
  const root = mkdtempSync(join(tmpdir(), 'toolhub-containment-'));
  const children: SpawnedProcess[] = [];
  let heavy: ChildProcess | undefined;
  const clients: Array<{ close(): void }> = [];
  try {
    const [grpcPort, adapterHealthPort] = [await freePort(), await freePort()];
    const common = { NATS_URL: nats.url, LOG_LEVEL: 'warn', TOOLHUB_METRICS_PORT: '-1' };
    const [adapter, dispatcher] = await Promise.all([
      spawnProcess(process.execPath, [bundles[0]!], {
        cwd: ROOT,
        env: { ...common, LOG_LEVEL: 'info', TOOLHUB_LOCAL_ROOT: root, TOOLHUB_HEALTH_PORT: String(adapterHealthPort) },
        readyPattern: /adapter-local ready/,
        timeoutMs: 60_000,
      }),
      spawnProcess(process.execPath, [bundles[1]!], {
        cwd: ROOT,
        env: { ...common, LOG_LEVEL: 'info', TOOLHUB_GRPC_PORT: String(grpcPort), TOOLHUB_MCP_PORT: '0', TOOLHUB_HEALTH_PORT: '-1', TOOLHUB_OUTBOX_DIR: join(root, '.outbox') },
        readyPattern: /dispatcher listening/,
        timeoutMs: 60_000,
      }),
    ]);
    children.push(adapter, dispatcher);
    const address = `127.0.0.1:${grpcPort}`;
    const api = new ToolHubClient(address, credentials.createInsecure());
    const dispatcherHealth = new Client(address, credentials.createInsecure());
    const adapterHealth = new Client(`127.0.0.1:${adapterHealthPort}`, credentials.createInsecure());
    clients.push(api, dispatcherHealth, adapterHealth);

    const light = new Map<string, LightCall>([
      [LIGHT_KINDS[0]!.kind, () => healthCheck(dispatcherHealth)],
      [LIGHT_KINDS[1]!.kind, () => healthCheck(adapterHealth)],
      [LIGHT_KINDS[2]!.kind, () => runTool(api, 'time_now', { timeZone: 'Asia/Tokyo' }, 5000, LIGHT_DEADLINE_MS)],
      [LIGHT_KINDS[3]!.kind, () => runTool(api, 'math_calculate', { expression: '2 km to m' }, 5000, LIGHT_DEADLINE_MS)],
      [LIGHT_KINDS[4]!.kind, () => runTool(api, 'text_transform', { text: 'parseHTTPResponse v2', to: 'snake' }, 5000, LIGHT_DEADLINE_MS)],
    ]);
    // Ready when every light call answers (the dispatcher has found the adapter, the health status is set).
    for (let attempt = 0; ; attempt++) {
      const res = await Promise.all([...light.values()].map((c) => c()));
      if (res.every((r) => r.ok)) break;
      if (attempt > 100) throw new Error(`the stack did not become ready: ${res.map((r) => r.outcome).join(', ')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (let i = 0; i < 20; i++) await Promise.all([...light.values()].map((c) => c())); // warm-up

    const watched = new Map<string, number>([
      ['adapter-local', adapter.pid],
      ['dispatcher', dispatcher.pid],
      ['nats', nats.pid],
      ['bench (light)', process.pid],
    ]);
    process.stderr.write(`baseline: light traffic alone for ${BASELINE_MS} ms (${LIGHT_RATE}/s per kind)\n`);
    const phases: PhaseResult[] = [await lightPhase('baseline', BASELINE_MS, light, watched)];

    process.stderr.write(`heavy: ${HEAVY_STREAMS} streams of heavy calls (timeout_ms ${HEAVY_TIMEOUT_MS}) + light traffic for ${HEAVY_MS} ms\n`);
    heavy = fork(__filename, [], { env: { ...process.env, CONTAINMENT_ROLE: 'heavy' }, execArgv: process.execArgv });
    const child = heavy;
    let childReady!: () => void;
    const ready = new Promise<void>((ok) => (childReady = ok));
    const heavyDone = new Promise<HeavyCall[]>((ok, fail) => {
      child.on('message', (m: { ready?: boolean; calls?: HeavyCall[] }) => (m.ready ? childReady() : ok(m.calls ?? [])));
      child.once('exit', (code) => fail(new Error(`the heavy client exited (${code}) before reporting`)));
    });
    heavyDone.catch(() => undefined); // reported where it is awaited
    watched.set('bench (heavy client)', child.pid!);
    await Promise.race([ready, heavyDone]);
    child.send({ address, durationMs: HEAVY_MS });
    phases.push(await lightPhase('heavy', HEAVY_MS, light, watched));
    const heavyCalls = await heavyDone;
    watched.delete('bench (heavy client)');

    process.stderr.write(`after: light traffic alone for ${AFTER_MS} ms\n`);
    phases.push(await lightPhase('after', AFTER_MS, light, watched));
    // The pool recovered: small calls of the tools whose workers were ended answer at once.
    const recovery = await Promise.all([
      runTool(api, 'text_stats', { text: 'Still here. Are you?' }, 2000, 5000),
      runTool(api, 'text_regex_extract', { text: 'aaa!', pattern: '(a+)+$' }, 2000, 5000),
    ]);

    // ---- report
    const lightRows = phases.flatMap((p) => p.light);
    process.stdout.write(
      `\nLight calls (${LIGHT_RATE}/s per kind, open loop; latency from the scheduled send; aim p99 ≤ ${AIM_P99_MS} ms)\n${table(
        ['phase', 'light call', 'calls', 'failed', 'p50 ms', 'p99 ms', 'max ms', 'aim'],
        lightRows.map((r) => [r.phase, r.kind, String(r.calls), String(r.failed), String(r.p50Ms), String(r.p99Ms), String(r.maxMs), r.withinAim ? 'met' : 'MISSED']),
      )}\n`,
    );
    const kinds = [...new Set(heavyCalls.map((c) => c.kind))];
    const heavyRows = kinds.map((kind) => {
      const cs = heavyCalls.filter((c) => c.kind === kind);
      const d = cs.map((c) => c.durationMs).sort((a, b) => a - b);
      const outcomes: Record<string, number> = {};
      for (const c of cs) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1;
      const deadlineMs = cs[0]!.timeoutMs;
      const timedOut = cs.filter((c) => c.outcome.startsWith('DEADLINE_EXCEEDED'));
      return {
        kind,
        calls: cs.length,
        outcomes,
        p50Ms: percentile(d, 50),
        maxMs: d.at(-1) ?? NaN,
        deadlineMs,
        pastDeadline: cs.filter((c) => c.durationMs > deadlineMs + DEADLINE_GRACE_MS).length,
        /** Of the calls that timed out: the latest answer relative to the deadline (negative = before it). */
        timeoutAnswerVsDeadlineMs: timedOut.length ? { min: Math.min(...timedOut.map((c) => c.durationMs - deadlineMs)), max: Math.max(...timedOut.map((c) => c.durationMs - deadlineMs)) } : null,
        sampleMessages: [...new Set(cs.filter((c) => c.message).map((c) => c.message))].slice(0, 2),
      };
    });
    process.stdout.write(
      `\nHeavy calls (${HEAVY_STREAMS} in flight; duration as the client saw it; "past" = answered more than ${DEADLINE_GRACE_MS} ms after the deadline)\n${table(
        ['heavy call', 'ended', 'calls', 'deadline ms', 'p50 ms', 'max ms', 'timeouts answered', 'past'],
        heavyRows.map((r) => [
          r.kind,
          Object.entries(r.outcomes).map(([o, n]) => `${n}× ${o}`).join(', '),
          String(r.calls),
          String(r.deadlineMs),
          String(r.p50Ms),
          String(r.maxMs),
          r.timeoutAnswerVsDeadlineMs ? `${signed(r.timeoutAnswerVsDeadlineMs.min)}..${signed(r.timeoutAnswerVsDeadlineMs.max)} ms` : '-',
          String(r.pastDeadline),
        ]),
      )}\n`,
    );
    for (const r of heavyRows) for (const m of r.sampleMessages) process.stdout.write(`  ${r.kind}: ${m}\n`);
    process.stdout.write(`\nCPU (% of one core) per phase: ${phases.map((p) => `${p.phase} ${JSON.stringify(p.cpuPercent)}`).join('; ')}\n`);
    process.stdout.write(`sender event-loop delay p99 (ms): ${phases.map((p) => `${p.phase} ${p.senderLoopDelayP99Ms}`).join(', ')}\n`);
    process.stdout.write(`after the heavy phase: ${recovery.map((r) => r.outcome).join(', ')} (small text_stats, small regex)\n`);

    const heavyPhase = phases.find((p) => p.phase === 'heavy')!;
    const aims = {
      lightP99WithinAimDuringHeavy: heavyPhase.light.every((r) => r.withinAim),
      lightKindsWithinAim: heavyPhase.light.filter((r) => r.withinAim).map((r) => r.kind),
      heavyCallsEndedByDeadline: heavyRows.every((r) => r.pastDeadline === 0),
      poolRecovered: recovery.every((r) => r.ok),
    };
    process.stdout.write(`aims: ${JSON.stringify(aims)}\n`);
    const result = {
      benchmark: 'containment',
      date: new Date().toISOString(),
      loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      settings: { BASELINE_MS, HEAVY_MS, AFTER_MS, LIGHT_RATE, HEAVY_STREAMS, HEAVY_TIMEOUT_MS, SHORT_TIMEOUT_MS, TEXT_BYTES, REGEX_CHARS, AIM_P99_MS, DEADLINE_GRACE_MS },
      lightKinds: LIGHT_KINDS,
      phases,
      heavy: heavyRows,
      heavyCalls,
      recovery,
      aims,
    };
    mkdirSync(resolve(OUT, '..'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`written to ${OUT}\n`);
  } finally {
    heavy?.kill('SIGKILL');
    for (const c of clients) c.close();
    await Promise.all(children.map((c) => c.kill('SIGTERM')));
    await nats.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.env['CONTAINMENT_ROLE'] === 'heavy') {
  heavyChild().catch((err: unknown) => {
    process.stderr.write(`heavy client failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
