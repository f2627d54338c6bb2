/**
 * What the MongoDB-wire probes (`claims-prune`, `claims-readback`) share: a MongoRegistryStore on
 * a database of its own (MONGO_URL, else a private FerretDB as the tests start it) with a clock
 * the probe moves, the database servers' CPU, and the clean-up.
 */
import { randomUUID } from 'node:crypto';

import { MongoRegistryStore } from '@toolhub/store/mongo';
import { mongoUrl } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';

import { type ServerCpu, serverCpu } from './server-cpu';

export interface ProbeStore {
  store: MongoRegistryStore;
  /** A second connection, to look at the database directly. */
  client: MongoClient;
  dbName: string;
  /** CPU of the database server processes, when they can be found (Linux, a local server). */
  server: ServerCpu | undefined;
}

/** Runs `probe` on a fresh database named `<prefix>_<random>`, dropped afterwards. */
export async function withProbeStore(prefix: string, options: { clock: () => number; dedupWindowMs: number; statsFlushMs?: number }, probe: (p: ProbeStore) => Promise<void>): Promise<void> {
  const url = await mongoUrl();
  const dbName = `${prefix}_${randomUUID().slice(0, 8)}`;
  const client = new MongoClient(url);
  await client.connect();
  const store = await MongoRegistryStore.connect({ url, dbName, ...options });
  try {
    await probe({ store, client, dbName, server: serverCpu(url) });
  } finally {
    await store.close();
    await client.db(dbName).dropDatabase().catch(() => undefined);
    await client.close();
  }
}

/** Runs a probe's main; a failure prints its stack and exits 1. */
export function runProbe(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
