/**
 * Claims of a claim group's events (docs/claim-groups.md): one document per group instead of one
 * per event, exact however the group's events are split over messages, batches and deliveries.
 *
 * A group's claims are an append-only chain of links `<group>#1`, `<group>#2`, ...; a link is
 * inserted once (insert-if-absent on the unique `_id`) and names a batch and the event ids it owns.
 * A batch claims its events of a group by walking the chain: it tries to insert link k holding the
 * events it has not yet found an owner for; if link k exists, the events it lists belong to its
 * batch, the rest go on to link k + 1. Every writer walks the same links in the same order, so all
 * agree that an event belongs to the first link that lists it, and no event is in two links (a
 * writer reaches link k only after removing what links 1..k-1 list). In the common case, a group
 * arriving whole, that is one insert and no read.
 * Shaped by FerretDB 1.24, the test stand-in for MongoDB: docs/decisions/0001-ferretdb-is-the-test-stand-in.md.
 */
import type { BaseDoc, DocCollection } from '../backend';
import { StoreError } from '../errors';

/** A link of a group's claim chain: `_id` = `<group>#<k>`. */
export interface GroupLinkDoc extends BaseDoc {
  /** The batch that counts the events of this link. */
  b: string;
  /** Those events' ids, as JSON text (FerretDB stores text far cheaper than an array). */
  ids: string;
}

/**
 * Each link owns at least one event it is the first to list, and a dispatcher puts at most 1,024
 * events in a group (its largest message): a longer chain means a producer reusing one group for
 * unrelated events, refused rather than walked for ever.
 */
export const MAX_CHAIN_LINKS = 1024;

/** The `_id` of link `k` of `group`. */
export function linkId(group: string, k: number): string {
  return `${group}#${k}`;
}

/** Where a group's chain lives. */
export interface GroupPlacement {
  /** The collection of a group's links: a pure function of the group. */
  nameOf(group: string): string;
  /** That collection, created if need be. */
  collection(name: string): Promise<DocCollection<GroupLinkDoc>>;
}

/**
 * Claims, for batch `batchId`, its events of each group in `groups` (group → event ids) along the
 * group's chain where `placement` puts it. Returns event id → owning batch for every event.
 * Idempotent: the same batch walking again finds its own links.
 * @throws StoreError when a chain is longer than {@link MAX_CHAIN_LINKS}, or a link vanished between
 * its insert failing and its read (its collection dropped: retry)
 */
export async function claimGroupChains(
  groups: ReadonlyMap<string, readonly string[]>,
  batchId: string,
  placement: GroupPlacement,
): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  let open = [...groups].map(([group, ids]) => ({ group, k: 1, remaining: new Set(ids) }));
  while (open.length > 0) {
    const next: typeof open = [];
    // One unordered insert (and at most one read) per collection and round.
    const byCollection = new Map<string, typeof open>();
    for (const item of open) {
      const name = placement.nameOf(item.group);
      const items = byCollection.get(name);
      if (items) items.push(item);
      else byCollection.set(name, [item]);
    }
    for (const [name, items] of byCollection) {
      const collection = await placement.collection(name);
      const byLink = new Map(items.map((item) => [linkId(item.group, item.k), item]));
      const taken = new Set(
        await collection.insertNew(items.map((item) => ({ _id: linkId(item.group, item.k), b: batchId, ids: JSON.stringify([...item.remaining].sort()) }))),
      );
      for (const [id, item] of byLink) {
        if (!taken.has(id)) for (const event of item.remaining) owners.set(event, batchId);
      }
      if (taken.size === 0) continue;
      const links = await collection.find({ _id: { $in: [...taken] } }, { include: ['b', 'ids'] });
      if (links.length !== taken.size) {
        throw new StoreError('backend', `${taken.size - links.length} claim link(s) vanished while being read (their slot was dropped?); retry the batch.`, { retryable: true });
      }
      for (const link of links) {
        const item = byLink.get(link._id)!;
        for (const event of JSON.parse(link.ids) as string[]) {
          if (item.remaining.delete(event)) owners.set(event, link.b);
        }
        if (item.remaining.size === 0) continue;
        if (++item.k > MAX_CHAIN_LINKS) {
          throw new StoreError('backend', `The claim chain of group ${JSON.stringify(item.group)} has more than ${MAX_CHAIN_LINKS} links: a producer stamps unrelated events with one group; fix the producer.`, {
            retryable: false,
          });
        }
        next.push(item);
      }
    }
    open = next;
  }
  return owners;
}
