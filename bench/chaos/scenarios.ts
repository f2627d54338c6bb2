/**
 * Chaos scenarios: RunTool load through the dispatcher while one part of the deployment is killed
 * or frozen, then healed. Each reports calls sent, failures by gRPC code, how long failures went on
 * (recovery), and whether the registry's statistics moved by exactly the number of calls the
 * dispatcher answered (every answered RunTool emits one `tool.called` event, shed and failed ones
 * included). Calls the client could not tell apart (the dispatcher itself died mid-call: no reply
 * and no ToolHub error) are reported as uncertain: each may or may not have an event.
 */
import { credentials, Metadata, type ServiceError, status as GrpcStatus } from '@grpc/grpc-js';
import { GRPC_ERROR_TRAILER, type RunToolRequest, type RunToolResponse, ToolHubClient } from '@toolhub/contracts';
import { childrenOf, waitFor } from '@toolhub/test-harness';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { statsBaseline } from '../../test/e2e/support/stack';
import { grpcFrame, h2Burst, h2Connections } from './h2-callers';
import type { ChaosStack } from './stack';

/** One scenario's numbers. */
export interface ScenarioResult {
  scenario: string;
  sent: number;
  ok: number;
  /** Failures by gRPC status name. */
  failedByCode: Record<string, number>;
  /** From the fault until the last failed call ended (0: nothing failed). */
  recoveryMs: number;
  /** For replica faults: when the last call in flight at the fault ended (answered, retried or failed), from the fault. */
  inFlightResolvedMs?: number;
  /** Calls the dispatcher answered (OK or a ToolHub error): each must be counted once. */
  answered: number;
  uncertain: number;
  statsDelta: number;
  lost: number;
  doubleCounted: number;
  statsExact: boolean;
  /** Time after the load ended until the statistics included every answered call. */
  statsCatchUpMs: number;
  p50Ms: number;
  p99Ms: number;
  /** Of calls that ran (not shed). */
  p99AdmittedMs?: number;
  dispatcherPeakRssMiB?: number;
  /** Overload: estimated dispatcher CPU of one refused call, µs (see runOverload). */
  cpuPerRefusedUs?: number;
  /** The database outage scenario's own numbers ({@link runDatabaseOutage}). */
  outage?: OutageNumbers;
  note?: string;
}

/** What {@link runDatabaseOutage} measures besides the common columns. */
export interface OutageNumbers {
  mode: 'kill' | 'freeze';
  outageMs: number;
  /** RunTool calls per second asked for, and sent (calls started / load duration). */
  targetRate: number;
  achievedRate: number;
  /** Calls the generator did not start because `maxInFlight` calls were already open. */
  notStarted: number;
  /** Events the registry had not counted when the database came back (consumer lag). */
  backlogAtRestart: number;
  /** From the database back until the statistics held every call answered before it came back (load still running). */
  backlogDrainedMs: number;
  /** From the database back until the consumer lag was 0 and the statistics equalled the client's count. */
  catchUpMs: number;
  /** Events the registry counted per second from the database back until the backlog was drained. */
  ingestPerSecond: number;
}

interface CallRecord {
  start: number;
  end: number;
  code: number;
  answered: boolean;
}

/** A fault: `inject` breaks something, `heal` repairs it (both awaited). */
export interface Scenario {
  name: string;
  /** The tool the load calls. @default local:math_calculate */
  tool?: { provider: string; name: string; args: Record<string, unknown> };
  concurrency?: number;
  /** How long the fault lasts before `heal`. @default 4000 */
  faultMs?: number;
  inject(stack: ChaosStack): Promise<void>;
  heal(stack: ChaosStack): Promise<void>;
  /** Faults on a replica: report how fast the calls it held were resolved. */
  replicaFault?: boolean;
}

const NAMES = Object.fromEntries(Object.entries(GrpcStatus).map(([k, v]) => [v, k])) as Record<number, string>;

