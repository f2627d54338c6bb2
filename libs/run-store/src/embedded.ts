/**
 * @toolhub/run-store/embedded — the RunStore of the one-process mode: one NeDB file (`runs.db`,
 * @seald-io/nedb, pure JS) in a directory. NeDB appends each write to the file before its promise
 * resolves, so a run acknowledged to its caller survives a crash; loading drops a torn last line
 * (a write that was never acknowledged). Records are held in memory, as NeDB does.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import Datastore from '@seald-io/nedb';

import { DocumentRunStore, type RunDoc } from './documents';
import type { RunStore } from './run-store';

/** Options of {@link openEmbeddedRunStore}. */
export interface EmbeddedRunStoreOptions {
  /** Directory of `runs.db` (created if missing). */
  dir: string;
  /** How often the append-only file is rewritten compacted. @default 60000 */
  compactionIntervalMs?: number;
}

/** Opens (creating if needed) `<dir>/runs.db`. Rejects when the file cannot be read or written. */
export async function openEmbeddedRunStore(options: EmbeddedRunStoreOptions): Promise<RunStore> {
  await mkdir(options.dir, { recursive: true });
  const ds = new Datastore<RunDoc>({ filename: join(options.dir, 'runs.db'), corruptAlertThreshold: 1 });
  await ds.loadDatabaseAsync();
  await ds.ensureIndexAsync({ fieldName: 'principalId' });
  await ds.ensureIndexAsync({ fieldName: 'state' });
  ds.setAutocompactionInterval(options.compactionIntervalMs ?? 60_000);
  return new DocumentRunStore({
    findOne: async (filter) => (await ds.findOneAsync(filter)) ?? undefined,
    find: (filter, sort, limit) => ds.findAsync(filter).sort(sort).limit(limit).execAsync(),
    insert: async (doc) => {
      try {
        await ds.insertAsync(doc);
        return true;
      } catch (err) {
        if ((err as { errorType?: unknown } | null)?.errorType === 'uniqueViolated') return false;
        throw err;
      }
    },
    replace: async (filter, doc) => (await ds.updateAsync(filter, doc, {})).numAffected === 1,
    deleteMany: (filter) => ds.removeAsync(filter, { multi: true }),
    // In memory: counting all is as cheap as counting some.
    count: async (filter, limit) => Math.min(await ds.countAsync(filter), limit),
    close: async () => {
      ds.stopAutocompaction();
      await ds.compactDatafileAsync();
    },
  });
}
