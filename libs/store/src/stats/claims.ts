/**
 * Claims: which batch counts each event id (see recorder.ts). A claim is created by an insert that
 * fails when the event id is taken, so the first batch to claim an event owns it on every backend
 * (MongoDB and FerretDB enforce the unique `_id` atomically, unlike FerretDB's conditional replace).
 * Where a claim lives and how it is forgotten is the ledger's business: one collection pruned by
 * age ({@link FlatClaims}, the embedded store) or one collection per time slot, dropped whole when
 * the slot expires (slotted-claims.ts, MongoRegistryStore).
 */
import type { BaseDoc, DocCollection } from '../backend';
import type { CallRecord } from './events';

/** Event id → the batch that counts it. */
export interface ClaimDoc extends BaseDoc {
  b: string;
  /** When it was claimed: set where claims are pruned by age ({@link FlatClaims}, the legacy collection). */
  at?: number;
}

/** What {@link ClaimLedger.claim} needs of a batch. */
export interface ClaimBatch {
  _id: string;
  at: number;
  events: readonly CallRecord[];
}

/** Where the claims of counted events are kept, and how they are forgotten. */
export interface ClaimLedger {
  /**
   * Claims every record of `batch` for it where still unclaimed; returns event id → owning batch
   * for every record. Idempotent: any process may run it again for the same batch (recovery) and
   * gets the same owners.
   */
  claim(batch: ClaimBatch): Promise<Map<string, string>>;
  /** Forgets the claims that are past the de-dup window at `now`. */
  prune(now: number, dedupWindowMs: number): Promise<void>;
}

/**
 * Inserts `docs` where their `_id` is free and returns event id → owner for all of them: what the
 * insert created is ours (nothing read back); only the claims that existed are read (usually none:
 * a redelivery, or a batch finished by someone else). On FerretDB every read of a claims collection
 * scans it whole, so not reading back what was just created matters.
 */
export async function insertClaims(collection: DocCollection<ClaimDoc>, docs: readonly ClaimDoc[]): Promise<Map<string, string>> {
  const owners = new Map(docs.map((d) => [d._id, d.b]));
  if (docs.length === 0) return owners;
  const taken = await collection.insertNew(docs);
  if (taken.length === 0) return owners;
  for (const id of taken) owners.delete(id);
  for (const c of await collection.find({ _id: { $in: taken } }, { include: ['b'] })) owners.set(c._id, c.b);
  return owners;
}

/**
 * All claims in one collection, one document per event id, pruned by `{ at: { $lt } }`: the
 * embedded store (NeDB, or a Map with `claims: 'memory'`), where that delete is cheap.
 */
export class FlatClaims implements ClaimLedger {
  constructor(private readonly claims: DocCollection<ClaimDoc>) {}

  claim(batch: ClaimBatch): Promise<Map<string, string>> {
    return insertClaims(
      this.claims,
      batch.events.map((e) => ({ _id: e.id, b: batch._id, at: batch.at })),
    );
  }

  async prune(now: number, dedupWindowMs: number): Promise<void> {
    await this.claims.delete({ at: { $lt: now - dedupWindowMs } });
  }
}
