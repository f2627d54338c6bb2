/**
 * Child process of the kill tests: records batch after batch into a store and prints `acked <i>`
 * after each write returned, until it is killed. Usage:
 *   node --import tsx record-until-killed.ts embedded <dir> | mongo <url> <dbName>
 * STATS_FLUSH_MS sets the store's statsFlushMs (default 0); KILL_EPOCH_MS (required) the events'
 * time base, shared with the test so its redeliveries are byte-identical (support/kill-batches.ts).
 */
import { type RegistryStore } from '../../src/index';
import { EmbeddedRegistryStore } from '../../src/embedded';
import { MongoRegistryStore } from '../../src/mongo';
import { killBatch } from './kill-batches';

async function main(): Promise<void> {
  const [kind, target, dbName] = process.argv.slice(2);
  if (!target) throw new Error('usage: record-until-killed.ts embedded <dir> | mongo <url> <dbName>');
  // Never outlive the test process.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(2), 500).unref();
  const statsFlushMs = Number(process.env['STATS_FLUSH_MS'] ?? '0');
  const epochMs = Number(process.env['KILL_EPOCH_MS']);
  if (!Number.isSafeInteger(epochMs) || epochMs <= 0) throw new Error(`KILL_EPOCH_MS must be a positive integer (ms since the epoch), got ${JSON.stringify(process.env['KILL_EPOCH_MS'])}`);
  const store: RegistryStore =
    kind === 'embedded' ? await EmbeddedRegistryStore.open({ dir: target, statsFlushMs }) : await MongoRegistryStore.connect({ url: target, dbName: dbName ?? 'toolhub', statsFlushMs });
  process.stdout.write('ready\n');
  for (let i = 0; i < 100_000; i++) {
    await store.recordCalls(killBatch(i, epochMs));
    process.stdout.write(`acked ${i}\n`);
  }
  await store.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
