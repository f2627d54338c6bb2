/**
 * What one write of a tool's statistics costs the database, by how much hourly history the tool
 * has. For each `--hours` value: 500 real tools on a fresh MongoRegistryStore (MONGO_URL, else a
 * private FerretDB 1.24 on PostgreSQL as the tests start it), each given one call in each of its
 * last N hours (written once, then once more, not measured); then `--rounds` times one more call per tool, written
 * by a read through the store (the flush: one compare-and-set replace per tool, plus one batch and
 * its claims). Reports the database servers' CPU per tool write and this process's, and checks
 * the counts. A script, not a test.
 *
 *   npm run bench -- registry/stats-write-probe [--hours 1,24,168] [--rounds 4]
 */
import { loadavg } from 'node:os';

import type { ToolCalled } from '@toolhub/contracts';

import { arg } from './args';
import { loadCatalog, table } from './data';
import { runProbe, withProbeStore } from './probe-store';
import { ownCpuMs } from './server-cpu';

const HOURS = arg('hours', '1,24,168').split(',').map(Number);
const ROUNDS = Number(arg('rounds', '4'));
const TOOLS = 500;
const HOUR_MS = 3_600_000;
/** Long enough that only the probe's reads write the statistics. */
const LATER_MS = 60_000;

interface Row {
  hours: number;
  writes: number;
  databaseMs: number;
  processMs: number;
}

function call(id: string, toolId: string, ts: number): ToolCalled {
  const [provider, name] = toolId.split(':') as [string, string];
  return {
    eventId: id,
    toolId,
    provider,
    name,
    status: 'ok',
    errorCode: 0,
    latencyMs: 5 + (id.length % 40),
    attempts: 1,
    fallbackUsed: '',
    caller: 'probe',
    timestampUnixMs: ts,
    searchId: '',
    claimGroup: '',
  };
}

async function main(): Promise<void> {
  if (HOURS.some((h) => !Number.isInteger(h) || h < 1 || h > 168) || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
    throw new Error(`--hours takes whole hours from 1 to 168 (the store's retention), --rounds a count >= 1; got ${arg('hours', '')} and ${arg('rounds', '')}`);
  }
  const tools = loadCatalog(TOOLS).map((t) => t.id);
  const loadStart = loadavg().map((x) => x.toFixed(2));
  const rows: Row[] = [];
  for (const hours of HOURS) {
    const start = Date.now();
    await withProbeStore('bench_stats_write', { clock: Date.now, dedupWindowMs: 2 * 168 * HOUR_MS, statsFlushMs: LATER_MS }, async ({ store, server }) => {
      // History: one call per tool in each of its last `hours` hours, in batches of one hour.
      for (let h = hours - 1; h >= 0; h--) {
        const ts = start - h * HOUR_MS;
        await store.recordCalls(tools.map((t, i) => call(`seed-${hours}-${h}-${i}`, t, ts)));
      }
      await store.getToolStats(tools[0]!);
      // One unmeasured flush: the first write after the history carries its many batches in the guard.
      await store.recordCalls(tools.map((t, i) => call(`warm-${hours}-${i}`, t, Date.now())));
      await store.getToolStats(tools[0]!);
      let databaseMs = 0;
      let processMs = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const db0 = server?.cpuMs() ?? 0;
        const p0 = ownCpuMs();
        await store.recordCalls(tools.map((t, i) => call(`round-${hours}-${r}-${i}`, t, Date.now())));
        await store.getToolStats(tools[0]!);
        databaseMs += (server?.cpuMs() ?? 0) - db0;
        processMs += ownCpuMs() - p0;
      }
      const counted = (await store.listToolStats({ sortBy: 'calls', limit: TOOLS })).reduce((sum, s) => sum + s.calls, 0);
      const expected = TOOLS * (hours + 1 + ROUNDS);
      if (counted !== expected) throw new Error(`counted ${counted} calls, expected ${expected}`);
      rows.push({ hours, writes: TOOLS * ROUNDS, databaseMs, processMs });
    });
    const row = rows.at(-1)!;
    process.stderr.write(`${hours} h of history: ${(row.databaseMs / row.writes).toFixed(2)} ms of database CPU per tool write\n`);
  }
  const loadEnd = loadavg().map((x) => x.toFixed(2));
  process.stdout.write(`\n${TOOLS} tools, ${ROUNDS} flushes of one call per tool each; load ${loadStart.join(' ')} → ${loadEnd.join(' ')}\n\n`);
  process.stdout.write(
    `${table(
      ['hourly history', 'tool writes', 'database CPU ms per write', 'process CPU ms per write'],
      rows.map((r) => [`${r.hours} h`, String(r.writes), (r.databaseMs / r.writes).toFixed(2), (r.processMs / r.writes).toFixed(2)]),
    )}\n`,
  );
}

runProbe(main);
