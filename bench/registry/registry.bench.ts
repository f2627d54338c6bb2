/**
 * Registry benchmark: how fast `tool.called` events are ingested into the statistics, and how fast
 * tool search answers over a catalog of 5,000 real tools. Prints Markdown tables and JSON and writes
 * bench/results/registry.json (git-ignored). A benchmark, not a test: it never fails on time.
 *
 *   npx tsx bench/registry/registry.bench.ts [--events 50000] [--tools 500] [--catalog 5000]
 *                                            [--searches 2000] [--backends mongo,embedded]
 *
 * Ingestion: `Registry.start` on a NatsBus (a private nats-server with JetStream per run, so the
 * stream holds only this run's events) with each store — MongoRegistryStore (MONGO_URL, else a
 * private FerretDB started by @toolhub/test-harness; a database of its own, dropped afterwards) and
 * EmbeddedRegistryStore (NeDB files in a scratch directory). `--events` ToolCalled events over
 * `--tools` real tools (Zipf-distributed, as usage is) are published from a second connection, as
 * dispatchers publish them; the clock stops when the store has counted every one (then the counts
 * are checked against the store). Two modes: "live" (the registry consumes while events are
 * published) and "backlog" (all events wait in JetStream, then the registry starts and drains them).
 *
 * Search: the catalog is synced into the store one provider at a time (as adapters announce), the
 * registry starts (building its index from the store), and `--searches` requests go (a) through the
 * bus as the dispatcher sends them (`RegistryClient.search`, request/reply over NATS) and (b)
 * straight into `registry.search.search`. One request at a time; wall-clock latency per request.
 */
import { NatsBus } from '@toolhub/bus';
import type { ToolCalled } from '@toolhub/contracts';
import { RegistryClient } from '@toolhub/dispatcher-core';
import { DEFAULT_STATS_FLUSH_MS, Registry } from '@toolhub/registry-core';
import { type RegistryStore } from '@toolhub/store';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { MongoRegistryStore } from '@toolhub/store/mongo';
import { mongoUrl, scratchDir, spawnProcess, startNatsServer } from '@toolhub/test-harness';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { arg } from './args';
import { byProvider, callEvents, loadCatalog, percentiles, REPO_ROOT, searchWorkload, table, writeResult } from './data';
import { publishEvents } from './event-messages';
import { ownCpuMs, serverCpu } from './server-cpu';

type Backend = 'mongo' | 'embedded';
type Mode = 'live' | 'backlog' | 'trickle';


const EVENTS = Number(arg('events', '50000'));
/**
 * Events of the MongoDB runs. FerretDB 1.24 on SQLite (the stand-in started when MONGO_URL is unset)
 * scans whole collections for _id lookups and manages ~50–150 events/s, so 50,000 would take
 * 10 minutes per mode; pass --mongo-events 50000 with a real MongoDB in MONGO_URL.
 */
const MONGO_EVENTS = Number(arg('mongo-events', process.env['MONGO_URL'] ? String(EVENTS) : '5000'));
const TOOLS = Number(arg('tools', '500'));
const CATALOG = Number(arg('catalog', '5000'));
const SEARCHES = Number(arg('searches', '2000'));
const BACKENDS = arg('backends', 'mongo,embedded').split(',') as Backend[];
const MODES = arg('modes', 'live,backlog,trickle').split(',') as Mode[];
/** Trickle mode: events per second, as dispatchers serving calls publish them, and for how long. */
const TRICKLE_RATE = Number(arg('trickle-rate', '500'));
const TRICKLE_SECONDS = Number(arg('trickle-seconds', '10'));
/** Events per published message (event-messages.ts); 1 = one message per event. */
const EVENTS_PER_MESSAGE = Number(arg('events-per-message', '1'));
/** Stamp each message's events with a claim group and publish them grouped (event-messages.ts). */
const CLAIM_GROUPS = process.argv.includes('--claim-groups');
/** Registry `statsBatch` (events per store write); unset = the registry's default. */
const STATS_BATCH = process.argv.includes('--stats-batch') ? Number(arg('stats-batch', '0')) : undefined;
const STATS_LINGER_MS = process.argv.includes('--stats-linger-ms') ? Number(arg('stats-linger-ms', '0')) : undefined;
/** The store's statsFlushMs: the apps' default unless given. */
const STATS_FLUSH_MS = Number(arg('stats-flush-ms', String(DEFAULT_STATS_FLUSH_MS)));
const SKIP_SEARCH = process.argv.includes('--no-search');
/**
 * Store behind the search run. The index is in memory, so results do not depend on it; the default
 * is the embedded store because syncing 5,000 tools of 534 providers into FerretDB takes ~3 minutes.
 */
