/** Contract: statistics written later (`statsFlushMs`) are still exact, across reads, crashes and redeliveries. */
import { type ContractContext, TEST_TIMEOUT, called, calls } from './support';

/** Long enough that only reads, closing and the waiting-events bound write within a test. */
const LATER = 60_000;

export function deferredStatsContract(ctx: ContractContext): void {
  describe('statistics written later (statsFlushMs)', () => {
    it(
      'counts batches recorded before their statistics are written exactly, as a read through the store sees them',
      async () => {
        const store = await ctx.restart({ statsFlushMs: LATER, maxBatchEvents: 4 });
        expect(await store.recordCalls(calls('a', 'local:file_read', 6, { latencyMs: 40 }))).toEqual({ recorded: 6, duplicates: 0, rejected: [] });
        ctx.clock.advance(1000);
        expect(await store.recordCalls([...calls('b', 'local:file_read', 3), ...calls('c', 'mcp:web_fetch', 2, { status: 'tool_error' })])).toMatchObject({ recorded: 5 });
        expect(await store.getToolStats('local:file_read')).toMatchObject({ calls: 9, successes: 9 });
        expect(await store.getToolStats('mcp:web_fetch')).toMatchObject({ calls: 2, failures: { tool_error: 2 } });
        // What was written once is not written again by the next read or batch.
        expect(await store.recordCalls(calls('d', 'mcp:web_fetch', 1))).toMatchObject({ recorded: 1 });
        const listed = await store.listToolStats({ sortBy: 'calls' });
        expect(listed.map((s) => [s.toolId, s.calls])).toEqual([
          ['local:file_read', 9],
          ['mcp:web_fetch', 3],
        ]);
      },
      TEST_TIMEOUT,
    );

    it(
      'refuses a redelivery of events whose statistics are still waiting, and counts the new events in it once',
      async () => {
        const store = await ctx.restart({ statsFlushMs: LATER });
        const batch = calls('r', 'local:file_read', 4);
        await store.recordCalls(batch);
        expect(await store.recordCalls([...batch, called('r-new', 'local:file_read')])).toEqual({ recorded: 1, duplicates: 4, rejected: [] });
        expect((await store.getToolStats('local:file_read'))?.calls).toBe(5);
      },
      TEST_TIMEOUT,
    );

    it(
      'writes waiting statistics on close, so the next start counts them once',
      async () => {
        const store = await ctx.restart({ statsFlushMs: LATER });
        await store.recordCalls(calls('w', 'local:file_read', 7));
        const reopened = await ctx.restart();
        expect((await reopened.getToolStats('local:file_read'))?.calls).toBe(7);
        if (ctx.claimsSurviveRestart) expect(await reopened.recordCalls(calls('w', 'local:file_read', 7))).toMatchObject({ recorded: 0, duplicates: 7 });
      },
      TEST_TIMEOUT,
    );

    it(
      'a crash while the waiting statistics are written loses and doubles nothing: a restart finishes the stored batches',
      async () => {
        const store = await ctx.restart({ statsFlushMs: LATER, failAt: 'first-tool-applied' });
        // The events are durable when recordCalls returns; the crash comes with the write, at the read.
        expect(await store.recordCalls([...calls('x', 'local:file_read', 3), ...calls('y', 'mcp:web_fetch', 2)])).toMatchObject({ recorded: 5 });
        ctx.clock.advance(1000);
        expect(await store.recordCalls(calls('z', 'mcp:web_fetch', 2))).toMatchObject({ recorded: 2 });
        await expect(store.getToolStats('local:file_read')).rejects.toThrow(/Injected failure/);
        const restarted = await ctx.restart();
        expect((await restarted.getToolStats('local:file_read'))?.calls).toBe(3);
        expect((await restarted.getToolStats('mcp:web_fetch'))?.calls).toBe(4);
        if (ctx.claimsSurviveRestart) expect(await restarted.recordCalls(calls('y', 'mcp:web_fetch', 2))).toMatchObject({ recorded: 0, duplicates: 2 });
      },
      TEST_TIMEOUT,
    );

    it(
      'does not count twice a waiting batch that a sweep finished first',
      async () => {
        const store = await ctx.restart({ statsFlushMs: LATER, recoverAfterMs: 60_000 });
        await store.recordCalls(calls('s', 'local:file_read', 5));
        // Past recoverAfterMs the next recordCalls' sweep finishes the waiting batch as a crashed writer's.
        ctx.clock.advance(61_000);
        await store.recordCalls(calls('t', 'local:file_read', 2));
        expect((await store.getToolStats('local:file_read'))?.calls).toBe(7);
      },
      TEST_TIMEOUT,
    );
  });
}
