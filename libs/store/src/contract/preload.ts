/** Contract: the versioned preload list. */
import { type ContractContext, TEST_TIMEOUT, expectToolHubError } from './support';

export function preloadContract(ctx: ContractContext): void {
  describe('preload list', () => {
    it(
      'starts empty at revision 0 with no history',
      async () => {
        expect(await ctx.store().getPreloadList()).toEqual({ toolIds: [], revision: 0, changedBy: '', changedUnixMs: 0, comment: '' });
        expect(await ctx.store().preloadHistory()).toEqual([]);
      },
      TEST_TIMEOUT,
    );

    it(
      'saves each change as a revision with who, when, the comment and what was added and removed',
      async () => {
        const first = await ctx.store().setPreloadList({ toolIds: ['local:file_read', 'mcp:web_fetch'], expectedRevision: 0, changedBy: 'alice', comment: 'start' });
        expect(first).toEqual({
          toolIds: ['local:file_read', 'mcp:web_fetch'],
          revision: 1,
          changedBy: 'alice',
          changedUnixMs: ctx.clock.now,
          comment: 'start',
          added: ['local:file_read', 'mcp:web_fetch'],
          removed: [],
        });
        ctx.clock.advance(60_000);
        const second = await ctx.store().setPreloadList({ toolIds: ['mcp:web_fetch', 'cloud:search'], expectedRevision: 1, changedBy: 'bob' });
        expect(second).toMatchObject({ revision: 2, changedBy: 'bob', comment: '', added: ['cloud:search'], removed: ['local:file_read'] });
        expect(await ctx.store().getPreloadList()).toEqual({
          toolIds: ['mcp:web_fetch', 'cloud:search'],
          revision: 2,
          changedBy: 'bob',
          changedUnixMs: ctx.clock.now,
          comment: '',
        });
        const history = await ctx.store().preloadHistory();
        expect(history.map((h) => [h.revision, h.changedBy])).toEqual([
          [2, 'bob'],
          [1, 'alice'],
        ]);
        expect((await ctx.store().preloadHistory(1)).map((h) => h.revision)).toEqual([2]);
      },
      TEST_TIMEOUT,
    );

    it(
      'keeps the order the operator chose (a reorder is a change)',
      async () => {
        await ctx.store().setPreloadList({ toolIds: ['a:x', 'b:y'], changedBy: 'alice' });
        const reordered = await ctx.store().setPreloadList({ toolIds: ['b:y', 'a:x'], changedBy: 'alice' });
        expect(reordered).toMatchObject({ revision: 2, toolIds: ['b:y', 'a:x'], added: [], removed: [] });
      },
      TEST_TIMEOUT,
    );

    it(
      'refuses a change made on an older revision with failed_precondition and keeps the list',
      async () => {
        await ctx.store().setPreloadList({ toolIds: ['local:file_read'], changedBy: 'alice', comment: 'mine' });
        await ctx.store().setPreloadList({ toolIds: ['local:file_read', 'mcp:web_fetch'], expectedRevision: 1, changedBy: 'bob' });
        const stale = await expectToolHubError(ctx.store().setPreloadList({ toolIds: [], expectedRevision: 1, changedBy: 'carol' }), 'failed_precondition');
        expect(stale.message).toMatch(/revision 2/);
        expect(stale.message).toMatch(/bob/);
        await expectToolHubError(ctx.store().setPreloadList({ toolIds: [], expectedRevision: 9, changedBy: 'carol' }), 'failed_precondition');
        expect(await ctx.store().getPreloadList()).toMatchObject({ revision: 2, toolIds: ['local:file_read', 'mcp:web_fetch'] });
        expect(await ctx.store().preloadHistory()).toHaveLength(2);
      },
      TEST_TIMEOUT,
    );

    it(
      'lets exactly one of two concurrent changes on the same revision win',
      async () => {
        await ctx.store().setPreloadList({ toolIds: ['a:x'], changedBy: 'alice' });
        const outcomes = await Promise.allSettled([
          ctx.store().setPreloadList({ toolIds: ['a:x', 'b:y'], expectedRevision: 1, changedBy: 'bob' }),
          ctx.store().setPreloadList({ toolIds: ['c:z'], expectedRevision: 1, changedBy: 'carol' }),
        ]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const rejected = outcomes.find((o) => o.status === 'rejected');
        expect((rejected?.reason as { code?: string }).code).toBe('failed_precondition');
        expect((await ctx.store().getPreloadList()).revision).toBe(2);
      },
      TEST_TIMEOUT,
    );

    it(
      'creates no revision when the same list is saved again',
      async () => {
        await ctx.store().setPreloadList({ toolIds: ['a:x'], changedBy: 'alice' });
        const same = await ctx.store().setPreloadList({ toolIds: ['a:x'], expectedRevision: 1, changedBy: 'bob' });
        expect(same).toMatchObject({ revision: 1, changedBy: 'alice' });
        expect(await ctx.store().preloadHistory()).toHaveLength(1);
      },
      TEST_TIMEOUT,
    );

    it(
      'refuses malformed or repeated ids and a missing changedBy, naming the field, and changes nothing',
      async () => {
        await expectToolHubError(ctx.store().setPreloadList({ toolIds: ['local:file_read', 'file_write'], changedBy: 'alice' }), 'invalid_argument', 'toolIds[1]');
        await expectToolHubError(ctx.store().setPreloadList({ toolIds: ['a:x', 'b:y', 'a:x'], changedBy: 'alice' }), 'invalid_argument', 'toolIds[2]');
        await expectToolHubError(ctx.store().setPreloadList({ toolIds: ['a:x'], changedBy: ' ' }), 'invalid_argument', 'changedBy');
        await expectToolHubError(ctx.store().setPreloadList({ toolIds: ['a:x'], changedBy: 'alice', expectedRevision: -1 }), 'invalid_argument', 'expectedRevision');
        await expectToolHubError(ctx.store().preloadHistory(0), 'invalid_argument', 'limit');
        expect((await ctx.store().getPreloadList()).revision).toBe(0);
      },
      TEST_TIMEOUT,
    );
  });
}
