/** EmbeddedRegistryStore: the RegistryStore of the one-process mode, in files of one directory. */
import { DocumentRegistryStore } from '../document-store';
import { StoreError } from '../errors';
import { type StoreOptions, positiveInt, withStoreDefaults } from '../options';
import { NedbBackend } from './nedb-backend';

/** Options of {@link EmbeddedRegistryStore.open}. */
export interface EmbeddedRegistryStoreOptions extends StoreOptions {
  /** Data directory (created if missing); one process at a time. */
  dir: string;
  /** How often the append-only files are rewritten compacted. @default 600000 (10 min) */
  compactionIntervalMs?: number;
}

/** Defaults of {@link EmbeddedRegistryStoreOptions}. */
export const embeddedRegistryStoreDefaults = {
  compactionIntervalMs: 10 * 60 * 1000,
} as const;

/**
 * The registry's store without a server: NeDB files in `dir`, kept across restarts. One process
 * per directory (a LOCK file enforces it). Same behaviour as MongoRegistryStore, same contract.
 */
export class EmbeddedRegistryStore extends DocumentRegistryStore {
  private constructor(backend: NedbBackend, options: ReturnType<typeof withStoreDefaults>, description: string) {
    super(backend, options, description);
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
    const backend = await NedbBackend.open(options.dir, compactionIntervalMs);
    const store = new EmbeddedRegistryStore(backend, resolved, `embedded, ${options.dir}`);
    try {
      await store.recoverPending();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
}
