/** EmbeddedRegistryStore: the RegistryStore of the one-process mode, in files of one directory. */
import { DocumentRegistryStore } from '../document-store';
import { StoreError } from '../errors';
import { type StoreOptions, positiveInt, withStoreDefaults } from '../options';
import { IN_MEMORY_BATCH_BYTES_PER_EVENT } from '../stats/recorder';
import { NedbBackend } from './nedb-backend';

/** Options of {@link EmbeddedRegistryStore.open}. */
export interface EmbeddedRegistryStoreOptions extends StoreOptions {
  /** Data directory (created if missing); one process at a time. */
  dir: string;
  /** How often the append-only files are rewritten compacted. @default 600000 (10 min) */
  compactionIntervalMs?: number;
  /**
   * Where the event ids counted within `dedupWindowMs` are kept: `stored` (a NeDB file, held in
   * memory too, ~200 bytes per event) or `memory` (a Map, ~80 bytes per event, nothing on disk).
   * With `memory` an event delivered again after a restart is counted again: choose it only when
   * nothing can redeliver an event across a restart (one-process mode: in-memory bus, no outbox).
   * @default 'stored'
   */
  claims?: 'stored' | 'memory';
}

/** Defaults of {@link EmbeddedRegistryStoreOptions}. */
export const embeddedRegistryStoreDefaults = {
  compactionIntervalMs: 10 * 60 * 1000,
  claims: 'stored',
} as const;

/**
 * The registry's store without a server: NeDB files in `dir`, kept across restarts. One process
 * per directory (a LOCK file enforces it). Same behaviour as MongoRegistryStore, same contract.
 */
export class EmbeddedRegistryStore extends DocumentRegistryStore {
  private constructor(backend: NedbBackend, options: ReturnType<typeof withStoreDefaults>, description: string) {
    // NeDB keeps every document in memory, the waiting batches' too.
    super(backend, options, description, false, undefined, IN_MEMORY_BATCH_BYTES_PER_EVENT);
  }

  /**
   * Opens (or creates) the store in `options.dir` and finishes batches of statistics left behind
   * by a crash.
   * @throws StoreError invalid_options for a missing `dir`; locked when another live process has
   *   the directory open (or this one does); backend when the files cannot be read or written.
   */
  static async open(options: EmbeddedRegistryStoreOptions): Promise<EmbeddedRegistryStore> {
    const resolved = withStoreDefaults(options);
    if (typeof options.dir !== 'string' || options.dir.trim() === '') {
      throw new StoreError('invalid_options', 'dir must name the data directory of the embedded registry store, e.g. "./data/registry".');
    }
    const compactionIntervalMs = options.compactionIntervalMs ?? embeddedRegistryStoreDefaults.compactionIntervalMs;
    positiveInt('compactionIntervalMs', compactionIntervalMs);
    const claims = options.claims ?? embeddedRegistryStoreDefaults.claims;
    if (claims !== 'stored' && claims !== 'memory') {
      throw new StoreError('invalid_options', `claims must be "stored" or "memory", got ${JSON.stringify(claims)}.`);
    }
    const backend = await NedbBackend.open(options.dir, compactionIntervalMs, claims === 'memory');
    const store = new EmbeddedRegistryStore(backend, resolved, `embedded, ${options.dir}${claims === 'memory' ? ', claims in memory' : ''}`);
    try {
      await store.recoverPending();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
}