function runTool(stack: ChaosStack, req: Partial<RunToolRequest>, deadlineMs: number, client: ToolHubClient = stack.client): Promise<CallRecord> {
  const start = Date.now();
  const full: RunToolRequest = { provider: '', name: '', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '', ...req };
  return new Promise((resolve) => {
    client.runTool(full, new Metadata(), { deadline: start + deadlineMs }, (err: ServiceError | null, _res?: RunToolResponse) => {
      const end = Date.now();
      if (!err) return resolve({ start, end, code: GrpcStatus.OK, answered: true });
      // A ToolHub error carries the ErrorInfo trailer; a dead dispatcher or a client-side deadline does not.
      const answered = err.metadata?.get(GRPC_ERROR_TRAILER).length > 0;
      resolve({ start, end, code: err.code, answered });
    });
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms); 0 when it
 * is gone. With `thread` = the pid: its main thread only (the JavaScript thread), without V8's
 * background threads (optimising compiler, parallel and concurrent GC) and libuv's.
 */
function cpuMs(pid: number, thread?: number): number {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const f = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU time every thread of a process has used, in ns (/proc/<pid>/task/<tid>/schedstat; 0 when gone). */
function processCpuNs(pid: number): number {
  let total = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended between the listing and the read
      }
    }
  } catch {
    return 0;
  }
  return total;
}

/** Waits until the dispatcher has no event left to publish (its outbox drained). */
async function eventsFlushed(stack: ChaosStack, timeoutMs: number): Promise<void> {
  await waitFor(async () => (await stack.status().catch(() => undefined))?.pendingEvents === 0, { timeoutMs, intervalMs: 200, message: 'the dispatcher to publish its pending events' });
}

async function toolCalls(stack: ChaosStack, toolId: string): Promise<number> {
  // Caught up: nothing pending or unacknowledged in the consumer (a batch a killed registry held
  // comes back only after the consumer's ack wait, 30 s), then a marker through the stream.
  await waitFor(async () => (await stack.registryStatus().catch(() => undefined))?.statsLagEvents === 0, { timeoutMs: 180_000, intervalMs: 250, message: 'the registry to count every event' });
  const base = await statsBaseline(stack.nats.url, stack.admin, [toolId], 180_000);
  return base.get(toolId)?.calls ?? 0;
}

/** Runs load, injects the fault after `warmMs`, heals it after `faultMs`, runs `afterMs` more, then checks the statistics. */
export async function runScenario(stack: ChaosStack, s: Scenario, timing = { warmMs: 2000, afterMs: 4000 }): Promise<ScenarioResult> {
  const tool = s.tool ?? { provider: 'local', name: 'math_calculate', args: { expression: '6 * 7' } };
  const toolId = `${tool.provider}:${tool.name}`;
  const before = await toolCalls(stack, toolId);
  const records: CallRecord[] = [];
  let stop = false;
  let n = 0;
  const worker = async (): Promise<void> => {
    while (!stop) records.push(await runTool(stack, { provider: tool.provider, name: tool.name, arguments: tool.args, caller: `chaos-${s.name}-${n++ % 8}` }, 10_000));
  };
  const workers = Array.from({ length: s.concurrency ?? 16 }, worker);
  await sleep(timing.warmMs);
  const faultAt = Date.now();
  await s.inject(stack);
  await sleep(s.faultMs ?? 4000);
  await s.heal(stack);
  await sleep(timing.afterMs);
  stop = true;
  await Promise.all(workers);
  const loadEnd = Date.now();
  return summarize(stack, s.name, toolId, before, records, faultAt, loadEnd, s.replicaFault);
}

/** The largest of `values`, 0 for none: not `Math.max(...values)`, whose arguments overflow the stack past ~100,000 calls. */
function maxOf(values: readonly number[]): number {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max;
}

