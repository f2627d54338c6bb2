/**
 * Claims in one collection per time slot, forgotten by dropping whole collections: the claim
 * ledger of MongoRegistryStore. On FerretDB 1.24 (PostgreSQL) one collection of per-event claims
 * could not be pruned: `deleteMany({at: {$lt}})` reads every stored claim (~23 µs each) and is
 * refused above 65,535 matches; every other delete or read is a sequential scan too. Dropping a
 * collection costs a few ms whatever it holds.
 *
 * Where an event's claim lives is a pure function of the event, so every writer, a redelivery in
 * any batch and the recovery of a crashed batch all insert into (and read) the same collection:
 * - an event with a timestamp: `call_claims_s<n>`, n = its timestamp ÷ {@link CLAIM_SLOT_MS};
 *   dropped once the slot's end is `dedupWindowMs` old. So a redelivery is refused within
 *   `dedupWindowMs` of the event's timestamp (not of its first counting). A batch that claims
 *   events whose slot is already half a window old (late events) leaves a hold in
 *   `call_claims_meta`, and the slot is kept until that hold is `dedupWindowMs` old;
 * - an event without one (its `ts` was filled in at normalisation, different for each delivery):
 *   `call_claims_untimed`, pruned by age as before (ToolHub's dispatchers stamp every event);
 * - the claims of the version before (`call_claims`, one collection) are still honoured until they
 *   age out: an event that may have been counted there (untimed, or timestamped before the upgrade
 *   plus {@link LEGACY_ROLLOUT_MS}) is first claimed there, and its slot claim names the owner found
 *   there. The owner of an event is always the one its slot (or untimed) claim names, so writers
 *   that disagree on whether the old collection still counts cannot both own an event. The old
 *   collection is dropped `dedupWindowMs + LEGACY_ROLLOUT_MS` after the upgrade was first seen.
 *
 * Each claim is still one document inserted with a unique `_id`, so exactly-once holds with two
 * writers on MongoDB and on FerretDB alike (no compare-and-set involved).
 */
import type { BaseDoc, DocCollection } from '../backend';
import { type ClaimBatch, type ClaimDoc, type ClaimLedger, insertClaims } from './claims';
import type { CallRecord } from './events';

/** Length of a claim slot: 144 collections for a 24 h window. */
export const CLAIM_SLOT_MS = 10 * 60_000;
/** Writers of the version before may still claim in `call_claims` this long after the upgrade. */
export const LEGACY_ROLLOUT_MS = 60 * 60_000;
/** The one collection of per-event claims of the version before. */
export const LEGACY_CLAIMS = 'call_claims';
/** Claims of events without a timestamp. */
export const UNTIMED_CLAIMS = 'call_claims_untimed';
/** When the legacy collection was first seen by this version, and holds on slots written late. */
export const CLAIMS_META = 'call_claims_meta';
const SLOT_PREFIX = 'call_claims_s';
const LEGACY_MARKER = 'legacy';
const HOLD_PREFIX = 'hold:';

/** A marker in {@link CLAIMS_META}: the time something happened. */
export interface ClaimsMetaDoc extends BaseDoc {
  at: number;
}

/** The collections a {@link SlottedClaims} needs: created on demand, listed, dropped. */
export interface ClaimSpace {
  collection<T extends BaseDoc>(name: string): DocCollection<T>;
  /** Creates the collection unless it exists (so concurrent first inserts do not race to create it). */
  create(name: string): Promise<void>;
  /** Names of the existing collections that start with `prefix`. */
  names(prefix: string): Promise<string[]>;
  /** Drops the collection (no error when it is gone). */
  drop(name: string): Promise<void>;
}

/** The slot of a timestamp. */
export function claimSlot(ts: number): number {
  return Math.floor(ts / CLAIM_SLOT_MS);
}

/** The collection holding the claim of `record`. */
export function claimCollection(record: Pick<CallRecord, 'ts' | 'u'>): string {
  return record.u ? UNTIMED_CLAIMS : `${SLOT_PREFIX}${claimSlot(record.ts)}`;
}

/** Claims in per-slot collections; see the file comment. */
export class SlottedClaims implements ClaimLedger {
  /** Collections this process created or wrote to (created again only after a drop). */
  private readonly known = new Set<string>();

  private constructor(
    private readonly space: ClaimSpace,
    private readonly options: { clock: () => number; dedupWindowMs: number },
    /** When this version first saw the legacy collection; undefined when there was none. */
    private readonly legacySince: number | undefined,
  ) {}

