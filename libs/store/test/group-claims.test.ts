/**
 * The claim chain of a group (stats/group-claims.ts) on a Map: who owns an event already listed by
 * a link, the next link for the rest, and the clear errors for a chain a broken producer made too
 * long and for a link that vanished. The same chain on FerretDB: mongo-group-claims.int.test.ts.
 */
import type { DocCollection, Filter } from '../src/backend';
import { isStoreError } from '../src/errors';
import { type GroupLinkDoc, type GroupPlacement, MAX_CHAIN_LINKS, claimGroupChains, linkId } from '../src/stats/group-claims';

/** Links by `_id`; `find` answers `{ _id: { $in } }`, the one query the chain makes. */
function links(initial: GroupLinkDoc[] = [], options: { forget?: boolean } = {}): { placement: GroupPlacement; docs: Map<string, GroupLinkDoc> } {
  const docs = new Map(initial.map((d) => [d._id, d]));
  const collection = {
    insertNew: async (batch: readonly GroupLinkDoc[]) => {
      const taken: string[] = [];
      for (const d of batch) {
        if (docs.has(d._id)) taken.push(d._id);
        else docs.set(d._id, d);
      }
      return taken;
    },
    find: async (filter: Filter) => (options.forget ? [] : ((filter['_id'] as { $in: string[] }).$in.map((id) => docs.get(id)).filter(Boolean) as GroupLinkDoc[])),
  } as unknown as DocCollection<GroupLinkDoc>;
  return { placement: { nameOf: () => 'links', collection: async () => collection }, docs };
}

const link = (group: string, k: number, b: string, ids: string[]): GroupLinkDoc => ({ _id: linkId(group, k), b, ids: JSON.stringify(ids) });

describe('claim chains of groups', () => {
  it('gives an event to the first link listing it, and the events no link lists to a new link of this batch', async () => {
    const { placement, docs } = links([link('G', 1, 'B1', ['a', 'b']), link('G', 2, 'B2', ['c'])]);
    const owners = await claimGroupChains(new Map([['G', ['a', 'c', 'd']]]), 'B3', placement);
    expect(Object.fromEntries(owners)).toEqual({ a: 'B1', c: 'B2', d: 'B3' });
    expect(docs.get('G#3')).toEqual(link('G', 3, 'B3', ['d']));
    // The same batch again (a recovery): the same owners, no new link.
    expect(Object.fromEntries(await claimGroupChains(new Map([['G', ['a', 'c', 'd']]]), 'B3', placement))).toEqual({ a: 'B1', c: 'B2', d: 'B3' });
    expect(docs.size).toBe(3);
  });

  it('refuses a chain longer than a group can make, naming the group and the fix', async () => {
    const full = Array.from({ length: MAX_CHAIN_LINKS }, (_, i) => link('G', i + 1, `B${i}`, [`other-${i}`]));
    const { placement, docs } = links(full);
    const err = await claimGroupChains(new Map([['G', ['new']]]), 'B', placement).catch((e: unknown) => e);
    expect(isStoreError(err)).toBe(true);
    expect((err as Error).message).toMatch(/claim chain of group "G" has more than 1024 links.*fix the producer/);
    expect(docs.size).toBe(MAX_CHAIN_LINKS);
  });

  it('fails retryably when a link it could not insert is gone when read (its slot dropped meanwhile)', async () => {
    const { placement } = links([link('G', 1, 'B1', ['a'])], { forget: true });
    const err = await claimGroupChains(new Map([['G', ['a']]]), 'B2', placement).catch((e: unknown) => e);
    expect(isStoreError(err, 'backend')).toBe(true);
    expect((err as { retryable: boolean }).retryable).toBe(true);
    expect((err as Error).message).toMatch(/vanished.*retry the batch/);
  });
});
