/**
 * Dispatcher benchmark: RunTool of a no-op tool through the dispatcher (gRPC → dispatcher → NATS →
 * adapter), against a direct NATS request to the same adapter and an in-process call of the tool,
 * at concurrency 1 and 64; the gRPC floor (the standard health check on the same server: a grpc-js
 * unary call with no ToolHub logic); the relay floor (bare-relay.ts: gRPC in, one NATS request to the
 * same adapter, gRPC out, no ToolHub logic); and GetToolInfo on a cache hit against a miss. Prints a table and
 * writes bench/results/dispatcher.json. A script, not a timed test:
 *
 *   npm run bench -- dispatcher      (builds the apps and this bench, runs node dist/bench/dispatcher/dispatcher.bench.js)
 *
 * NATS_URL uses a running nats-server; without it a private one is started (nats-server on PATH).
 * The dispatcher (dist/apps/dispatcher/main.js) and the no-op adapter (dist/bench/dispatcher/
 * noop-adapter.js) run as their own processes, as deployed; this process is the agent.
 */
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { AdapterClient } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import { AdapterRunRequest, AdapterRunResponse, type GetToolInfoResponse, RunStatus, type RunToolResponse, ToolHubClient } from '@toolhub/contracts';
import { Dispatcher } from '@toolhub/dispatcher-core';
import { freePort, spawnProcess, type SpawnedProcess, startNatsServer, repoRoot } from '@toolhub/test-harness';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';

import { BENCH_PROVIDER, noopTool, RELAY_METHOD } from './noop-tool';

const ROOT = repoRoot(__dirname);
const OUT = resolve(ROOT, process.env['BENCH_OUT'] ?? 'bench/results/dispatcher.json');
/** How long each measurement runs, after its warm-up. */
const MEASURE_MS = Number(process.env['BENCH_MEASURE_MS'] ?? 4000);
const WARM_MS = 1000;
/** Slices each measurement is split into, taken in turn with the others of its group (see measureGroup). */
const ROUNDS = Math.max(1, Number(process.env['BENCH_ROUNDS'] ?? 4));
/** Unrecorded calls before each slice, so a process that sat idle while the others ran is awake. */
const SLICE_WARM_MS = 100;
const DEADLINE_MS = 10_000;
/** BENCH_PROFILE=<dir> writes V8 CPU profiles of the dispatcher, adapter and relay processes there (open them in Chrome DevTools). */
/** BENCH_ONLY=<text>[,<text>...] runs only the measurements whose "name @concurrency" contains one of them (for profiling). */
const ONLY = process.env['BENCH_ONLY']?.split(',');
/** The built dispatcher and adapter; `BENCH_DISPATCHER_JS` / `BENCH_ADAPTER_JS` run other builds (A/B comparisons). */
const DISPATCHER_ENTRY = [process.env['BENCH_DISPATCHER_JS'] ?? 'dist/apps/dispatcher/main.js'];
/**
 * `BENCH_DISPATCHER_B_JS=<file>`: a second dispatcher build, run beside the first as its own process
 * ('dispatcherB') and measured in the same groups, its slices interleaved with the first's: an A/B
 * comparison within one run, where the machine's drift between runs cannot decide it.
 */
const DISPATCHER_B_ENTRY = process.env['BENCH_DISPATCHER_B_JS'];
const ADAPTER_ENTRY = [process.env['BENCH_ADAPTER_JS'] ?? 'dist/bench/dispatcher/noop-adapter.js'];
const RELAY_ENTRY = 'dist/bench/dispatcher/bare-relay.js';
/** `BENCH_EVENT_DURABILITY=outbox|ack|memory`: how the dispatcher makes call events durable (its default: outbox). */
const EVENT_DURABILITY = process.env['BENCH_EVENT_DURABILITY'];
/**
 * `BENCH_TRACEPARENT=1`: the agent is traced — every RunTool carries a sampled W3C `traceparent`, as
 * from an agent that exports its own spans (the dispatcher and adapter still export nothing).
 */
