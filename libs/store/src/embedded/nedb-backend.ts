/**
 * The document backend of the one-process mode: NeDB (@seald-io/nedb, pure JavaScript), one
 * append-only file per collection in a directory, its append handle kept open (kept-appends.ts).
 * Every write is appended to its file before its promise resolves, so what was acknowledged
 * survives a crash of the process — except `tool_stats`, whose appends are group-committed before
 * any later write to another file (kept-appends.ts): only the statistics recorder writes it, and
 * it deletes a flush's batches only after their statistics, so a crash still counts each event
 * once (the stored batches are finished again). Loading rewrites
 * the files compacted, and a half-written last line (a crash in mid-append, never acknowledged)
 * is dropped. Data is held in memory: meant for a laptop-sized registry.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import Datastore from '@seald-io/nedb';

import type { Backend, BaseDoc, CollectionName, DocCollection, Filter, FindOptions } from '../backend';
import { StoreError } from '../errors';
import { lockDirectory } from './dir-lock';
import { keepAppendsOpen, releaseAppends } from './kept-appends';
import { MemoryClaims } from './memory-claims';

type Raw = Record<string, unknown>;

const COLLECTIONS: readonly CollectionName[] = ['tools', 'overlays', 'preload_revisions', 'tool_stats', 'call_batches', 'call_claims', 'audit_log', 'tool_vectors', 'learned_uses'];

const INDEXES: ReadonlyArray<{ collection: CollectionName; fieldName: string | string[]; unique?: boolean }> = [
  { collection: 'tools', fieldName: ['provider', 'name'], unique: true },
  { collection: 'tools', fieldName: 'provider' },
  { collection: 'overlays', fieldName: 'provider' },
  { collection: 'preload_revisions', fieldName: 'revision', unique: true },
  { collection: 'call_batches', fieldName: 'at' },
  { collection: 'call_claims', fieldName: 'at' },
  { collection: 'audit_log', fieldName: 'atUnixMs' },
  { collection: 'learned_uses', fieldName: 'atUnixMs' },
];

/** A directory of NeDB files as a {@link Backend}. */
export class NedbBackend implements Backend {
  private constructor(
    private readonly stores: ReadonlyMap<CollectionName, Datastore<Raw>>,
    private readonly unlock: () => Promise<void>,
    private readonly dir: string,
    /** `call_claims` in memory instead of a file (see memory-claims.ts), or undefined. */
    private readonly memoryClaims: MemoryClaims | undefined,
  ) {}

  /**
   * Creates `dir` if needed, takes its lock, loads every collection and creates the indexes.
   * @throws StoreError locked when another live process has the directory open; backend when a
   *   file cannot be read or written.
   */
  static async open(dir: string, compactionIntervalMs: number, claimsInMemory = false): Promise<NedbBackend> {
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      throw new StoreError('backend', `Cannot create the registry data directory ${dir}: ${(err as Error).message}`, { cause: err, retryable: false });
    }
    const unlock = await lockDirectory(dir);
    const stores = new Map<CollectionName, Datastore<Raw>>();
    try {
      for (const name of COLLECTIONS) {
        if (name === 'call_claims' && claimsInMemory) continue;
        // corruptAlertThreshold 1: a torn last line is a write that was never acknowledged; drop it
        // instead of refusing to start (small files would cross any lower threshold).
        const filename = join(dir, `${name}.db`);
        const ds = new Datastore<Raw>({ filename, corruptAlertThreshold: 1 });
        await ds.loadDatabaseAsync();
        stores.set(name, ds);
        keepAppendsOpen(filename, { grouped: name === 'tool_stats' });
      }
      for (const index of INDEXES) await stores.get(index.collection)?.ensureIndexAsync({ fieldName: index.fieldName, unique: index.unique ?? false });
      for (const ds of stores.values()) ds.setAutocompactionInterval(compactionIntervalMs);
    } catch (err) {
      for (const ds of stores.values()) ds.stopAutocompaction();
      for (const name of stores.keys()) await releaseAppends(join(dir, `${name}.db`));
      await unlock();
      throw new StoreError('backend', `Cannot load the registry data in ${dir}: ${(err as Error).message}`, { cause: err, retryable: false });
    }
    return new NedbBackend(stores, unlock, dir, claimsInMemory ? new MemoryClaims() : undefined);
  }

  collection<T extends BaseDoc>(name: CollectionName): DocCollection<T> {
    if (name === 'call_claims' && this.memoryClaims) return this.memoryClaims as unknown as DocCollection<T>;
    return new NedbDocCollection<T>(this.stores.get(name)!, name, this.dir);
  }

  /** Compacts every file (shorter loads next time), closes their append handles and releases the lock. */
  async close(): Promise<void> {
    try {
      for (const ds of this.stores.values()) {
        ds.stopAutocompaction();
        await ds.compactDatafileAsync();
      }
    } finally {
      for (const name of this.stores.keys()) await releaseAppends(join(this.dir, `${name}.db`));
      await this.unlock();
    }
  }
}

class NedbDocCollection<T extends BaseDoc> implements DocCollection<T> {
  constructor(
    private readonly ds: Datastore<Raw>,
    private readonly name: string,
    private readonly dir: string,
  ) {}

  get(id: string): Promise<T | undefined> {
    return this.wrap('findOne', async () => ((await this.ds.findOneAsync({ _id: id })) as unknown as T | null) ?? undefined);
  }

  find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return this.wrap('find', async () => {
      let projection: Raw = {};
      // NeDB's projection {_id: 1} alone returns whole documents; fine, only cheaper is lost.
      if (options.include) projection = Object.fromEntries([['_id', 1], ...options.include.map((f) => [f, 1])]);
      else if (options.exclude) projection = Object.fromEntries(options.exclude.map((f) => [f, 0]));
      let cursor = this.ds.findAsync(filter, projection);
      if (options.sort) cursor = cursor.sort(options.sort);
      if (options.limit !== undefined) cursor = cursor.limit(options.limit);
      return (await cursor) as unknown as T[];
    });
  }

  insert(doc: T): Promise<boolean> {
    return this.wrap('insert', async () => {
      try {
        await this.ds.insertAsync(doc as unknown as Raw);
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    });
  }

  insertNew(docs: readonly T[]): Promise<string[]> {
    return this.wrap('insert', async () => {
      // NeDB inserts a list all or nothing: insert the ids that are free; if another insert took
      // one in between, look again.
      for (let attempt = 0; attempt < 10; attempt++) {
        const existing = new Set((await this.ds.findAsync({ _id: { $in: docs.map((d) => d._id) } }, { _id: 1 })).map((d) => String(d._id)));
        const fresh = docs.filter((d) => !existing.has(d._id));
        if (fresh.length === 0) return [...existing];
        try {
          await this.ds.insertAsync(fresh as unknown as Raw[]);
          return [...existing];
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
        }
      }
      throw new StoreError('contention', `Inserts into ${this.name} keep colliding; retry.`);
    });
  }

  replace(filter: Filter & { _id: string }, doc: T): Promise<boolean> {
    return this.wrap('update', async () => (await this.ds.updateAsync(filter, doc, {})).numAffected === 1);
  }

  delete(filter: Filter): Promise<number> {
    return this.wrap('remove', async () => this.ds.removeAsync(filter, { multi: true }));
  }

  private async wrap<R>(op: string, fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StoreError) throw err;
      throw new StoreError('backend', `NeDB ${op} on ${this.name} (in ${this.dir}) failed: ${(err as Error).message}`, { cause: err, retryable: false });
    }
  }
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { errorType?: unknown } | null)?.errorType === 'uniqueViolated';
}
