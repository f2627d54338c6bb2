/**
 * The few document operations the store's logic needs, implemented once for MongoDB and once for
 * NeDB. Filters use the MongoDB query language, restricted to what both backends (and FerretDB 1.x)
 * handle the same way: equality, `$in`, `$lt`, `$gte` and `$regex` with a RegExp — no
 * aggregation, no update operators, no transactions. Updates are whole-document compare-and-set.
 */

/** Every stored document has a string `_id`. */
export interface BaseDoc {
  _id: string;
}

/** A query in the supported subset of the MongoDB query language. */
export type Filter = Record<string, unknown>;

/** Options of {@link DocCollection.find}. */
export interface FindOptions {
  /** Field → 1 (ascending) or -1 (descending), in priority order. */
  sort?: Record<string, 1 | -1>;
  limit?: number;
  /** Return only `_id` and these fields. */
  include?: readonly string[];
  /** Return everything but these fields (not with `include`). */
  exclude?: readonly string[];
}

/** One collection of documents. Every method throws `StoreError` (code `backend`) on failure. */
export interface DocCollection<T extends BaseDoc> {
  get(id: string): Promise<T | undefined>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  /** Inserts `doc`; false when a document with the same `_id` (or unique key) exists. */
  insert(doc: T): Promise<boolean>;
  /**
   * Inserts the documents whose `_id` is free; the others are left as they are. Returns the `_id`s
   * that were taken (not inserted by this call), so a caller learns who owns what without reading back.
   */
  insertNew(docs: readonly T[]): Promise<string[]>;
  /** Replaces the one document matching `filter` (which names `_id`); false when none matches. */
  replace(filter: Filter & { _id: string }, doc: T): Promise<boolean>;
  /** Deletes every matching document; returns how many. */
  delete(filter: Filter): Promise<number>;
}

/** The collections of the store. */
export type CollectionName = 'tools' | 'overlays' | 'preload_revisions' | 'tool_stats' | 'call_batches' | 'call_claims' | 'audit_log' | 'tool_vectors' | 'learned_uses';

/** A database: named collections and a way to release it. */
export interface Backend {
  collection<T extends BaseDoc>(name: CollectionName): DocCollection<T>;
  /** Releases connections or files. */
  close(): Promise<void>;
}

/** Copy of `doc` without undefined members (MongoDB would store them as null). */
export function compact<T extends object>(doc: T): T {
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined)) as T;
}