const TRACEPARENT = process.env['BENCH_TRACEPARENT'] === '1' ? '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' : undefined;
const PROFILE_ARGS = process.env['BENCH_PROFILE'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env['BENCH_PROFILE'])}`] : [];

interface Row {
  name: string;
  concurrency: number;
  calls: number;
  p50Ms: number;
  p99Ms: number;
  callsPerSecond: number;
  /** CPU time per call of each process (user + system), in microseconds: robust to a busy machine. */
  cpuUsPerCall: Record<string, number>;
}

/** Processes whose CPU time is sampled around each measurement (pid by name; this process is 'agent'). */
const watched = new Map<string, number>();

/** CPU time (user + system) of a process so far, in ms, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function cpuSnapshot(): Map<string, number> {
  return new Map([...watched].map(([name, pid]) => [name, cpuMs(pid)]));
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

type Measured = readonly [name: string, fn: (i: number) => Promise<void>];

/**
 * Measures `entries` at `concurrency`, interleaved: each is warmed for WARM_MS, then the MEASURE_MS of
 * each is split into ROUNDS slices taken in turn (the order rotating every round, each slice after
 * SLICE_WARM_MS of unrecorded calls), so a change of the machine's load during the run falls on
 * every entry alike instead of on whichever ran then. Latencies in ms; CPU summed over the slices.
 */
async function measureGroup(concurrency: number, entries: readonly Measured[]): Promise<Row[]> {
  const picked = entries.filter(([name]) => !ONLY || ONLY.some((o) => `${name} @${concurrency}`.includes(o)));
  let i = 0;
  const phase = async (fn: Measured[1], ms: number, latencies?: number[]): Promise<number> => {
    const started = process.hrtime.bigint();
    const end = Date.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < end) {
          const t = process.hrtime.bigint();
          await fn(i++);
          latencies?.push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }),
    );
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const totals = picked.map(() => ({ latencies: [] as number[], elapsed: 0, cpuMs: new Map<string, number>() }));
  for (const [, fn] of picked) await phase(fn, WARM_MS);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < picked.length; k++) {
      const at = (k + r) % picked.length;
      const fn = picked[at]![1];
      const total = totals[at]!;
      await phase(fn, SLICE_WARM_MS);
      const cpuBefore = cpuSnapshot();
      total.elapsed += await phase(fn, MEASURE_MS / ROUNDS, total.latencies);
      for (const [proc, after] of cpuSnapshot()) total.cpuMs.set(proc, (total.cpuMs.get(proc) ?? 0) + after - cpuBefore.get(proc)!);
    }
  }
  return picked.map(([name], k) => {
    const { latencies, elapsed, cpuMs: used } = totals[k]!;
    const sorted = Float64Array.from(latencies).sort();
    const cpuUsPerCall: Record<string, number> = {};
    for (const [proc, ms] of used) if (Number.isFinite(ms)) cpuUsPerCall[proc] = Math.round((ms * 1000) / Math.max(1, sorted.length));
    const row = {
      name,
      concurrency,
      calls: sorted.length,
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      callsPerSecond: Math.round((sorted.length / elapsed) * 1000),
      cpuUsPerCall,
    };
    process.stderr.write(`  ${name} @${concurrency}: p50 ${row.p50Ms} ms, ${row.callsPerSecond}/s, CPU µs/call ${JSON.stringify(cpuUsPerCall)}\n`);
    return row;
  });
}

const round = (n: number): number => (n >= 1 ? Math.round(n * 100) / 100 : n >= 0.01 ? Math.round(n * 1000) / 1000 : Number(n.toPrecision(2)));

function table(rows: Row[]): string {
  const procs = [...watched.keys()];
  const head = ['measurement', 'concurrency', 'calls', 'p50 ms', 'p99 ms', 'calls/s', ...procs.map((p) => `${p} CPU µs/call`)];
  const body = rows.map((r) => [
    r.name,
    String(r.concurrency),
    String(r.calls),
    String(r.p50Ms),
    String(r.p99Ms),
    String(r.callsPerSecond),
    ...procs.map((p) => String(r.cpuUsPerCall[p] ?? '')),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)].join('\n');
}

/** How a dispatcher process of the bench is started: its own gRPC port, everything else as deployed. */
function dispatcherSpawn(natsUrl: string, port: number) {
  return {
    cwd: ROOT,
    env: {
      NATS_URL: natsUrl,
      TOOLHUB_GRPC_PORT: String(port),
      TOOLHUB_MCP_PORT: '0',
      TOOLHUB_MAX_CONCURRENT_PER_CALLER: '1000',
      LOG_LEVEL: 'info',
      ...(EVENT_DURABILITY ? { TOOLHUB_EVENT_DURABILITY: EVENT_DURABILITY } : {}),
    },
    readyPattern: /dispatcher listening/,
  };
}

async function main(): Promise<void> {
  const ownNats = process.env['NATS_URL'] ? undefined : await startNatsServer();
  const natsUrl = process.env['NATS_URL'] ?? ownNats!.url;
  const children: SpawnedProcess[] = [];
  let bus: NatsBus | undefined;
  let client: ToolHubClient | undefined;
  let clientB: ToolHubClient | undefined;
  let floorClient: Client | undefined;
  let relayClient: Client | undefined;
  let local: Dispatcher | undefined;
  try {
    const [port, relayPort] = await Promise.all([freePort(), freePort()]);
    const [adapter, dispatcher, relay] = await Promise.all([
      spawnProcess(process.execPath, [...PROFILE_ARGS, ...ADAPTER_ENTRY], {
        cwd: ROOT,
        env: { NATS_URL: natsUrl },
        readyPattern: /noop adapter ready/,
        timeoutMs: 60_000,
      }),
      spawnProcess(process.execPath, [...PROFILE_ARGS, ...DISPATCHER_ENTRY], { ...dispatcherSpawn(natsUrl, port), timeoutMs: 60_000 }),
      spawnProcess(process.execPath, [...PROFILE_ARGS, RELAY_ENTRY], {
        cwd: ROOT,
        env: { NATS_URL: natsUrl, RELAY_PORT: String(relayPort) },
        readyPattern: /bare relay listening/,
        timeoutMs: 60_000,
      }),
    ]);
    children.push(adapter, dispatcher, relay);
    watched.set('agent', process.pid).set('dispatcher', dispatcher.pid).set('adapter', adapter.pid).set('relay', relay.pid);
    const portB = DISPATCHER_B_ENTRY ? await freePort() : 0;
    if (DISPATCHER_B_ENTRY) {
      const b = await spawnProcess(process.execPath, [...PROFILE_ARGS, DISPATCHER_B_ENTRY], { ...dispatcherSpawn(natsUrl, portB), timeoutMs: 60_000 });
      children.push(b);
      watched.set('dispatcherB', b.pid);
    }
    if (ownNats) watched.set('nats', ownNats.pid);
    client = new ToolHubClient(`127.0.0.1:${port}`, credentials.createInsecure());
    bus = await NatsBus.connect({ servers: natsUrl, name: 'bench-agent', ensureStream: false });
    const adapterClient = new AdapterClient(bus);
    const grpc = client;
    // The gRPC floor: grpc.health.v1.Health/Check (empty request, answered from memory) on the same
    // server — what one grpc-js unary round trip costs here before any ToolHub logic runs.
    floorClient = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
    const floor = floorClient;
    const healthCheckOn = (target: Client) => () =>
      new Promise<void>((ok, fail) => {
        const raw = (b: Buffer): Buffer => b;
        target.makeUnaryRequest('/grpc.health.v1.Health/Check', raw, raw, Buffer.alloc(0), new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (err: ServiceError | null) =>
          err ? fail(err) : ok(),
        );
      });
    const healthCheck = healthCheckOn(floor);

    // The relay floor: the same adapter call through bare-relay.ts (gRPC → NATS → adapter with no
    // ToolHub logic), the request encoded here as AdapterClient would.
    relayClient = new Client(`127.0.0.1:${relayPort}`, credentials.createInsecure());
    const relayed = relayClient;
    // The same gRPC-floor slices for the relay process as for the dispatcher's: two processes of one
    // build differed by 12–28 % in CPU per call depending on whether they served the floor's slices
    // (README, 2026-11-29 evening), so the dispatcher/relay ratios need both to serve them.
    const relayHealthCheck = healthCheckOn(relayed);
    const viaRelay = () =>
      new Promise<void>((ok, fail) => {
        const raw = (b: Buffer): Buffer => b;
        const request = Buffer.from(
          AdapterRunRequest.encode({ name: 'noop', arguments: {}, deadlineUnixMs: Date.now() + DEADLINE_MS, idempotencyKey: '', caller: '' }).finish(),
        );
        relayed.makeUnaryRequest(RELAY_METHOD, raw, raw, request, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (err: ServiceError | null, reply?: Buffer) => {
          if (err) return fail(err);
          const res = AdapterRunResponse.decode(reply!);
          return res.status === RunStatus.RUN_STATUS_OK ? ok() : fail(new Error('noop failed through the relay'));
        });
      });

    if (DISPATCHER_B_ENTRY) clientB = new ToolHubClient(`127.0.0.1:${portB}`, credentials.createInsecure());
    const runTool = (name: string, via = grpc) =>
      new Promise<RunToolResponse>((ok, fail) => {
        const req = { provider: BENCH_PROVIDER, name, arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' };
        const metadata = new Metadata();
        if (TRACEPARENT) metadata.set('traceparent', TRACEPARENT);
        via.runTool(req, metadata, { deadline: Date.now() + DEADLINE_MS }, (err: ServiceError | null, res: RunToolResponse) => (err ? fail(err) : ok(res)));
      });
    const getToolInfo = (name: string) =>
      new Promise<GetToolInfoResponse>((ok, fail) => {
        grpc.getToolInfo({ provider: BENCH_PROVIDER, name }, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (err: ServiceError | null, res: GetToolInfoResponse) =>
          err ? fail(err) : ok(res),
        );
      });
    const viaDispatcher = async (): Promise<void> => {
      const res = await runTool('noop');
      if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error(`noop failed: ${JSON.stringify(res.error)}`);
    };
    const viaDispatcherB = async (): Promise<void> => {
      const res = await runTool('noop', clientB);
      if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error(`noop failed through dispatcher B: ${JSON.stringify(res.error)}`);
    };
    const viaNats = async (): Promise<void> => {
      const res = await adapterClient.run(
        BENCH_PROVIDER,
        { name: 'noop', arguments: {}, deadlineUnixMs: Date.now() + DEADLINE_MS, idempotencyKey: '', caller: '' },
        { timeoutMs: DEADLINE_MS },
      );
      if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error('noop failed over NATS');
    };
    // The same dispatcher logic in this process, without the gRPC hop: what the dispatcher itself adds.
    local = await Dispatcher.create(bus, { warmCoreTools: false, maxConcurrentPerCaller: 1000 });
    const core = local;
    const callContext = () => ({ deadline: Date.now() + DEADLINE_MS, requestId: 'bench' });
    const viaCore = async (): Promise<void> => {
      const res = await core.runTool({ provider: BENCH_PROVIDER, name: 'noop', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' }, callContext());
      if (res.status !== RunStatus.RUN_STATUS_OK) throw new Error('noop failed in the in-process dispatcher');
    };
    const ctx = { signal: new AbortController().signal, deadline: Date.now() + 3_600_000, caller: '', idempotencyKey: '' };
    const inProcess = async (): Promise<void> => {
      await noopTool.run({} as never, ctx);
    };

    // The dispatcher has found the adapter and resolved the tool once (both paths are warm).
    for (let attempt = 0; ; attempt++) {
      try {
        await viaDispatcher();
        if (clientB) await viaDispatcherB();
        await viaCore();
        await viaRelay();
        break;
      } catch (err) {
        if (attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    process.stderr.write(`measuring (${MEASURE_MS} ms each in ${ROUNDS} interleaved slices, after ${WARM_MS} ms of warm-up)\n`);
    const rows: Row[] = [];
    for (const concurrency of [1, 64]) {
      rows.push(
        ...(await measureGroup(concurrency, [
          ['RunTool via dispatcher (gRPC → NATS → adapter)', viaDispatcher],
          ...(clientB ? [[`RunTool via dispatcher B (${DISPATCHER_B_ENTRY})`, viaDispatcherB] as const] : []),
          ['RunTool direct NATS request to the adapter', viaNats],
          ['RunTool via dispatcher logic in-process (NATS → adapter, no gRPC)', viaCore],
          ['RunTool in-process (the tool function)', inProcess],
          ['gRPC floor: health check on the dispatcher (no ToolHub logic)', healthCheck],
          ['relay floor: gRPC → NATS → adapter, no ToolHub logic (bare-relay.ts)', viaRelay],
          ['relay gRPC floor: health check on bare-relay.ts (keeps the relay as busy as the dispatcher between slices)', relayHealthCheck],
        ])),
      );
    }
    rows.push(
      ...(await measureGroup(1, [
        ['GetToolInfo cache hit', () => getToolInfo('noop').then(() => undefined)],
        // A name never asked before: cache miss → registry lookup (no registry runs: answered at once
        // by "no responders") → the adapter's info over NATS → cache fill.
        ['GetToolInfo cache miss', (i) => getToolInfo(`noop_${i}`).then(() => undefined)],
        ['GetToolInfo cache hit, dispatcher logic in-process', () => core.getToolInfo({ provider: BENCH_PROVIDER, name: 'noop' }, callContext()).then(() => undefined)],
        ['GetToolInfo cache miss, dispatcher logic in-process', (i) => core.getToolInfo({ provider: BENCH_PROVIDER, name: `noop_${i}` }, callContext()).then(() => undefined)],
      ])),
    );
    if (clientB) {
      for (const c of [1, 64]) {
        const a = rows.find((r) => r.name.startsWith('RunTool via dispatcher (') && r.concurrency === c);
        const b = rows.find((r) => r.name.startsWith('RunTool via dispatcher B') && r.concurrency === c);
        if (!a || !b) continue;
        const ratio = (x: number, y: number) => round(x / y);
        process.stdout.write(
          `B vs A @${c}: CPU per call ${b.cpuUsPerCall['dispatcherB']} vs ${a.cpuUsPerCall['dispatcher']} µs (${ratio(b.cpuUsPerCall['dispatcherB']!, a.cpuUsPerCall['dispatcher']!)}), ` +
            `p50 ${b.p50Ms} vs ${a.p50Ms} ms (${ratio(b.p50Ms, a.p50Ms)}), calls/s ${b.callsPerSecond} vs ${a.callsPerSecond} (${ratio(b.callsPerSecond, a.callsPerSecond)})\n`,
        );
      }
    }
    if (ONLY) {
      process.stdout.write(`\n${table(rows)}\n`);
      return;
    }

    const find = (name: string, c: number) => rows.find((r) => r.name.startsWith(name) && r.concurrency === c)!;
    const dispatcher1 = find('RunTool via dispatcher', 1);
    const nats1 = find('RunTool direct NATS', 1);
    const dispatcher64 = find('RunTool via dispatcher', 64);
    const hit = find('GetToolInfo cache hit', 1);
    const miss = find('GetToolInfo cache miss', 1);
    const core1 = find('RunTool via dispatcher logic in-process', 1);
    const coreHit = find('GetToolInfo cache hit, dispatcher logic', 1);
    const coreMiss = find('GetToolInfo cache miss, dispatcher logic', 1);
    const floor1 = find('gRPC floor', 1);
    const floor64 = find('gRPC floor', 64);
    const relay1 = find('relay floor', 1);
    const relay64 = find('relay floor', 64);
    const floorAndNats = floor1.p50Ms + nats1.p50Ms;
    const floorCpu = floor1.cpuUsPerCall['dispatcher'] ?? NaN;
    const dispatcherCpu = dispatcher1.cpuUsPerCall['dispatcher'] ?? NaN;
    // Issue 12's aims: ratios to the gRPC floor and the direct NATS request measured in this run.
    const aims = {
      runToolP50VsFloorPlusNats: { value: round(dispatcher1.p50Ms / floorAndNats), aim: '≤ 1.3 × (gRPC floor p50 + direct NATS p50)', met: dispatcher1.p50Ms <= 1.3 * floorAndNats },
      dispatcherCpuVsFloorCpu: { value: round(dispatcherCpu / floorCpu), aim: '≤ 2 × the floor call\'s dispatcher CPU', met: dispatcherCpu <= 2 * floorCpu },
      callsPerSecondAt64VsFloor: { value: round(dispatcher64.callsPerSecond / floor64.callsPerSecond), aim: '≥ 0.7 × the floor\'s calls/s', met: dispatcher64.callsPerSecond >= 0.7 * floor64.callsPerSecond },
      cacheHitVsMissP50: { value: round(hit.p50Ms / miss.p50Ms), aim: '≤ 0.25 (issue 4)', met: hit.p50Ms <= miss.p50Ms / 4 },
      dispatcherLogicCacheHitVsMissP50: { value: round(coreHit.p50Ms / coreMiss.p50Ms), aim: '≤ 0.25 (issue 4, no gRPC hop)', met: coreHit.p50Ms <= coreMiss.p50Ms / 4 },
    };
    // Not aims: how the bare gRPC hop compares on this machine.
    const grpcFloor = {
      healthCheckP50VsDirectNats: round(floor1.p50Ms / nats1.p50Ms),
      healthCheckP50VsCacheMissP50: round(floor1.p50Ms / miss.p50Ms),
      healthChecksPerSecondAt64: floor64.callsPerSecond,
      dispatcherLogicP50VsDirectNats: round(core1.p50Ms / nats1.p50Ms),
    };
    // Not aims: the first three aims' ratios for the bare relay (whether any gRPC → NATS relay can meet
    // them here), and what ToolHub's logic adds to it.
    const relayCpu = relay1.cpuUsPerCall['relay'] ?? NaN;
    const relayFloor = {
      relayP50VsFloorPlusNats: round(relay1.p50Ms / floorAndNats),
      relayCpuVsFloorCpu: round(relayCpu / floorCpu),
      relayCallsPerSecondAt64VsFloor: round(relay64.callsPerSecond / floor64.callsPerSecond),
      dispatcherP50VsRelayP50: round(dispatcher1.p50Ms / relay1.p50Ms),
      dispatcherCpuMinusRelayCpuUs: Math.round(dispatcherCpu - relayCpu),
      // Issue 34's aims: p50 @1 ≤ 1.1 ×, CPU per call ≤ 1.2 ×, calls/s @64 ≥ 0.95 × the relay's.
      dispatcherCpuVsRelayCpu: round(dispatcherCpu / relayCpu),
      dispatcherCpuVsRelayCpuAt64: round((dispatcher64.cpuUsPerCall['dispatcher'] ?? NaN) / (relay64.cpuUsPerCall['relay'] ?? NaN)),
      dispatcherCallsPerSecondAt64VsRelay: round(dispatcher64.callsPerSecond / relay64.callsPerSecond),
    };

    process.stdout.write(`\n${table(rows)}\n\n`);
    for (const [name, a] of Object.entries(aims)) process.stdout.write(`${a.met ? 'met   ' : 'missed'} ${name}: ${a.value} (aim ${a.aim})\n`);
    for (const [name, value] of Object.entries(grpcFloor)) process.stdout.write(`floor  ${name}: ${value}\n`);
    for (const [name, value] of Object.entries(relayFloor)) process.stdout.write(`relay  ${name}: ${value}\n`);
    const result = {
      benchmark: 'dispatcher',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
      setup: {
        processes: `agent (this script, @grpc/grpc-js client and NatsBus), dispatcher (${DISPATCHER_ENTRY[0]}), no-op adapter (${ADAPTER_ENTRY[0]}), bare relay (${RELAY_ENTRY}), nats-server`,
        nats: ownNats ? 'private nats-server started by the script' : 'NATS_URL',
        measureMs: MEASURE_MS,
        warmMs: WARM_MS,
      },
      rows,
      aims,
      grpcFloor,
      relayFloor,
    };
    mkdirSync(resolve(OUT, '..'), { recursive: true });
    writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`\n${JSON.stringify(result)}\n\nwritten to ${OUT}\n`);
  } finally {
    client?.close();
    clientB?.close();
    floorClient?.close();
    relayClient?.close();
    await local?.close();
    await bus?.close();
    await Promise.all(children.map((c) => c.kill('SIGTERM')));
    await ownNats?.dispose();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