async function summarize(
  stack: ChaosStack,
  name: string,
  toolId: string,
  before: number,
  records: CallRecord[],
  faultAt: number,
  loadEnd: number,
  replicaFault?: boolean,
  extra: Partial<ScenarioResult> = {},
  shedUncounted = false,
): Promise<ScenarioResult> {
  await eventsFlushed(stack, 120_000);
  // Calls shed under overload are refused before they are decoded (no tool.called event: the tool
  // is not known yet); the dispatcher counts them in toolhub_runs_shed_total instead. With
  // `shedUncounted`, a RESOURCE_EXHAUSTED answer is expected in the statistics at most once.
  const exhausted = shedUncounted ? records.filter((r) => r.answered && r.code === GrpcStatus.RESOURCE_EXHAUSTED).length : 0;
  const answeredAll = records.filter((r) => r.answered).length;
  const answered = answeredAll - exhausted;
  const uncertain = records.length - answeredAll;
  const after = await toolCalls(stack, toolId);
  const statsCatchUpMs = Date.now() - loadEnd;
  const delta = after - before;
  const failed = records.filter((r) => r.code !== GrpcStatus.OK);
  const failedByCode: Record<string, number> = {};
  for (const r of failed) failedByCode[NAMES[r.code] ?? String(r.code)] = (failedByCode[NAMES[r.code] ?? String(r.code)] ?? 0) + 1;
  const latencies = records.map((r) => r.end - r.start).sort((a, b) => a - b);
  const lastFailure = maxOf(failed.filter((r) => r.end >= faultAt).map((r) => r.end));
  const heldAtFault = records.filter((r) => r.start <= faultAt && r.end >= faultAt);
  return {
    scenario: name,
    sent: records.length,
    ok: records.length - failed.length,
    failedByCode,
    recoveryMs: lastFailure ? lastFailure - faultAt : 0,
    ...(replicaFault ? { inFlightResolvedMs: maxOf(heldAtFault.map((r) => r.end - faultAt)) } : {}),
    answered,
    uncertain,
    statsDelta: delta,
    lost: Math.max(0, answered - delta),
    doubleCounted: Math.max(0, delta - answered - uncertain - exhausted),
    statsExact: uncertain === 0 && exhausted === 0 ? delta === answered : delta >= answered && delta <= answered + uncertain + exhausted,
    statsCatchUpMs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ...extra,
  };
}

/**
 * 2,000 calls at once from 2,000 callers (of local:time_now): the dispatcher admits what it can run or queue and sheds
 * the rest at once with RESOURCE_EXHAUSTED; admitted calls stay fast and memory bounded.
 */
/**
 * Connections for the overload callers: a dispatcher serves at most 128 streams per connection
 * (TOOLHUB_GRPC_MAX_STREAMS_PER_CONNECTION), so 2,000 callers on one connection would wait in the
 * client, not at the dispatcher. Each client here has its own connection, as separate agents do.
 */
