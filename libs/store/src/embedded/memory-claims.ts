/**
 * The `call_claims` collection held in a Map instead of a NeDB file, for the embedded store's
 * `claims: 'memory'` (one-process mode). A claim is an event id → the batch counting it (see
 * stats/recorder.ts); NeDB keeps each as a document plus two index nodes (~200 bytes, measured)
 * and appends it to its file twice (insert, prune). Here a claim is one Map entry whose value is
 * shared by the whole batch (~80 bytes with the id string), and nothing touches the disk.
 *
 * Claims are lost when the process ends, so an event redelivered after a restart is counted again:
 * use this only where nothing can deliver an event again across a restart (the in-process bus keeps
 * events in memory, and one-process mode publishes each event once, without an on-disk outbox).
 * Batches left behind by a crash are still finished exactly once at start-up: the per-tool guard,
 * stored with the statistics, makes applying a batch twice impossible.
 *
 * Only the operations the recorder uses are supported: get, find by `_id` / `{ _id: { $in } }`,
 * insert, insertNew, and delete by `{ at: { $lt } }` / `_id`; anything else throws StoreError
 * backend (a programming error, caught by the store's contract tests).
 */
import type { DocCollection, Filter, FindOptions } from '../backend';
import { StoreError } from '../errors';
import type { ClaimDoc } from '../stats/recorder';

interface Owner {
  readonly b: string;
  readonly at: number;
}

/** Event id → owning batch, in memory. */
export class MemoryClaims implements DocCollection<ClaimDoc> {
  /** Insertion order is (nearly) time order: pruning by age mostly reads from the front. */
  private readonly owners = new Map<string, Owner>();

  /** Claims held now. */
  get size(): number {
    return this.owners.size;
  }

  async get(id: string): Promise<ClaimDoc | undefined> {
    const owner = this.owners.get(id);
    return owner && { _id: id, b: owner.b, at: owner.at };
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<ClaimDoc[]> {
    if (options.sort || options.limit !== undefined || options.exclude) unsupported('find options', options);
    const out: ClaimDoc[] = [];
    for (const id of idsOf(filter)) {
      const doc = await this.get(id);
      if (doc) out.push(doc);
    }
    return out;
  }

  async insert(doc: ClaimDoc): Promise<boolean> {
    return (await this.insertNew([doc])).length === 0;
  }

  async insertNew(docs: readonly ClaimDoc[]): Promise<string[]> {
    const taken: string[] = [];
    let shared: Owner | undefined;
    // Pruned by age only (FlatClaims always sets `at`); checked before any is inserted.
    const untimed = docs.find((d) => d.at === undefined);
    if (untimed) unsupported('claim without `at` (they are pruned by age)', untimed);
    for (const doc of docs) {
      if (this.owners.has(doc._id)) {
        taken.push(doc._id);
        continue;
      }
      // One value object per batch, not per claim: a batch's claims all name it with its time.
      if (shared?.b !== doc.b || shared.at !== doc.at) shared = { b: doc.b, at: doc.at! };
      this.owners.set(doc._id, shared);
    }
    return taken;
  }

  async replace(filter: Filter & { _id: string }): Promise<boolean> {
    return unsupported('replace', filter);
  }

  async delete(filter: Filter): Promise<number> {
    const keys = Object.keys(filter);
    const at = filter['at'] as { $lt?: unknown } | undefined;
    if (keys.length === 1 && keys[0] === 'at' && typeof at?.$lt === 'number' && Object.keys(at).length === 1) {
      const cutoff = at.$lt;
      let deleted = 0;
      // Every entry is checked (a few ms per 100,000): batches written concurrently may be slightly
      // out of time order, and "deletes every matching document" must hold.
      for (const [id, owner] of this.owners) {
        if (owner.at < cutoff) {
          this.owners.delete(id);
          deleted++;
        }
      }
      return deleted;
    }
    let deleted = 0;
    for (const id of idsOf(filter)) if (this.owners.delete(id)) deleted++;
    return deleted;
  }
}

/** The ids a `{ _id: id }` or `{ _id: { $in: ids } }` filter names. */
function idsOf(filter: Filter): readonly string[] {
  const keys = Object.keys(filter);
  const id = filter['_id'];
  if (keys.length === 1 && keys[0] === '_id') {
    if (typeof id === 'string') return [id];
    const $in = (id as { $in?: unknown } | null)?.$in;
    if (Array.isArray($in) && Object.keys(id as object).length === 1) return $in.map(String);
  }
  return unsupported('filter', filter);
}

function unsupported(what: string, value: unknown): never {
  throw new StoreError('backend', `In-memory claims do not support this ${what}: ${JSON.stringify(value)}.`, { retryable: false });
}
