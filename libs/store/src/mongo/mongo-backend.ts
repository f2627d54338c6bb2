/**
 * The document backend on MongoDB 6+ or FerretDB 1.24 (official `mongodb` driver). Uses plain
 * CRUD only — findOne/find with sort, limit and projection, insertOne, unordered insertMany,
 * replaceOne, deleteMany, createIndex — which FerretDB 1.x implements like MongoDB.
 */
import {
  type Collection,
  type Db,
  type Document,
  type Filter as MongoFilter,
  MongoBulkWriteError,
  MongoClient,
  type MongoClientOptions,
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';

import type { Backend, BaseDoc, CollectionName, DocCollection, Filter, FindOptions } from '../backend';
import { StoreError } from '../errors';
import type { ClaimSpace } from '../stats/slotted-claims';
import { findByIdsOnFerret, idListOf } from './ferret-id-lookup';

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;

/** Indexes created at start-up (idempotent). `_id` is the unique key of every collection. */
const INDEXES: ReadonlyArray<{ collection: CollectionName; keys: Record<string, 1 | -1>; name: string; unique?: boolean }> = [
  { collection: 'tools', keys: { provider: 1, name: 1 }, name: 'provider_name_unique', unique: true },
  { collection: 'overlays', keys: { provider: 1 }, name: 'provider' },
  { collection: 'preload_revisions', keys: { revision: -1 }, name: 'revision_unique', unique: true },
  { collection: 'tool_stats', keys: { provider: 1 }, name: 'provider' },
  { collection: 'call_batches', keys: { at: 1 }, name: 'at' },
  // None on the claims: they are found by `_id` and dropped by collection (stats/slotted-claims.ts).
  { collection: 'audit_log', keys: { atUnixMs: -1 }, name: 'at' },
  { collection: 'learned_uses', keys: { provider: 1, atUnixMs: -1 }, name: 'provider_at' },
];

/** A MongoDB database as a {@link Backend}. */
export class MongoBackend implements Backend {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    /** The server is FerretDB (its `buildInfo` has `ferretdbVersion`): some lookups take another way. */
    readonly ferret: boolean,
  ) {}

  /**
   * Connects, pings and creates the indexes.
   * @throws StoreError backend (retryable) when the server cannot be reached in time.
   */
  static async connect(url: string, dbName: string, clientOptions: MongoClientOptions): Promise<MongoBackend> {
    const client = new MongoClient(url, clientOptions);
    try {
      await client.connect();
      const db = client.db(dbName);
      await db.command({ ping: 1 });
      const info = await client.db('admin').command({ buildInfo: 1 });
      const backend = new MongoBackend(client, db, typeof info['ferretdbVersion'] === 'string');
      for (const index of INDEXES) {
        await db.collection(index.collection).createIndex(index.keys, { name: index.name, unique: index.unique ?? false });
      }
      return backend;
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new StoreError('backend', `Cannot open the registry database ${JSON.stringify(dbName)} at ${redactUrl(url)}: ${messageOf(err)}`, {
        cause: err,
        retryable: isTransient(err),
      });
    }
  }

  collection<T extends BaseDoc>(name: CollectionName): DocCollection<T> {
    return new MongoDocCollection<T>(this.db.collection<BaseDoc>(name), name, this.ferret);
  }

  /** The claim collections (`call_claims*`), created, listed and dropped by name. */
  claimSpace(): ClaimSpace {
    const { db, ferret } = this;
    const wrap = async <R>(op: string, name: string, fn: () => Promise<R>): Promise<R> => {
      try {
        return await fn();
      } catch (err) {
        throw new StoreError('backend', `MongoDB ${op} of ${name} failed: ${messageOf(err)}`, { cause: err, retryable: isTransient(err) });
      }
    };
    return {
      collection: <T extends BaseDoc>(name: string) => new MongoDocCollection<T>(db.collection<BaseDoc>(claimName(name)), name, ferret),
      create: (name) =>
        wrap('createCollection', name, async () => {
          try {
            await db.createCollection(claimName(name));
          } catch (err) {
            if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err;
          }
        }),
      names: (prefix) =>
        wrap('listCollections', prefix, async () =>
          (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).filter((n) => n.startsWith(claimName(prefix))),
        ),
      drop: (name) =>
        wrap('drop', name, async () => {
          try {
            await db.collection(claimName(name)).drop();
          } catch (err) {
            if (!(err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND)) throw err;
          }
        }),
    };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

class MongoDocCollection<T extends BaseDoc> implements DocCollection<T> {
  constructor(
    private readonly c: Collection<BaseDoc>,
    private readonly name: string,
    private readonly ferret: boolean,
  ) {}

  get(id: string): Promise<T | undefined> {
    return this.wrap('findOne', async () => ((await this.c.findOne({ _id: id })) as unknown as T | null) ?? undefined);
  }

  find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return this.wrap('find', async () => {
      let projection: Document | undefined;
      if (options.include) projection = Object.fromEntries([['_id', 1], ...options.include.map((f) => [f, 1])]);
      else if (options.exclude) projection = Object.fromEntries(options.exclude.map((f) => [f, 0]));
      const ids = this.ferret ? idListOf(filter) : undefined;
      const byIds = ids && (await findByIdsOnFerret(this.c, ids, projection, options));
      if (byIds) return byIds as unknown as T[];
      const cursor = this.c.find(asFilter(filter), { projection, sort: options.sort, limit: options.limit });
      return (await cursor.toArray()) as unknown as T[];
    });
  }

  insert(doc: T): Promise<boolean> {
    return this.wrap('insertOne', async () => {
      try {
        await this.c.insertOne(doc as BaseDoc);
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    });
  }

  insertNew(docs: readonly T[]): Promise<string[]> {
    return this.wrap('insertMany', async () => {
      if (docs.length === 0) return [];
      try {
        // Unordered: every free _id is inserted even when others are taken.
        await this.c.insertMany(docs as readonly BaseDoc[], { ordered: false });
        return [];
      } catch (err) {
        const taken = duplicateIndexes(err);
        if (taken) return taken.map((i) => docs[i]?._id).filter((id): id is string => id !== undefined);
        // A duplicate reported without positions: say every id may be taken (callers read back).
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return docs.map((d) => d._id);
        throw err;
      }
    });
  }

  replace(filter: Filter & { _id: string }, doc: T): Promise<boolean> {
    return this.wrap('replaceOne', async () => (await this.c.replaceOne(asFilter(filter), doc as unknown as BaseDoc)).matchedCount === 1);
  }

  delete(filter: Filter): Promise<number> {
    return this.wrap('deleteMany', async () => (await this.c.deleteMany(asFilter(filter))).deletedCount);
  }

  private async wrap<R>(op: string, fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      throw new StoreError('backend', `MongoDB ${op} on ${this.name} failed: ${messageOf(err)}`, { cause: err, retryable: isTransient(err) });
    }
  }
}

/** A claim collection's name, checked: only `call_claims*` may be created or dropped through a ClaimSpace. */
function claimName(name: string): string {
  if (!/^call_claims[a-z0-9_]*$/.test(name)) throw new StoreError('backend', `Not a claims collection: ${JSON.stringify(name)}.`, { retryable: false });
  return name;
}

/** Our filters use the query subset of {@link Filter}; the driver types them against the document. */
function asFilter(filter: Filter): MongoFilter<BaseDoc> {
  return filter as MongoFilter<BaseDoc>;
}

/**
 * The positions of the documents a bulk insert refused because their `_id` exists, when that is
 * the only thing that went wrong; undefined otherwise (the error must be thrown).
 */
function duplicateIndexes(err: unknown): number[] | undefined {
  if (err instanceof MongoBulkWriteError) {
    if (err.err) return undefined; // a write concern error: the inserts may not be durable
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    return errors.length > 0 && errors.every((e) => e.code === DUPLICATE_KEY) ? errors.map((e) => e.index) : undefined;
  }
  return undefined;
}

/** Network trouble and elections pass; other failures need a person. */
function isTransient(err: unknown): boolean {
  return (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    (err instanceof MongoError && (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('ResumableChangeStreamError')))
  );
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The URL without credentials, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