  /**
   * The ledger of a database; notes (once, first writer wins) when the legacy collection was
   * first seen, so every process honours it for the same time.
   */
  static async open(space: ClaimSpace, options: { clock: () => number; dedupWindowMs: number }): Promise<SlottedClaims> {
    const meta = space.collection<ClaimsMetaDoc>(CLAIMS_META);
    let since = (await meta.get(LEGACY_MARKER))?.at;
    if (since === undefined && (await space.names(LEGACY_CLAIMS)).includes(LEGACY_CLAIMS)) {
      await meta.insert({ _id: LEGACY_MARKER, at: options.clock() });
      since = (await meta.get(LEGACY_MARKER))?.at;
    }
    return new SlottedClaims(space, options, since);
  }

  async claim(batch: ClaimBatch): Promise<Map<string, string>> {
    const now = this.options.clock();
    // Events that may have been counted by the version before: their owner is the legacy claim's.
    const legacyOwners = new Map<string, string>();
    if (this.legacyHonoured(now)) {
      const since = this.legacySince!;
      const probe = batch.events.filter((r) => r.u || r.ts < since + LEGACY_ROLLOUT_MS);
      if (probe.length > 0) {
        for (const [id, b] of await insertClaims(this.space.collection<ClaimDoc>(LEGACY_CLAIMS), probe.map((r) => ({ _id: r.id, b: batch._id, at: batch.at })))) legacyOwners.set(id, b);
      }
    }
    const groups = new Map<string, ClaimDoc[]>();
    for (const r of batch.events) {
      const name = claimCollection(r);
      const doc = { _id: r.id, b: legacyOwners.get(r.id) ?? batch._id, at: batch.at };
      const group = groups.get(name);
      if (group) group.push(doc);
      else groups.set(name, [doc]);
    }
    await this.holdLateSlots([...groups.keys()], now);
    const owners = new Map<string, string>();
    const settled = await Promise.allSettled(
      [...groups].map(async ([name, docs]) => {
        await this.ensure(name);
        for (const [id, b] of await insertClaims(this.space.collection<ClaimDoc>(name), docs)) owners.set(id, b);
      }),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return owners;
  }

  async prune(now: number, dedupWindowMs: number): Promise<void> {
    const cutoff = now - dedupWindowMs;
    const meta = this.space.collection<ClaimsMetaDoc>(CLAIMS_META);
    const holds = new Map((await meta.find({ _id: { $regex: new RegExp(`^${HOLD_PREFIX}`) } })).map((h) => [h._id.slice(HOLD_PREFIX.length), h.at]));
    for (const name of await this.space.names(SLOT_PREFIX)) {
      const slot = Number(name.slice(SLOT_PREFIX.length));
      if (!Number.isSafeInteger(slot) || (slot + 1) * CLAIM_SLOT_MS > cutoff) continue;
      const held = holds.get(name);
      if (held !== undefined && held >= cutoff) continue;
      await this.space.drop(name);
      this.known.delete(name);
      if (held !== undefined) await meta.delete({ _id: `${HOLD_PREFIX}${name}` });
    }
    await this.space.collection<ClaimDoc>(UNTIMED_CLAIMS).delete({ at: { $lt: cutoff } });
    if (this.legacySince !== undefined && !this.legacyHonoured(now)) await this.space.drop(LEGACY_CLAIMS);
  }

  /** Whether claims of the version before may still be within their window. */
  private legacyHonoured(now: number): boolean {
    return this.legacySince !== undefined && now < this.legacySince + LEGACY_ROLLOUT_MS + this.options.dedupWindowMs;
  }

  /**
   * Slots whose end is more than half a window old when written (events delivered late) would be
   * dropped within half a window: a hold keeps them a full window from now.
   */
  private async holdLateSlots(names: readonly string[], now: number): Promise<void> {
    const meta = this.space.collection<ClaimsMetaDoc>(CLAIMS_META);
    for (const name of names) {
      if (!name.startsWith(SLOT_PREFIX)) continue;
      const slotEnd = (Number(name.slice(SLOT_PREFIX.length)) + 1) * CLAIM_SLOT_MS;
      if (slotEnd >= now - this.options.dedupWindowMs / 2) continue;
      const hold = { _id: `${HOLD_PREFIX}${name}`, at: now };
      // Any recent time will do: concurrent writers may overwrite each other's.
      if (!(await meta.replace({ _id: hold._id }, hold))) await meta.insert(hold);
    }
  }

  private async ensure(name: string): Promise<void> {
    if (this.known.has(name)) return;
    await this.space.create(name);
    this.known.add(name);
  }
}
