/**
 * @toolhub/run-store/mongo — the RunStore of dispatcher replicas: collection `runs` of a MongoDB 6+
 * database (FerretDB 1.24 stands in for it in tests), shared by every replica, so a run started on
 * one dispatcher is readable and executable on any other.
 */
import { type Filter, MongoClient, MongoServerError } from 'mongodb';

import { DocumentRunStore, type RunDoc } from './documents';
import type { RunStore } from './run-store';

/** Options of {@link connectMongoRunStore}. */
export interface MongoRunStoreOptions {
  /** mongodb:// or mongodb+srv:// URL. */
  url: string;
  /** @default 'toolhub' */
  dbName?: string;
  /** How long connecting waits for a reachable server. @default 10000 */
  connectTimeoutMs?: number;
}

const DUPLICATE_KEY = 11000;

/** The URL without its password, for messages. */
function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/**
 * Connects, pings and creates the `runs` indexes.
 * @throws Error naming the (redacted) URL when the URL is not a MongoDB one or the server cannot be reached in time.
 */
export async function connectMongoRunStore(options: MongoRunStoreOptions): Promise<RunStore> {
  if (typeof options.url !== 'string' || !/^mongodb(\+srv)?:\/\//.test(options.url)) {
    throw new Error(`The runs database URL must be mongodb:// or mongodb+srv:// (e.g. mongodb://127.0.0.1:27017/), got ${JSON.stringify(redact(String(options.url)))}.`);
  }
  const timeout = options.connectTimeoutMs ?? 10_000;
  const client = new MongoClient(options.url, { appName: 'toolhub-dispatcher', serverSelectionTimeoutMS: timeout, connectTimeoutMS: timeout });
  try {
    await client.connect();
    const db = client.db(options.dbName ?? 'toolhub');
    await db.command({ ping: 1 });
    const runs = db.collection<RunDoc>('runs');
    // A caller's runs newest first; the queue by state; expiry.
    await runs.createIndex({ principalId: 1, _id: -1 }, { name: 'principal_id' });
    await runs.createIndex({ state: 1, _id: 1 }, { name: 'state_id' });
    await runs.createIndex({ expiresUnixMs: 1 }, { name: 'expires' });
    const f = (filter: Record<string, unknown>) => filter as Filter<RunDoc>;
    return new DocumentRunStore({
      findOne: async (filter) => (await runs.findOne(f(filter))) ?? undefined,
      find: (filter, sort, limit) => runs.find(f(filter), { sort, limit }).toArray(),
      insert: async (doc) => {
        try {
          await runs.insertOne(doc);
          return true;
        } catch (err) {
          if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
          throw err;
        }
      },
      replace: async (filter, doc) => (await runs.replaceOne(f(filter), doc)).matchedCount === 1,
      deleteMany: async (filter) => (await runs.deleteMany(f(filter))).deletedCount,
      count: (filter, limit) => runs.countDocuments(f(filter), { limit }),
      close: () => client.close(),
    });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new Error(`Cannot open the runs database at ${redact(options.url)}: ${(err as Error).message}`, { cause: err });
  }
}
