/** Contract: the append-only audit log of admin changes. */
import { type ContractContext, TEST_TIMEOUT } from './support';

const change = (principal: string, target: string, before: unknown, after: unknown) => ({
  principal,
  roles: ['operator'],
  action: 'SetEnabled',
  target,
  beforeJson: before === undefined ? '' : JSON.stringify(before),
  afterJson: JSON.stringify(after),
  comment: '',
  requestId: `req-${target}`,
});

export function auditContract(ctx: ContractContext): void {
  describe('audit log', () => {
    it(
      'keeps every change with who, when, what, before and after, newest first, and survives a restart',
      async () => {
        const first = await ctx.store().appendAudit(change('key:alice', 'local:file_read', { enabled: true }, { enabled: false }));
        expect(first).toMatchObject({ principal: 'key:alice', atUnixMs: ctx.clock.now, target: 'local:file_read', beforeJson: '{"enabled":true}', afterJson: '{"enabled":false}' });
        ctx.clock.advance(1000);
        await ctx.store().appendAudit(change('jwt:idp#bob', 'preload', { toolIds: [] }, { toolIds: ['local:file_read'] }));
        const store = await ctx.restart();
        const all = await store.listAudit();
        expect(all.map((e) => [e.principal, e.target])).toEqual([
          ['jwt:idp#bob', 'preload'],
          ['key:alice', 'local:file_read'],
        ]);
        expect(all[1]).toEqual(first);
      },
      TEST_TIMEOUT,
    );

    it(
      'filters by target and principal and pages by time',
      async () => {
        for (let i = 0; i < 5; i++) {
          await ctx.store().appendAudit(change(i % 2 ? 'key:a' : 'key:b', i < 3 ? 'local:x' : 'preload', i, i + 1));
          ctx.clock.advance(10);
        }
        expect((await ctx.store().listAudit({ principal: 'key:a' })).length).toBe(2);
        expect((await ctx.store().listAudit({ target: 'preload' })).map((e) => e.afterJson)).toEqual(['5', '4']);
        const page = await ctx.store().listAudit({ limit: 2 });
        const next = await ctx.store().listAudit({ limit: 2, beforeUnixMs: page[1]!.atUnixMs });
        expect(next.map((e) => e.afterJson)).toEqual(['3', '2']);
      },
      TEST_TIMEOUT,
    );
  });
}