function callerConnections(stack: ChaosStack, count = 32): ToolHubClient[] {
  return Array.from({ length: count }, () => new ToolHubClient(stack.dispatcherAddress, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
}

/** How the overload bursts are sent: `h2`, raw HTTP/2 streams (see h2-callers.ts), or `grpc-js` clients. @default h2 (CHAOS_OVERLOAD_CLIENT) */
export type OverloadClient = 'h2' | 'grpc-js';

/** {@link OverloadClient} from the environment. */
export function overloadClient(env: Record<string, string | undefined> = process.env): OverloadClient {
  const v = env['CHAOS_OVERLOAD_CLIENT'] ?? 'h2';
  if (v !== 'h2' && v !== 'grpc-js') throw new Error(`CHAOS_OVERLOAD_CLIENT must be h2 or grpc-js, not ${JSON.stringify(v)}`);
  return v;
}

/** Sends `count` calls of local:time_now at once (callers `<prefix>-<i>`), each on connection i mod 32. */
type Burst = (count: number, prefix: string) => Promise<CallRecord[]>;

export async function runOverload(stack: ChaosStack, calls = 2000, client: OverloadClient = overloadClient()): Promise<ScenarioResult> {
  // time_now: a light tool, so the dispatcher, not the adapter (math runs in a worker pool), is what is overloaded.
  const toolId = 'local:time_now';
  const before = await toolCalls(stack, toolId);
  const pool = callerConnections(stack);
  const sessions = client === 'h2' ? await h2Connections(stack.dispatcherAddress, pool.length) : [];
  const burst: Burst =
    client === 'h2'
      ? (count, prefix) => {
          // Encoded before the burst's clock starts: the dispatcher gets the same bytes either way.
          const frames = Array.from({ length: count }, (_, i) => grpcFrame({ provider: 'local', name: 'time_now', arguments: {}, caller: `${prefix}-${i}` }));
          return h2Burst(sessions, frames, 10_000);
        }
      : (count, prefix) => Promise.all(Array.from({ length: count }, (_, i) => runTool(stack, { provider: 'local', name: 'time_now', arguments: {}, caller: `${prefix}-${i}` }, 10_000, pool[i % pool.length])));
  try {
    await Promise.all(pool.map((c) => new Promise<void>((resolve, reject) => c.waitForReady(Date.now() + 10_000, (err) => (err ? reject(err) : resolve())))));
    return await overloadWith(stack, pool, burst, client, calls, toolId, before);
  } finally {
    for (const c of pool) c.close();
    for (const s of sessions) s.close();
  }
}

async function overloadWith(stack: ChaosStack, pool: ToolHubClient[], burst: Burst, client: OverloadClient, calls: number, toolId: string, before: number): Promise<ScenarioResult> {
  let peak = rssMiB(stack.dispatcher.proc.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(stack.dispatcher.proc.pid))), 50);
  // Where the time goes on a busy machine: how much CPU the dispatcher and this load generator got during the burst.
  const pid = stack.dispatcher.proc.pid;
  const cpu0 = cpuMs(pid);
  const main0 = cpuMs(pid, pid);
  const own0 = process.cpuUsage();
  const ownMain0 = cpuMs(process.pid, process.pid);
  const start = Date.now();
  const records = await burst(calls, 'overload');
  const wallMs = Date.now() - start;
  const dispatcherCpuMs = cpuMs(pid) - cpu0;
  const dispatcherMainMs = cpuMs(pid, pid) - main0;
  const own = process.cpuUsage(own0);
  const ownMainMs = cpuMs(process.pid, process.pid) - ownMain0;
  clearInterval(sampler);
  const admitted = records.filter((r) => r.code !== GrpcStatus.RESOURCE_EXHAUSTED).map((r) => r.end - r.start).sort((a, b) => a - b);
  const shed = records.filter((r) => r.code === GrpcStatus.RESOURCE_EXHAUSTED).map((r) => r.end - r.start).sort((a, b) => a - b);
  const note =
    `${client} callers; burst ${wallMs} ms; admitted p50 ${percentile(admitted, 50)} ms; shed answered p50 ${percentile(shed, 50)} / max ${shed.at(-1) ?? 0} ms; ` +
    `CPU during the burst: dispatcher ${dispatcherCpuMs} ms (main thread ${dispatcherMainMs}), load generator ${Math.round((own.user + own.system) / 1000)} ms (main thread ${ownMainMs})`;
  const result = await summarize(stack, 'overload-2000', toolId, before, records, start, Date.now(), false, { p99AdmittedMs: percentile(admitted, 99), dispatcherPeakRssMiB: Math.round(peak), note }, true);
  const refusal = await measureRefusals(stack, pool, burst);
  return {
    ...result,
    cpuPerRefusedUs: refusal.cpuPerRefusedUs,
    note: `${note}; ${refusal.note}`,
  };
}

/**
 * What a refused call costs the dispatcher, measured directly: every run slot held by long MCP
 * operations (the stack's dispatcher runs with the default 256 slots) and the admission queue
 * filled (256 callers waiting, the default, or TOOLHUB_MAX_QUEUED_RUNS), then a burst of calls that can only be refused at
 * once; the dispatcher's CPU over the burst (every thread, from /proc schedstat in ns) divided by
 * the refusals. A round counts only when the queue was still full after its burst and every call
 * of the burst was refused (the waiting callers leave after the 1 s queue limit, so a slow round
 * could otherwise take queued calls in).
 */
