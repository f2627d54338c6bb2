/** Contract: learned pairs of learning from use are kept once per id, survive a restart, and are pruned by count and age. */
import type { StoredLearnedUse } from '../store';
import { type ContractContext, DAY, TEST_TIMEOUT, expectToolHubError } from './support';

const use = (id: string, toolId: string, atUnixMs: number, extra: Partial<StoredLearnedUse> = {}): StoredLearnedUse => ({
  id,
  toolId,
  provider: toolId.slice(0, toolId.indexOf(':')),
  query: `query ${id}`,
  atUnixMs,
  ...extra,
});

export function learningContract(ctx: ContractContext): void {
  describe('learned uses (learning from use)', () => {
    it(
      'keeps each use once by its id, with its vector bit for bit, across a restart, oldest first from a given time',
      async () => {
        const t = ctx.clock.now;
        const s = ctx.store();
        expect(await s.saveLearnedUse(use('e2#0', 'mail:send', t, { query: 'send an email', vector: Float32Array.of(0.25, -1.5, 3e-8) }))).toBe(true);
        expect(await s.saveLearnedUse(use('e1#0', 'mail:read', t - 1000, { query: 'read my inbox' }))).toBe(true);
        expect(await s.saveLearnedUse(use('e0#0', 'mail:read', t - 10 * DAY))).toBe(true);
        // The same run learned again (redelivered, or by another replica): nothing changes.
        expect(await s.saveLearnedUse(use('e2#0', 'mail:send', t + 5, { query: 'something else' }))).toBe(false);

        const again = await ctx.restart();
        const got = await again.listLearnedUses(t - DAY);
        expect(got).toEqual([
          { id: 'e1#0', toolId: 'mail:read', provider: 'mail', query: 'read my inbox', atUnixMs: t - 1000 },
          { id: 'e2#0', toolId: 'mail:send', provider: 'mail', query: 'send an email', atUnixMs: t, vector: Float32Array.of(0.25, -1.5, 3e-8) },
        ]);
        expect((await again.listLearnedUses(0)).map((u) => u.id)).toEqual(['e0#0', 'e1#0', 'e2#0']);
      },
      TEST_TIMEOUT,
    );

    it(
      "prunes a provider down to its newest uses and every provider's uses older than a time",
      async () => {
        const t = ctx.clock.now;
        const s = ctx.store();
        for (let i = 0; i < 30; i++) await s.saveLearnedUse(use(`a${i}`, 'mail:send', t + i * 1000, { vector: Float32Array.of(i) }));
        for (let i = 0; i < 5; i++) await s.saveLearnedUse(use(`b${i}`, 'gh:open_issue', t + i * 1000));

        expect(await s.pruneLearnedUses({ provider: 'mail', keepNewest: 10, beforeUnixMs: 0 })).toBe(20);
        expect((await s.listLearnedUses(0)).map((u) => u.id)).toEqual(['b0', 'b1', 'b2', 'b3', 'b4', ...Array.from({ length: 10 }, (_, i) => `a${20 + i}`)]);
        expect(await s.pruneLearnedUses({ provider: 'mail', keepNewest: 10, beforeUnixMs: 0 })).toBe(0);

        // By age, across providers: everything stamped before t + 22 s.
        expect(await s.pruneLearnedUses({ beforeUnixMs: t + 22_000 })).toBe(5 + 2);
        const left = await s.listLearnedUses(0);
        expect(left.map((u) => u.id)).toEqual(['a22', 'a23', 'a24', 'a25', 'a26', 'a27', 'a28', 'a29']);
        expect(left[0]!.vector).toEqual(Float32Array.of(22));
      },
      TEST_TIMEOUT,
    );

    it('refuses a malformed use or prune and stores nothing', async () => {
      const s = ctx.store();
      const t = ctx.clock.now;
      await expectToolHubError(s.saveLearnedUse(use('', 'mail:send', t)), 'invalid_argument', 'use.id');
      await expectToolHubError(s.saveLearnedUse(use('x', 'not a tool', t)), 'invalid_argument', 'use.toolId');
      await expectToolHubError(s.saveLearnedUse(use('x', 'mail:send', t, { provider: 'gh' })), 'invalid_argument', 'use.provider');
      await expectToolHubError(s.saveLearnedUse(use('x', 'mail:send', t, { query: '' })), 'invalid_argument', 'use.query');
      await expectToolHubError(s.saveLearnedUse(use('x', 'mail:send', -1)), 'invalid_argument', 'use.atUnixMs');
      await expectToolHubError(s.pruneLearnedUses({ beforeUnixMs: 0, keepNewest: 5 }), 'invalid_argument', 'keepNewest');
      expect(await s.listLearnedUses(0)).toEqual([]);
    });
  });
}