const SEARCH_BACKEND = arg('search-backend', 'embedded') as Backend;
/** Events in flight while publishing (each publish waits for the stream's acknowledgement). */
const PUBLISH_WINDOW = 1000;

const now = () => Number(process.hrtime.bigint());
const execFileAsync = promisify(execFile);
const log = (msg: string) => process.stderr.write(`${msg}\n`);

interface OpenStore {
  store: RegistryStore;
  label: string;
  /** The embedded store's directory. */
  dir?: string;
  /** The MongoDB URL (MongoRegistryStore). */
  url?: string;
  dispose(): Promise<void>;
}

/** Publishes `count` events at the trickle rate from a child process (trickle-publisher.ts). */
async function publishFromChild(natsUrl: string, count: number, run: string): Promise<{ publishSeconds: number; cpuMs: number }> {
  const script = join(__dirname, 'trickle-publisher.js');
  const { stdout } = await execFileAsync(process.execPath, [script, '--nats', natsUrl, '--tools', String(TOOLS), '--count', String(count), '--rate', String(TRICKLE_RATE), '--run', run, '--events-per-message', String(EVENTS_PER_MESSAGE), ...(CLAIM_GROUPS ? ['--claim-groups'] : [])], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { publishSeconds: number; cpuMs: number };
}

async function openStore(backend: Backend): Promise<OpenStore> {
  if (backend === 'embedded') {
    const dir = scratchDir('bench-registry-embedded');
    const store = await EmbeddedRegistryStore.open({ dir, statsFlushMs: STATS_FLUSH_MS });
    return { store, label: 'EmbeddedRegistryStore (NeDB files)', dir, dispose: () => store.close() };
  }
  const url = await mongoUrl();
  const dbName = `bench_registry_${randomUUID().slice(0, 8)}`;
  const store = await MongoRegistryStore.connect({ url, dbName, statsFlushMs: STATS_FLUSH_MS });
  return {
    store,
    label: process.env['MONGO_URL'] ? 'MongoRegistryStore (MONGO_URL)' : 'MongoRegistryStore (private FerretDB 1.24)',
    url,
    dispose: async () => {
      await store.close();
      const { MongoClient } = await import('mongodb');
      const client = new MongoClient(url);
      await client.db(dbName).dropDatabase().catch(() => undefined);
      await client.close();
    },
  };
}

async function publishAll(bus: NatsBus, events: readonly ToolCalled[]): Promise<void> {
  for (let i = 0; i < events.length; i += PUBLISH_WINDOW * EVENTS_PER_MESSAGE) await publishEvents(bus, events.slice(i, i + PUBLISH_WINDOW * EVENTS_PER_MESSAGE), EVENTS_PER_MESSAGE, { claimGroups: CLAIM_GROUPS });
}

async function waitUntil(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface IngestionResult {
  backend: Backend;
  store: string;
  mode: Mode;
  events: number;
  tools: number;
  /** Time from the first publish (live) or the registry start (backlog) until the store counted every event. */
  seconds: number;
  eventsPerSecond: number;
  /** Publishing alone (live mode: while the registry consumes). */
  publishSeconds?: number;
  counted: number;
  /**
   * CPU per event of the ingestion, µs: the registry (this process; in trickle mode the events
   * come from a child process, trickle-publisher.ts) and the
   * database server processes (FerretDB and its PostgreSQL, found by port). Not in live mode.
   */
  cpuUsPerEvent?: { registry: number; database: number; total: number; databaseProcesses: string };
}

async function ingestion(backend: Backend, mode: Mode, tools: ReturnType<typeof loadCatalog>): Promise<IngestionResult> {
  const nats = await startNatsServer();
  const { store, label, dispose, url } = await openStore(backend);
  const publisher = await NatsBus.connect({ servers: nats.url, name: 'bench-dispatcher' });
  const registryBus = await NatsBus.connect({ servers: nats.url, name: 'bench-registry' });
  const run = randomUUID().slice(0, 8);
  const count = mode === 'trickle' ? Math.round(TRICKLE_RATE * TRICKLE_SECONDS) : backend === 'mongo' ? MONGO_EVENTS : EVENTS;
  // In trickle mode the child publisher builds the same events itself.
  const events = mode === 'trickle' ? [] : callEvents(tools.slice(0, TOOLS), count, run);
  const db = url ? serverCpu(url) : undefined;
  const dbCpu = () => db?.cpuMs() ?? 0;
  let registry: Registry | undefined;
  try {
    let started: number;
    let publishSeconds: number | undefined;
    let cpu0 = 0;
    let db0 = 0;
    const startRegistry = () => Registry.start(registryBus, store, { statsConsumer: `bench_${run}`, statsBatch: STATS_BATCH, statsLingerMs: STATS_LINGER_MS });
    if (mode === 'live') {
      registry = await startRegistry();
      started = now();
      await publishAll(publisher, events);
      publishSeconds = (now() - started) / 1e9;
    } else if (mode === 'backlog') {
      await publishAll(publisher, events);
      started = now();
      cpu0 = ownCpuMs();
      db0 = dbCpu();
      registry = await startRegistry();
    } else {
      // The events come from a process of its own (trickle-publisher.ts), so this process's CPU is
      // the registry's alone.
      registry = await startRegistry();
      started = now();
      cpu0 = ownCpuMs();
      db0 = dbCpu();
      publishSeconds = (await publishFromChild(nats.url, count, run)).publishSeconds;
    }
    const r = registry;
    await waitUntil(() => r.ingested >= count, 15 * 60_000, `${count} events in ${label}`);
    // Counted = in the statistics: the read writes what still waits (statsFlushMs) before it answers.
    const counted = (await store.listToolStats({ sortBy: 'calls', limit: 1000 })).reduce((sum, s) => sum + s.calls, 0);
    const seconds = (now() - started) / 1e9;
    let cpuUsPerEvent: IngestionResult['cpuUsPerEvent'];
    if (mode !== 'live') {
      const registryUs = ((ownCpuMs() - cpu0) * 1000) / count;
      const databaseUs = ((dbCpu() - db0) * 1000) / count;
      cpuUsPerEvent = { registry: Math.round(registryUs), database: Math.round(databaseUs), total: Math.round(registryUs + databaseUs), databaseProcesses: db?.label ?? (backend === 'embedded' ? 'none (in process)' : 'not found (not local?)') };
    }
    if (counted !== count) log(`WARNING: ${label} counted ${counted} calls, expected ${count}`);
    return { backend, store: label, mode, events: count, tools: TOOLS, seconds: round(seconds, 3), eventsPerSecond: Math.round(count / seconds), publishSeconds: publishSeconds && round(publishSeconds, 3), counted, cpuUsPerEvent };
  } finally {
    await registry?.close();
    await registryBus.close();
    await publisher.close();
    await dispose();
    await nats.dispose();
  }
}

interface SearchResult {
  store: string;
  catalog: number;
  providers: number;
  syncSeconds: number;
  /** Registry.start: reading the catalog from the store and building the search index. */
  startSeconds: number;
  searches: number;
  viaBus: ReturnType<typeof percentiles> & { perSecond: number };
  /** NATS request/reply to a registry in its own process (embedded store only; else undefined). */
  viaBusOwnProcess?: ReturnType<typeof percentiles> & { perSecond: number };
  direct: ReturnType<typeof percentiles> & { perSecond: number };
  /** CPU time of this process per in-process search (wall clock minus waiting for a core, roughly). */
  directCpu: ReturnType<typeof percentiles>;
  directByKind: Record<string, ReturnType<typeof percentiles> & { count: number }>;
  emptyAnswers: number;
}

async function search(backend: Backend, tools: ReturnType<typeof loadCatalog>): Promise<SearchResult> {
  const nats = await startNatsServer();
  const opened = await openStore(backend);
  const { store, label, dir } = opened;
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    await opened.dispose();
  };
  const registryBus = await NatsBus.connect({ servers: nats.url, name: 'bench-registry' });
  const dispatcherBus = await NatsBus.connect({ servers: nats.url, name: 'bench-dispatcher' });
  let registry: Registry | undefined;
  try {
    const groups = byProvider(tools);
    let t = now();
    for (const [provider, list] of groups) await store.upsertTools(provider, list);
    const syncSeconds = (now() - t) / 1e9;
    t = now();
    // No adapter announces these providers: keep their stored catalogs past the resync grace period.
    registry = await Registry.start(registryBus, store, { statsConsumer: `bench_search_${randomUUID().slice(0, 8)}`, resync: { graceMs: 0 } });
    const startSeconds = (now() - t) / 1e9;
    if (registry.search.size !== tools.length) log(`WARNING: the index holds ${registry.search.size} tools, expected ${tools.length}`);

    const workload = searchWorkload(tools, SEARCHES);
    const client = new RegistryClient(dispatcherBus);
    // Warm-up: JIT, connection, first-use allocations.
    for (const w of workload.slice(0, 200)) {
      registry.search.search(w.request);
      await client.search(w.request, 2000);
    }

    const viaBus: number[] = [];
    let emptyAnswers = 0;
    let started = now();
    for (const w of workload) {
      const s = now();
      const res = await client.search(w.request, 2000);
      viaBus.push(now() - s);
      if (res.hits.length === 0) emptyAnswers++;
    }
    const busSeconds = (now() - started) / 1e9;

    const direct: number[] = [];
    const directCpu: number[] = [];
    const byKind = new Map<string, number[]>();
    started = now();
    for (const w of workload) {
      const cpu = process.cpuUsage();
      const s = now();
      registry.search.search(w.request);
      const d = now() - s;
      const used = process.cpuUsage(cpu);
      directCpu.push((used.user + used.system) * 1000);
      direct.push(d);
      const kind = byKind.get(w.kind);
      if (kind) kind.push(d);
      else byKind.set(w.kind, [d]);
    }
    const directSeconds = (now() - started) / 1e9;

    // The same requests to a registry in a process of its own (as deployed), on the same store.
    let viaBusOwnProcess: SearchResult['viaBusOwnProcess'];
    if (dir) {
      await registry.close();
      registry = undefined;
      await dispose();
      const child = await spawnProcess(process.execPath, ['--import', 'tsx', 'bench/registry/search-registry.ts'], {
        cwd: REPO_ROOT,
        env: { NATS_URL: nats.url, BENCH_STORE_DIR: dir },
        readyPattern: /bench registry ready/,
        timeoutMs: 60_000,
      });
      try {
        for (const w of workload.slice(0, 200)) await client.search(w.request, 2000);
        const times: number[] = [];
        started = now();
        for (const w of workload) {
          const s = now();
          await client.search(w.request, 2000);
          times.push(now() - s);
        }
        viaBusOwnProcess = { ...percentiles(times), perSecond: Math.round(workload.length / ((now() - started) / 1e9)) };
      } finally {
        await child.kill('SIGTERM');
      }
    }
    return {
      store: label,
      catalog: tools.length,
      providers: groups.size,
      syncSeconds: round(syncSeconds, 2),
      startSeconds: round(startSeconds, 2),
      searches: workload.length,
      viaBus: { ...percentiles(viaBus), perSecond: Math.round(workload.length / busSeconds) },
      ...(viaBusOwnProcess ? { viaBusOwnProcess } : {}),
      direct: { ...percentiles(direct), perSecond: Math.round(workload.length / directSeconds) },
      directCpu: percentiles(directCpu),
      directByKind: Object.fromEntries([...byKind].map(([k, v]) => [k, { ...percentiles(v), count: v.length }])),
      emptyAnswers,
    };
  } finally {
    await registry?.close();
    await dispatcherBus.close();
    await registryBus.close();
    await dispose();
    await nats.dispose();
  }
}

/**
 * The CPU of one RunTool, all processes (agent, dispatcher, adapter, nats-server), from `--call-cpu-us`
 * or from the dispatcher benchmark's last result (bench/results/dispatcher.json): the cheapest
 * RunTool row, i.e. at concurrency 64, so the 10% aim is checked against the smallest call.
 */
function callCpuReference(): { us: number; source: string } | undefined {
  const given = Number(arg('call-cpu-us', 'NaN'));
  if (Number.isFinite(given)) return { us: given, source: `--call-cpu-us ${given}` };
  try {
    const file = `${REPO_ROOT}/bench/results/dispatcher.json`;
    const d = JSON.parse(readFileSync(file, 'utf8')) as { date: string; rows: Array<{ name: string; concurrency: number; cpuUsPerCall: Record<string, number> }> };
    const rows = d.rows.filter((r) => r.name.startsWith('RunTool via dispatcher (gRPC'));
    const costs = rows.map((r) => ({ c: r.concurrency, us: Object.values(r.cpuUsPerCall).reduce((a, b) => a + b, 0) }));
    const cheapest = costs.sort((a, b) => a.us - b.us)[0];
    if (!cheapest) return undefined;
    return { us: cheapest.us, source: `RunTool via dispatcher at concurrency ${cheapest.c}, all processes, from bench/results/dispatcher.json of ${d.date} (${costs.map((x) => `@${x.c}: ${x.us} µs`).join(', ')})` };
  } catch {
    return undefined;
  }
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

async function main(): Promise<void> {
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? '', memoryGiB: round(totalmem() / 2 ** 30, 1), node: process.version, loadavgAtStart: loadavg().map((x) => round(x, 2)) };
  log(`registry benchmark on ${machine.cpus} × ${machine.cpu}, load ${machine.loadavgAtStart.join(' ')}`);
  const tools = loadCatalog(CATALOG);

  const ingestionResults: IngestionResult[] = [];
  for (const backend of BACKENDS) {
    for (const mode of MODES) {
      log(`ingestion: ${backend}, ${mode}, ${backend === 'mongo' ? MONGO_EVENTS : EVENTS} events over ${TOOLS} tools ...`);
      const r = await ingestion(backend, mode, tools);
      log(`  ${r.eventsPerSecond} events/s (${r.seconds} s)`);
      ingestionResults.push(r);
    }
  }
  let searchResult: SearchResult | undefined;
  if (!SKIP_SEARCH) {
    log(`search: ${CATALOG} tools, ${SEARCHES} requests ...`);
    searchResult = await search(SEARCH_BACKEND, tools);
  }

  const targets = { ingestionEventsPerSecond: 5000, searchP99Ms: 5 };
  const result = { benchmark: 'registry', statsBatch: STATS_BATCH ?? 'registry default', statsLingerMs: STATS_LINGER_MS ?? 'registry default', statsFlushMs: STATS_FLUSH_MS, eventsPerMessage: EVENTS_PER_MESSAGE, claimGroups: CLAIM_GROUPS, date: new Date().toISOString(), machine: { ...machine, loadavgAtEnd: loadavg().map((x) => round(x, 2)) }, targets, ingestion: ingestionResults, search: searchResult };

  const call = callCpuReference();
  const out: string[] = [];
  out.push(`## Statistics ingestion (tool.called events over ${TOOLS} real tools, Zipf s=1; registry statsBatch ${STATS_BATCH ?? 'default'}, statsLingerMs ${STATS_LINGER_MS ?? 'default'}; store statsFlushMs ${STATS_FLUSH_MS}; trickle ${TRICKLE_RATE}/s)`, '');
  out.push(
    table(
      ['store', 'mode', 'events', 'events/s', 'seconds', 'publish s', 'counted', `≥ ${targets.ingestionEventsPerSecond}/s`, 'CPU µs/event registry + db = total', call ? `≤ 10% of a call (${call.us} µs)` : '≤ 10% of a call'],
      ingestionResults.map((r) => [
        r.store,
        r.mode,
        r.events.toLocaleString('en'),
        r.eventsPerSecond.toLocaleString('en'),
        r.seconds,
        r.publishSeconds ?? '–',
        r.counted.toLocaleString('en'),
        r.mode === 'trickle' ? '–' : r.eventsPerSecond >= targets.ingestionEventsPerSecond ? 'yes' : 'no',
        r.cpuUsPerEvent ? `${r.cpuUsPerEvent.registry} + ${r.cpuUsPerEvent.database} = ${r.cpuUsPerEvent.total}` : '–',
        r.cpuUsPerEvent && call ? `${r.cpuUsPerEvent.total <= call.us / 10 ? 'yes' : 'no'} (${Math.round((100 * r.cpuUsPerEvent.total) / call.us)}%)` : '–',
      ]),
    ),
  );
  if (call) out.push('', `Call CPU: ${call.source}.`);
  (result as Record<string, unknown>)['callCpuReference'] = call;
  const s = searchResult;
  if (s) {
    out.push('', `## Search over ${s.catalog.toLocaleString('en')} real tools (${s.providers} providers; ${s.searches} requests, limit 10)`, '');
    out.push(`catalog sync ${s.syncSeconds} s (${s.store}), registry start + index build ${s.startSeconds} s, empty answers ${s.emptyAnswers}`, '');
    const meets = (p99: number) => (p99 < targets.searchP99Ms ? 'yes' : 'no');
    out.push(
      table(
        ['path', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'req/s', `p99 < ${targets.searchP99Ms} ms`],
        [
          ['NATS request/reply (RegistryClient → registry, both in this process)', s.viaBus.p50, s.viaBus.p95, s.viaBus.p99, s.viaBus.max, s.viaBus.perSecond, meets(s.viaBus.p99)],
          ...(s.viaBusOwnProcess
            ? [['NATS request/reply to a registry in its own process', s.viaBusOwnProcess.p50, s.viaBusOwnProcess.p95, s.viaBusOwnProcess.p99, s.viaBusOwnProcess.max, s.viaBusOwnProcess.perSecond, meets(s.viaBusOwnProcess.p99)]]
            : []),
          ['in process (registry.search.search)', s.direct.p50, s.direct.p95, s.direct.p99, s.direct.max, s.direct.perSecond, meets(s.direct.p99)],
          ['in process, CPU time only', s.directCpu.p50, s.directCpu.p95, s.directCpu.p99, s.directCpu.max, '–', meets(s.directCpu.p99)],
        ],
      ),
    );
    out.push('', table(['kind (in process)', 'count', 'p50 ms', 'p95 ms', 'p99 ms'], Object.entries(s.directByKind).map(([k, v]) => [k, v.count, v.p50, v.p95, v.p99])));
  }
  process.stdout.write(`${out.join('\n')}\n\n${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${writeResult(arg('out', 'registry'), result)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`registry benchmark failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