async function measureRefusals(stack: ChaosStack, pool: ToolHubClient[], send: Burst, slots = 256, maxQueued = Number(process.env['TOOLHUB_MAX_QUEUED_RUNS'] ?? 256), burst = 500, rounds = 6): Promise<{ cpuPerRefusedUs: number; note: string }> {
  const pid = stack.dispatcher.proc.pid;
  const holds = Array.from({ length: slots }, (_, i) =>
    runTool(stack, { provider: 'mcp', name: 'everything_trigger_long_running_operation', arguments: { duration: 4 + rounds * 3, steps: 1 }, caller: `overload-hold-${i}`, timeoutMs: 60_000 }, 70_000, pool[i % pool.length]),
  );
  let seen = '';
  const held = async (): Promise<boolean> => {
    const st = await stack.status().catch((err: Error) => (seen = err.message, undefined));
    if (st) seen = `${st.activeRuns} running, ${st.queuedRuns} queued`;
    return (st?.activeRuns ?? 0) >= slots;
  };
  await waitFor(held, { timeoutMs: 20_000, intervalMs: 100, message: 'the held calls to take every run slot' }).catch((err: Error) => {
    throw new Error(`${err.message} (last seen: ${seen})`);
  });
  let cpuNs = 0;
  let refused = 0;
  let discarded = 0;
  const perRound: string[] = [];
  for (let round = 0; round < rounds; round++) {
    // Fill the admission queue: each filler either waits there or is refused at once (the queue
    // is also bounded by the expected wait); then a burst that can only be refused.
    let fillersDone = 0;
    const fillers = Array.from({ length: maxQueued }, (_, i) =>
      runTool(stack, { provider: 'local', name: 'time_now', arguments: {}, caller: `overload-fill-${round}-${i}` }, 10_000, pool[i % pool.length]).then(() => fillersDone++),
    );
    let queued0 = 0;
    const queuedNow = async (): Promise<number> => (await stack.status().catch(() => undefined))?.queuedRuns ?? -1;
    await waitFor(async () => (queued0 = await queuedNow()) >= 0 && queued0 + fillersDone >= maxQueued, { timeoutMs: 10_000, intervalMs: 20, message: 'every filler to wait in the admission queue or be refused' });
    const c0 = processCpuNs(pid);
    const calls = await send(burst, `overload-refused-${round}`);
    const used = processCpuNs(pid) - c0;
    // Valid only if the queue did not move (no filler left it, no call of the burst joined it).
    const unchanged = (await queuedNow()) === queued0;
    if (unchanged && calls.every((r) => r.code === GrpcStatus.RESOURCE_EXHAUSTED)) {
      cpuNs += used;
      refused += calls.length;
      perRound.push(String(Math.round(used / 1000 / calls.length)));
    } else {
      discarded++;
      perRound.push('-');
    }
    await Promise.all(fillers);
  }
  await Promise.all(holds);
  const cpuPerRefusedUs = refused ? Math.round(cpuNs / 1000 / refused) : 0;
  return {
    cpuPerRefusedUs,
    note: `with every slot held and the queue full, ${refused} calls refused in ${(cpuNs / 1e6).toFixed(1)} ms of dispatcher CPU (${rounds - discarded} of ${rounds} rounds of ${burst} counted): ${cpuPerRefusedUs} µs per refused call (rounds: ${perRound.join(' / ')} µs)`,
  };
}

/** Settings of {@link runDatabaseOutage}, from the environment (CHAOS_OUTAGE_*). */
export interface OutageOptions {
  /** RunTool calls per second, open loop. @default 500 (CHAOS_OUTAGE_RATE) */
  rate: number;
  /** How long the database stays down. @default 60000 (CHAOS_OUTAGE_MS) */
  outageMs: number;
  /** `kill`: SIGKILL of FerretDB, restarted after `outageMs`; `freeze`: SIGSTOP, SIGCONT. @default kill (CHAOS_OUTAGE_MODE) */
  mode: 'kill' | 'freeze';
  /** Load before the outage. @default 5000 (CHAOS_OUTAGE_WARM_MS) */
  warmMs: number;
  /** Stop the load this long after the database came back even if the backlog is not drained. @default 180000 (CHAOS_OUTAGE_MAX_AFTER_MS) */
  maxAfterMs: number;
  /** Open calls at most; the generator skips (and reports) calls past it. @default 5000 */
  maxInFlight: number;
}

/** {@link OutageOptions} from `env`; rejects values that are not positive numbers. */
export function outageOptions(env: Record<string, string | undefined> = process.env): OutageOptions {
  const num = (name: string, dflt: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return dflt;
    const v = Number(raw);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    return v;
  };
  const mode = env['CHAOS_OUTAGE_MODE'] || 'kill';
  if (mode !== 'kill' && mode !== 'freeze') throw new Error(`CHAOS_OUTAGE_MODE must be kill or freeze, got ${JSON.stringify(mode)}`);
  return {
    rate: num('CHAOS_OUTAGE_RATE', 500),
    outageMs: num('CHAOS_OUTAGE_MS', 60_000),
    mode,
    warmMs: num('CHAOS_OUTAGE_WARM_MS', 5000),
    maxAfterMs: num('CHAOS_OUTAGE_MAX_AFTER_MS', 180_000),
    maxInFlight: 5000,
  };
}

