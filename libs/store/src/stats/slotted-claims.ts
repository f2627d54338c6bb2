/**
 * Claims in one collection per time slot, forgotten by dropping whole collections: the claim
 * ledger of MongoRegistryStore. On FerretDB 1.24 (PostgreSQL) one collection of per-event claims
 * could not be pruned: `deleteMany({at: {$lt}})` reads every stored claim (~23 µs each) and is
 * refused above 65,535 matches; every other delete or read is a sequential scan too. Dropping a
 * collection costs a few ms whatever it holds.
 *
 * An event is claimed in a short chain of collections (see {@link SlottedClaims.chain}): each
 * claim is an insert-if-absent on the unique `_id`, each one after the first names the owner found
 * in the one before, and the last one decides. Every writer, a redelivery in any batch and the
 * recovery of a crashed batch therefore agree on the owner, with no compare-and-set (FerretDB's is
 * not atomic), on MongoDB and FerretDB alike:
 * - an event with a timestamp: `call_claims_s<n>`, n = its timestamp ÷ {@link CLAIM_SLOT_MS} (a
 *   pure function of the event); dropped once the slot's end is `dedupWindowMs` old. So a
 *   redelivery is refused within `dedupWindowMs` of the event's timestamp. A batch that claims
 *   events whose slot ended more than half a window ago (late events) leaves a hold in
 *   `call_claims_meta`, and the slot is kept until that hold is `dedupWindowMs` old;
 * - an event without one (its `ts` was filled in at normalisation, different for each delivery):
 *   the previous and the current generation `call_claims_u<window>_<g>`, g = now ÷ window. A
 *   redelivery within a window of the first counting falls in the same or the next generation, so
 *   it finds the claim; a generation is dropped a window after its end;
 * - the claims of the version before (`call_claims`, one collection) are still honoured until they
 *   age out: an event that may have been counted there (untimed, or timestamped before the upgrade
 *   plus {@link LEGACY_ROLLOUT_MS}) has it first in its chain. Writers that disagree on whether it
 *   still counts cannot both own an event (the last link decides). It is dropped `dedupWindowMs +
 *   LEGACY_ROLLOUT_MS` after the upgrade was first seen.
 *
 * An event of a claim group (`CallRecord.g`, only ever read from `tool.called.grouped` messages,
 * which no version before reads) is claimed with its group instead, in the group's chain of links
 * (group-claims.ts) in `call_claims_g<n>`, n = the group's time ÷ {@link CLAIM_SLOT_MS}; those
 * collections are held and dropped as the event slots are.
 * Shaped by FerretDB 1.24, the test stand-in for MongoDB: docs/decisions/0001-ferretdb-is-the-test-stand-in.md.
 */
import type { BaseDoc, DocCollection } from '../backend';
import { type ClaimBatch, type ClaimDoc, type ClaimLedger, insertClaims } from './claims';
import { type CallRecord, claimGroupTime } from './events';
import { type GroupLinkDoc, claimGroupChains } from './group-claims';

/** Length of a claim slot: 144 collections for a 24 h window. */
export const CLAIM_SLOT_MS = 10 * 60_000;
/** Writers of the version before may still claim in `call_claims` this long after the upgrade. */
export const LEGACY_ROLLOUT_MS = 60 * 60_000;
/** The one collection of per-event claims of the version before. */
export const LEGACY_CLAIMS = 'call_claims';
/** Claims of events without a timestamp: `call_claims_u<window>_<generation>`. */
const UNTIMED_PREFIX = 'call_claims_u';
/** When the legacy collection was first seen by this version, and holds on slots written late. */
export const CLAIMS_META = 'call_claims_meta';
const SLOT_PREFIX = 'call_claims_s';
/** Claim chains of groups whose time is in slot n: `call_claims_g<n>`. */
const GROUP_SLOT_PREFIX = 'call_claims_g';
/** The collections dropped by slot (their events' or groups' time), with holds when written late. */
const SLOTTED_PREFIXES = [SLOT_PREFIX, GROUP_SLOT_PREFIX];
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

/** The collection holding the claims of timestamped events in the slot of `ts`. */
export function slotCollection(ts: number): string {
  return `${SLOT_PREFIX}${claimSlot(ts)}`;
}

/** The collection holding the claim chains of groups whose time is in the slot of `ts`. */
export function groupSlotCollection(ts: number): string {
  return `${GROUP_SLOT_PREFIX}${claimSlot(ts)}`;
}

