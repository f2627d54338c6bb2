/**
 * How long forgetting expired claims takes on the MongoDB-wire store (issue 12: bounded retention):
 * `--claims` events (default 70,000, above FerretDB's 65,535-document limit of one delete) are
 * recorded through `MongoRegistryStore` with a fake clock, the clock moves past the de-dup window,
 * and the next `recordCalls` (one event) runs the prune. Reports that call's wall time and the
 * database servers' CPU during it, whether the upkeep failed, and the claim documents left.
 *
 *   npm run bench -- registry/claims-prune [--claims 70000] [--window-ms 3600000] [--untimed]
 *
 * MONGO_URL, else a private FerretDB 1.24 on PostgreSQL (as the tests start it); a database of
 * its own, dropped afterwards. `--untimed`: the events carry no timestamp. A script, not a test.
 */
import { loadavg } from 'node:os';

import type { ToolCalled } from '@toolhub/contracts';
import type { MongoClient } from 'mongodb';

import { arg } from './args';
import { runProbe, withProbeStore } from './probe-store';

const CLAIMS = Number(arg('claims', '70000'));
const WINDOW_MS = Number(arg('window-ms', '3600000'));
const UNTIMED = process.argv.includes('--untimed');
const BATCH = 5000;

function event(id: string, i: number, ts: number): ToolCalled {
  const name = `tool_${i % 50}`;
  return { eventId: id, toolId: `bench:${name}`, provider: 'bench', name, status: 'ok', errorCode: 0, latencyMs: 5, attempts: 1, fallbackUsed: '', caller: 'bench', timestampUnixMs: UNTIMED ? 0 : ts, searchId: '', claimGroup: '' };
}

async function claimDocuments(client: MongoClient, dbName: string): Promise<number> {
  const db = client.db(dbName);
  let n = 0;
  for (const c of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (c.name.startsWith('call_claims')) n += await db.collection(c.name).countDocuments();
  }
  return n;
}

async function main(): Promise<void> {
  let now = Date.UTC(2026, 10, 26, 12, 0);
  await withProbeStore('bench_prune', { clock: () => now, dedupWindowMs: WINDOW_MS }, async ({ store, client, dbName, server }) => {
    const loadStart = loadavg().map((x) => x.toFixed(2));
    const fillStart = Date.now();
    for (let i = 0; i < CLAIMS; i += BATCH) {
      const events = Array.from({ length: Math.min(BATCH, CLAIMS - i) }, (_, j) => event(`p-${i + j}`, i + j, now));
      await store.recordCalls(events);
      now += 10; // a few ms between batches, as a steady stream
    }
    const fillSeconds = (Date.now() - fillStart) / 1000;
    const before = await claimDocuments(client, dbName);
    // Past the window and the prune interval (a quarter of the window, at most 10 min).
    now += WINDOW_MS + 40 * 60_000;
    const db0 = server?.cpuMs() ?? 0;
    const t0 = process.hrtime.bigint();
    const result = await store.recordCalls([event('after-0', 0, now)]);
    const pruneMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const pruneDbMs = (server?.cpuMs() ?? 0) - db0;
    // The same call without a prune, for comparison.
    const t1 = process.hrtime.bigint();
    await store.recordCalls([event('after-1', 1, now)]);
    const plainMs = Number(process.hrtime.bigint() - t1) / 1e6;
    const after = await claimDocuments(client, dbName);
    const out = {
      claims: CLAIMS,
      untimed: UNTIMED,
      windowMs: WINDOW_MS,
      fillSeconds: Number(fillSeconds.toFixed(1)),
      claimDocumentsBefore: before,
      pruneCallMs: Math.round(pruneMs),
      pruneDatabaseCpuMs: Math.round(pruneDbMs),
      plainCallMs: Math.round(plainMs),
      upkeepError: result.upkeepError ?? null,
      claimDocumentsAfter: after,
      load: { start: loadStart, end: loadavg().map((x) => x.toFixed(2)) },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  });
}

runProbe(main);
