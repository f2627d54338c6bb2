/** MongoRegistryStore: the RegistryStore shared by registry replicas, on MongoDB 6+ or FerretDB 1.24. */
import type { MongoClientOptions } from 'mongodb';

import { DocumentRegistryStore } from '../document-store';
import { StoreError } from '../errors';
import { type StoreOptions, positiveInt, withStoreDefaults } from '../options';
import type { ClaimLedger } from '../stats/claims';
import { SlottedClaims } from '../stats/slotted-claims';
import { MongoBackend, redactUrl } from './mongo-backend';

/** Options of {@link MongoRegistryStore.connect}. */
export interface MongoRegistryStoreOptions extends StoreOptions {
  /** `mongodb://` or `mongodb+srv://` URL, e.g. MONGO_URL. */
  url: string;
  /** @default 'toolhub' */
  dbName?: string;
  /** How long `connect` waits for a reachable server. @default 10000 */
  connectTimeoutMs?: number;
  /** More MongoClient options (TLS, pool size, …); `connectTimeoutMs` wins for server selection. */
  clientOptions?: MongoClientOptions;
}

/** Defaults of {@link MongoRegistryStoreOptions}. */
export const mongoRegistryStoreDefaults = {
  dbName: 'toolhub',
  connectTimeoutMs: 10_000,
} as const;

const DB_NAME_PATTERN = /^[A-Za-z0-9_-]{1,63}$/;

/**
 * The registry's store on a MongoDB-compatible server. Needs no transactions, change streams or
 * aggregation, so MongoDB 6+ and FerretDB 1.24 both work. Several registry replicas may share one
 * MongoDB database; on FerretDB 1.24 only one process may write statistics (its conditional
 * replace is not atomic, see stats/recorder.ts and the README).
 */
export class MongoRegistryStore extends DocumentRegistryStore {
  private constructor(backend: MongoBackend, options: ReturnType<typeof withStoreDefaults>, description: string, claims: ClaimLedger) {
    // FerretDB decodes every document on each lookup: compact statistics documents keep that cheap.
    // Claims in one collection per time slot, dropped when expired (FerretDB cannot prune one big one).
    super(backend, options, description, true, claims);
  }

  /**
   * Connects, creates the indexes (unique provider + name, …) and finishes batches of
   * statistics left behind by a writer that crashed.
   * @throws StoreError invalid_options for a bad URL or option; backend (retryable) when the server
   *   cannot be reached within `connectTimeoutMs`.
   */
  static async connect(options: MongoRegistryStoreOptions): Promise<MongoRegistryStore> {
    const resolved = withStoreDefaults(options);
    const url = options.url;
    if (typeof url !== 'string' || !/^mongodb(\+srv)?:\/\//.test(url)) {
      throw new StoreError('invalid_options', `url must be a mongodb:// or mongodb+srv:// URL (e.g. mongodb://127.0.0.1:27017/), got ${JSON.stringify(typeof url === 'string' ? redactUrl(url) : url)}.`);
    }
    const dbName = options.dbName ?? mongoRegistryStoreDefaults.dbName;
    if (!DB_NAME_PATTERN.test(dbName)) throw new StoreError('invalid_options', `dbName ${JSON.stringify(dbName)} must match ${DB_NAME_PATTERN.source}.`);
    const connectTimeoutMs = options.connectTimeoutMs ?? mongoRegistryStoreDefaults.connectTimeoutMs;
    positiveInt('connectTimeoutMs', connectTimeoutMs);
    const backend = await MongoBackend.connect(url, dbName, {
      appName: 'toolhub-registry',
      ...options.clientOptions,
      serverSelectionTimeoutMS: connectTimeoutMs,
      connectTimeoutMS: connectTimeoutMs,
    });
    let claims: ClaimLedger;
    try {
      claims = await SlottedClaims.open(backend.claimSpace(), resolved);
    } catch (err) {
      await backend.close();
      throw err;
    }
    const store = new MongoRegistryStore(backend, resolved, `MongoDB ${redactUrl(url)} database ${dbName}`, claims);
    try {
      await store.recoverPending();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
}