/** The scenario's name for these options, e.g. database-outage-60s. */
export const outageName = (o: OutageOptions): string => `database-outage-${Math.round(o.outageMs / 1000)}s${o.mode === 'freeze' ? '-freeze' : ''}`;

/**
 * Open-loop RunTool load: calls start at `rate` per second whatever the answers do (a timer
 * catches up on the calls due since the start), so a slow system sees the same arrivals.
 */
function openLoop(stack: ChaosStack, tool: { provider: string; name: string; args: Record<string, unknown> }, rate: number, maxInFlight: number, records: CallRecord[]) {
  const t0 = Date.now();
  let due = 0;
  let started = 0;
  let notStarted = 0;
  const open = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const now = Math.floor(((Date.now() - t0) * rate) / 1000);
    for (; due < now; due++) {
      if (open.size >= maxInFlight) {
        notStarted++;
        continue;
      }
      started++;
      const p: Promise<void> = runTool(stack, { provider: tool.provider, name: tool.name, arguments: tool.args, caller: `chaos-outage-${due % 8}` }, 10_000).then((r) => {
        records.push(r);
        open.delete(p);
      });
      open.add(p);
    }
  }, 5);
  return {
    async stop(): Promise<{ started: number; notStarted: number; seconds: number }> {
      clearInterval(timer);
      const seconds = (Date.now() - t0) / 1000;
      await Promise.all(open);
      return { started, notStarted, seconds };
    },
  };
}

/**
 * The database (FerretDB) is down for `outageMs` (default 60 s) under steady open-loop load (default
 * 500 RunTool/s of local:time_now). RunTool does not need the database, so calls go on; the
 * registry's statistics consumer fails its batches, which stay in the stream. Measured from the
 * moment the database listens again: when the statistics hold every call answered before then
 * (the backlog, load still running), and when the load is stopped, the consumer lag is 0 and the
 * statistics equal the client's count (0 lost, 0 double-counted).
 */
export async function runDatabaseOutage(stack: ChaosStack, o: OutageOptions = outageOptions()): Promise<ScenarioResult> {
  const tool = { provider: 'local', name: 'time_now', args: {} };
  const toolId = `${tool.provider}:${tool.name}`;
  const counted = async (): Promise<number | undefined> => (await stack.admin.getToolStats(toolId))?.calls;
  const lag = async (): Promise<number | undefined> => (await stack.registryStatus().catch(() => undefined))?.statsLagEvents;
  const before = await toolCalls(stack, toolId);
  const records: CallRecord[] = [];
  const load = openLoop(stack, tool, o.rate, o.maxInFlight, records);
  try {
    return await outageUnderLoad(stack, o, { toolId, counted, lag, before, records, load });
  } catch (err) {
    // Stop the load before the stack closes under it, so the failure shows and not a closed channel.
    await load.stop().catch(() => undefined);
    throw err;
  }
}

async function outageUnderLoad(
  stack: ChaosStack,
  o: OutageOptions,
  run: {
    toolId: string;
    counted: () => Promise<number | undefined>;
    lag: () => Promise<number | undefined>;
    before: number;
    records: CallRecord[];
    load: ReturnType<typeof openLoop>;
  },
): Promise<ScenarioResult> {
  const { toolId, counted, lag, before, records, load } = run;
  await sleep(o.warmMs);
  const countAtFault = (await counted()) ?? before;
  const faultAt = Date.now();
  if (o.mode === 'kill') await stack.mongo.kill();
  else if (stack.mongo.pid) process.kill(stack.mongo.pid, 'SIGSTOP');
  else throw new Error('the database was not started by this run: it cannot be frozen');
  await sleep(o.outageMs - (Date.now() - faultAt));
  const backlogAtRestart = (await lag()) ?? -1;
  if (o.mode === 'kill') await stack.mongo.restart();
  else process.kill(stack.mongo.pid, 'SIGCONT');
  const backAt = Date.now();
  // The backlog: every call answered before the database came back (events reach the stream in about that order).
  const target = before + records.filter((r) => r.answered && r.end <= backAt).length;
  let drainedAt = 0;
  let countAtDrain = countAtFault;
  while (Date.now() - backAt < o.maxAfterMs) {
    const c = await counted();
    if (c !== undefined && c >= target) {
      drainedAt = Date.now();
      countAtDrain = c;
      break;
    }
    await sleep(250);
  }
  const sent = await load.stop();
  const loadEnd = Date.now();
  const r = await summarize(stack, outageName(o), toolId, before, records, faultAt, loadEnd);
  const caughtUpAt = loadEnd + r.statsCatchUpMs;
  const backlogDrainedMs = drainedAt ? drainedAt - backAt : -1;
  return {
    ...r,
    outage: {
      mode: o.mode,
      outageMs: backAt - faultAt,
      targetRate: o.rate,
      achievedRate: Math.round(sent.started / sent.seconds),
      notStarted: sent.notStarted,
      backlogAtRestart,
      backlogDrainedMs,
      catchUpMs: caughtUpAt - backAt,
      ingestPerSecond: drainedAt ? Math.round((countAtDrain - countAtFault) / ((drainedAt - backAt) / 1000)) : 0,
    },
  };
}