/** The collection of untimed events' claims made in generation `g` (generations `windowMs` long). */
export function untimedCollection(windowMs: number, g: number): string {
  return `${UNTIMED_PREFIX}${windowMs}_${g}`;
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

  /**
   * The collections `record` is claimed in at `now`, oldest first. Each claim after the first names
   * the owner found in the one before (so the owner is carried forward), and the LAST one decides:
   * a legacy claim (while honoured), then for an untimed event the previous and the current
   * generation, for a timestamped one its slot.
   */
  chain(record: Pick<CallRecord, 'ts' | 'u'>, now: number): string[] {
    const chain: string[] = [];
    if (this.legacyHonoured(now) && (record.u || record.ts < this.legacySince! + LEGACY_ROLLOUT_MS)) chain.push(LEGACY_CLAIMS);
    if (record.u) {
      const window = this.options.dedupWindowMs;
      const g = Math.floor(now / window);
      chain.push(untimedCollection(window, g - 1), untimedCollection(window, g));
    } else {
      chain.push(slotCollection(record.ts));
    }
    return chain;
  }

  async claim(batch: ClaimBatch): Promise<Map<string, string>> {
    const now = this.options.clock();
    const groups = new Map<string, string[]>();
    const single: CallRecord[] = [];
    for (const r of batch.events) {
      if (r.g === undefined) single.push(r);
      else if (groups.has(r.g)) groups.get(r.g)!.push(r.id);
      else groups.set(r.g, [r.id]);
    }
    const owners = await this.claimEvents(batch, single, now);
    if (groups.size === 0) return owners;
    const placement = {
      nameOf: (group: string) => groupSlotCollection(claimGroupTime(group)!),
      collection: async (name: string) => {
        await this.holdLateSlots([name], now);
        await this.ensure(name);
        return this.space.collection<GroupLinkDoc>(name);
      },
    };
    for (const [id, b] of await claimGroupChains(groups, batch._id, placement)) owners.set(id, b);
    return owners;
  }

  /** Claims each of `records` by its event id, along its chain (see {@link chain}). */
  private async claimEvents(batch: ClaimBatch, records: readonly CallRecord[], now: number): Promise<Map<string, string>> {
    const chains = records.map((r) => ({ id: r.id, chain: this.chain(r, now) }));
    /** Event id → the owner named by the last collection claimed so far. */
    const carried = new Map<string, string>();
    const owners = new Map<string, string>();
    for (let level = 0; ; level++) {
      const groups = new Map<string, ClaimDoc[]>();
      for (const { id, chain } of chains) {
        const name = chain[level];
        if (name === undefined) continue;
        // Only the legacy collection is pruned by age (by writers of the version before); a slot or
        // generation is dropped whole, and a row without `at` costs FerretDB ~10% less to insert.
        const doc: ClaimDoc = name === LEGACY_CLAIMS ? { _id: id, b: carried.get(id) ?? batch._id, at: batch.at } : { _id: id, b: carried.get(id) ?? batch._id };
        const group = groups.get(name);
        if (group) group.push(doc);
        else groups.set(name, [doc]);
      }
      if (groups.size === 0) break;
      await this.holdLateSlots([...groups.keys()], now);
      carried.clear();
      const settled = await Promise.allSettled(
        [...groups].map(async ([name, docs]) => {
          await this.ensure(name);
          for (const [id, b] of await insertClaims(this.space.collection<ClaimDoc>(name), docs)) carried.set(id, b);
        }),
      );
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      // A record whose chain ends here has its owner: what this level's claim names.
      for (const { id, chain } of chains) {
        if (chain.length !== level + 1) continue;
        const owner = carried.get(id);
        if (owner !== undefined) owners.set(id, owner);
      }
    }
    return owners;
  }

  async prune(now: number, dedupWindowMs: number): Promise<void> {
    const cutoff = now - dedupWindowMs;
    const meta = this.space.collection<ClaimsMetaDoc>(CLAIMS_META);
    const holds = new Map((await meta.find({ _id: { $regex: new RegExp(`^${HOLD_PREFIX}`) } })).map((h) => [h._id.slice(HOLD_PREFIX.length), h.at]));
    for (const prefix of SLOTTED_PREFIXES) {
      for (const name of await this.space.names(prefix)) {
        const slot = Number(name.slice(prefix.length));
        if (!Number.isSafeInteger(slot) || (slot + 1) * CLAIM_SLOT_MS > cutoff) continue;
        const held = holds.get(name);
        if (held !== undefined && held >= cutoff) continue;
        await this.space.drop(name);
        this.known.delete(name);
        if (held !== undefined) await meta.delete({ _id: `${HOLD_PREFIX}${name}` });
      }
    }
    // A generation is read as the previous one until a window after its end.
    for (const name of await this.space.names(UNTIMED_PREFIX)) {
      const m = /^(\d+)_(\d+)$/.exec(name.slice(UNTIMED_PREFIX.length));
      if (!m || (Number(m[2]) + 1) * Number(m[1]) > cutoff) continue;
      await this.space.drop(name);
      this.known.delete(name);
    }
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
      const prefix = SLOTTED_PREFIXES.find((p) => name.startsWith(p));
      if (prefix === undefined) continue;
      const slotEnd = (Number(name.slice(prefix.length)) + 1) * CLAIM_SLOT_MS;
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
