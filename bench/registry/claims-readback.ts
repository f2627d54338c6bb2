/**
 * What a redelivery costs on the MongoDB-wire store: `--claims` events (default 100,000) are
 * recorded through `MongoRegistryStore` in one 10-minute claim slot, then the last `--redeliver`
 * of them (default 5,000) are recorded again, as JetStream redelivers a batch whose writer crashed
 * before acknowledging it. Every claim of that batch is taken, so the store reads their owners
 * back. Reports the redelivery's wall time and the database servers' CPU during it, and checks it
 * counted nothing twice.
 *
 *   npm run bench -- registry/claims-readback [--claims 100000] [--redeliver 5000]
 *
 * MONGO_URL, else a private FerretDB 1.24 on PostgreSQL (as the tests start it); a database of
 * its own, dropped afterwards. A script, not a test.
 */
import { loadavg } from 'node:os';

import type { ToolCalled } from '@toolhub/contracts';

import { arg } from './args';
import { runProbe, withProbeStore } from './probe-store';

const CLAIMS = Number(arg('claims', '100000'));
const REDELIVER = Math.min(CLAIMS, Number(arg('redeliver', '5000')));
const BATCH = 5000;

function event(i: number, ts: number): ToolCalled {
  const name = `tool_${i % 50}`;
  return { eventId: `rb-${i}`, toolId: `bench:${name}`, provider: 'bench', name, status: 'ok', errorCode: 0, latencyMs: 5, attempts: 1, fallbackUsed: '', caller: 'bench', timestampUnixMs: ts, searchId: '', claimGroup: '' };
}

async function main(): Promise<void> {
  // The start of a 10-minute slot: every event below falls in it.
  const start = Date.UTC(2026, 10, 26, 12, 0);
  let now = start;
  await withProbeStore('bench_readback', { clock: () => now, dedupWindowMs: 3_600_000 }, async ({ store, server }) => {
    const loadStart = loadavg().map((x) => x.toFixed(2));
    const events = Array.from({ length: CLAIMS }, (_, i) => event(i, start + Math.floor((i / CLAIMS) * 500_000)));
    const fillStart = Date.now();
    for (let i = 0; i < CLAIMS; i += BATCH) {
      await store.recordCalls(events.slice(i, i + BATCH));
      now += 10;
    }
    const fillSeconds = (Date.now() - fillStart) / 1000;
    const db0 = server?.cpuMs() ?? 0;
    const t0 = process.hrtime.bigint();
    const result = await store.recordCalls(events.slice(CLAIMS - REDELIVER));
    const redeliveryMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const redeliveryDbMs = (server?.cpuMs() ?? 0) - db0;
    const counted = (await store.listToolStats({ provider: 'bench' })).reduce((n, s) => n + s.calls, 0);
    const out = {
      claims: CLAIMS,
      redelivered: REDELIVER,
      fillSeconds: Number(fillSeconds.toFixed(1)),
      redeliveryCallMs: Math.round(redeliveryMs),
      redeliveryDatabaseCpuMs: Math.round(redeliveryDbMs),
      recorded: result.recorded,
      duplicates: result.duplicates,
      counted,
      exact: counted === CLAIMS && result.duplicates === REDELIVER && result.recorded === 0,
      load: { start: loadStart, end: loadavg().map((x) => x.toFixed(2)) },
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    if (!out.exact) process.exitCode = 1;
  });
}

runProbe(main);