const killRestart = (pick: (s: ChaosStack) => { kill(): Promise<void>; start(): Promise<void> }): Pick<Scenario, 'inject' | 'heal'> => ({
  inject: (st) => pick(st).kill(),
  heal: (st) => pick(st).start(),
});

/** Every scenario of the suite (the overload run is separate: {@link runOverload}). */
export const SCENARIOS: Scenario[] = [
  { name: 'adapter-replica-kill', ...killRestart((st) => st.adapters[0]), replicaFault: true },
  { name: 'adapter-replica-freeze', inject: async (st) => st.adapters[0].freeze(), heal: async (st) => st.adapters[0].thaw(), replicaFault: true },
  { name: 'dispatcher-kill', ...killRestart((st) => st.dispatcher), faultMs: 1000 },
  // Restarted 0.2 s after kill -9: the dead owner may still be a zombie or its pid reused.
  { name: 'dispatcher-kill-fast-restart', ...killRestart((st) => st.dispatcher), faultMs: 200 },
  // kill -9, then its newest outbox segment damaged (garbage and a torn record): the restart starts and publishes the rest.
  {
    name: 'torn-record',
    faultMs: 500,
    inject: async (st) => {
      await st.dispatcher.kill();
      st.outbox.tear();
    },
    heal: (st) => st.dispatcher.start(),
  },
  // The outbox's disk full: appends fail, the calls' answers must not change and no event is lost.
  { name: 'disk-full', inject: async (st) => st.outbox.fill(), heal: async (st) => st.outbox.free() },
  {
    name: 'disk-full-nats-down',
    faultMs: 3000,
    inject: async (st) => {
      st.outbox.fill();
      await st.nats.kill();
    },
    heal: async (st) => {
      await st.nats.restart();
      st.outbox.free();
    },
  },
  // The dispatcher restarted while NATS is down: it waits, not ready, and serves once NATS is back.
  {
    name: 'nats-down-at-start',
    faultMs: 3000,
    inject: async (st) => {
      await st.nats.kill();
      await st.dispatcher.kill();
      await st.dispatcher.startUntil(/NATS not reachable yet/);
    },
    heal: async (st) => {
      await st.nats.restart();
      await waitFor(() => /dispatcher listening/.test(st.dispatcher.proc.output()), { timeoutMs: 60_000, intervalMs: 100, message: 'the dispatcher to serve once NATS is back' });
    },
  },
  { name: 'registry-kill', ...killRestart((st) => st.registry) },
  { name: 'nats-kill', inject: (st) => st.nats.kill(), heal: (st) => st.nats.restart(), faultMs: 3000 },
  { name: 'redis-kill', inject: (st) => st.redis.kill(), heal: (st) => st.redis.restart() },
  {
    name: 'database-freeze',
    faultMs: 10_000,
    inject: async (st) => void (st.mongo.pid && process.kill(st.mongo.pid, 'SIGSTOP')),
    heal: async (st) => void (st.mongo.pid && process.kill(st.mongo.pid, 'SIGCONT')),
  },
  {
    name: 'mcp-child-kill',
    tool: { provider: 'mcp', name: 'everything_echo', args: { message: 'chaos' } },
    concurrency: 8,
    faultMs: 3000,
    inject: async (st) => {
      const child = childrenOf(st.mcp!.proc.pid).find((c) => /server-everything/.test(c.args));
      if (child) process.kill(child.pid, 'SIGKILL');
    },
    heal: async () => undefined, // adapter-mcp respawns the server itself
  },
];
