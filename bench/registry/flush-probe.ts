/**
 * What writing statistics later (`statsFlushMs`) saves, without NATS or a publisher in the
 * measurement: `--events` (30,000) calls over 500 real tools (Zipf s = 1) go straight into
 * `recordCalls` in batches of `--batch` (250: 500 calls/s with the registry's 500 ms linger). For
 * each `--flush-every` value the statistics are written every that many batches (a read through
 * the store writes what waits; 0 = statsFlushMs 0, written with each batch, as before). Reports the
 * CPU per event of this process and of the database servers, and checks the counts.
 *
 *   npm run bench -- registry/flush-probe [--events 30000] [--batch 250] [--flush-every 0,4,10,20] [--backends embedded,mongo]
 *     [--claims memory|stored] [--pace-ms 0]
 *
 * Embedded: EmbeddedRegistryStore as one-process mode opens it (claims in memory), or with its
 * claims in a file (`--claims stored`, the library default). `--pace-ms`: a pause after each batch,
 * so the process goes idle between batches as a registry at that rate does (500 = 500 calls/s). Mongo:
 * MONGO_URL, else a private FerretDB 1.24 on PostgreSQL (as the tests start it); a database of its
 * own, dropped afterwards. A script, not a test.
 */
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';

import { type RegistryStore } from '@toolhub/store';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { scratchDir } from '@toolhub/test-harness';

import { arg } from './args';
import { callEvents, loadCatalog, table } from './data';
import { runProbe, withProbeStore } from './probe-store';
import { ownCpuMs } from './server-cpu';

const EVENTS = Number(arg('events', '30000'));
const BATCH = Number(arg('batch', '250'));
const FLUSH_EVERY = arg('flush-every', '0,4,10,20').split(',').map(Number);
const BACKENDS = arg('backends', 'embedded,mongo').split(',');
const CLAIMS = arg('claims', 'memory') as 'memory' | 'stored';
const PACE_MS = Number(arg('pace-ms', '0'));
/** Long enough that only the probe's reads write the statistics. */
const LATER_MS = 60_000;

interface Row {
  backend: string;
  flushEvery: number;
  us: { process: number; database: number; total: number };
  counted: number;
}

async function drive(store: RegistryStore, flushEvery: number, dbCpuMs: () => number, backend: string, runId: string): Promise<Row> {
  const tools = loadCatalog(500);
  const events = callEvents(tools, EVENTS, runId);
  const p0 = ownCpuMs();
  const d0 = dbCpuMs();
  for (let i = 0, n = 0; i < events.length; i += BATCH, n++) {
    await store.recordCalls(events.slice(i, i + BATCH));
    if (PACE_MS > 0) await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    if (flushEvery > 0 && (n + 1) % flushEvery === 0) await store.getToolStats(tools[0]!.id);
  }
  const counted = (await store.listToolStats({ sortBy: 'calls', limit: 1000 })).reduce((sum, s) => sum + s.calls, 0);
  const processUs = ((ownCpuMs() - p0) * 1000) / EVENTS;
  const databaseUs = ((dbCpuMs() - d0) * 1000) / EVENTS;
  if (counted !== EVENTS) process.stderr.write(`WARNING: ${backend} flush every ${flushEvery}: counted ${counted} of ${EVENTS}\n`);
  return { backend, flushEvery, us: { process: Math.round(processUs), database: Math.round(databaseUs), total: Math.round(processUs + databaseUs) }, counted };
}

async function main(): Promise<void> {
  const loadStart = loadavg().map((x) => x.toFixed(2));
  const rows: Row[] = [];
  for (const backend of BACKENDS) {
    for (const flushEvery of FLUSH_EVERY) {
      const statsFlushMs = flushEvery === 0 ? 0 : LATER_MS;
      const runId = `fp-${backend}-${flushEvery}-${Date.now()}`;
      if (backend === 'embedded') {
        const dir = scratchDir('bench-flush-probe');
        const store = await EmbeddedRegistryStore.open({ dir, claims: CLAIMS, statsFlushMs });
        try {
          rows.push(await drive(store, flushEvery, () => 0, backend, runId));
        } finally {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        }
      } else {
        await withProbeStore('bench_flush', { clock: Date.now, dedupWindowMs: 86_400_000, statsFlushMs }, async ({ store, server }) => {
          rows.push(await drive(store, flushEvery, () => server?.cpuMs() ?? 0, backend, runId));
        });
      }
      process.stderr.write(`${backend}, flush every ${flushEvery} batches: ${JSON.stringify(rows.at(-1)?.us)} µs/event\n`);
    }
  }
  const loadEnd = loadavg().map((x) => x.toFixed(2));
  process.stdout.write(`\n${EVENTS} events in batches of ${BATCH}${PACE_MS > 0 ? `, ${PACE_MS} ms apart` : ''}, 500 tools (Zipf s = 1); load ${loadStart.join(' ')} → ${loadEnd.join(' ')}\n\n`);
  process.stdout.write(
    `${table(
      ['store', 'statistics written', 'events per write', 'CPU µs/event: process + database = total', 'counted'],
      rows.map((r) => [
        r.backend === 'embedded' ? `EmbeddedRegistryStore (claims ${CLAIMS === 'memory' ? 'in memory' : 'stored'})` : 'MongoRegistryStore',
        r.flushEvery === 0 ? 'with each batch (statsFlushMs 0)' : `every ${r.flushEvery} batches`,
        String(BATCH * Math.max(1, r.flushEvery)),
        `${r.us.process} + ${r.us.database} = ${r.us.total}`,
        `${r.counted}`,
      ]),
    )}\n`,
  );
}

runProbe(main);
