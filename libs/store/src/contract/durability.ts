/** Contract: data survives restarts, crashes in mid-write never lose or double count, lifecycle. */
import { Importance } from '@toolhub/contracts';

import type { RecordStep } from '../options';
import { type ContractContext, TEST_TIMEOUT, called, calls, expectToolHubError, tool } from './support';

const STEPS: readonly RecordStep[] = ['batch-written', 'claims-written', 'first-tool-applied', 'all-tools-applied'];

export function durabilityContract(ctx: ContractContext): void {
  describe('durability', () => {
    it(
      `keeps tools, overlays, the preload history and statistics across a restart${ctx.claimsSurviveRestart ? ', and still refuses duplicates' : ''}`,
      async () => {
        const s = ctx.store();
        await s.upsertTools('local', [tool('file_read'), tool('file_write')]);
        await s.registerTool(tool('weather_get', { provider: 'manual' }));
        await s.setOverlay('local', 'file_read', { enabled: false, importance: Importance.IMPORTANCE_CORE, changedBy: 'alice' });
        await s.setPreloadList({ toolIds: ['local:file_read'], changedBy: 'alice', comment: 'first' });
        await s.setPreloadList({ toolIds: ['local:file_read', 'manual:weather_get'], expectedRevision: 1, changedBy: 'bob' });
        await s.recordCalls(calls('p', 'local:file_read', 5, { latencyMs: 40 }));
        const before = {
          tools: await s.listTools(),
          preload: await s.getPreloadList(),
          history: await s.preloadHistory(),
          stats: await s.getToolStats('local:file_read'),
        };

        const again = await ctx.restart();
        expect(await again.listTools()).toEqual(before.tools);
        expect(await again.getPreloadList()).toEqual(before.preload);
        expect(await again.preloadHistory()).toEqual(before.history);
        expect(await again.getToolStats('local:file_read')).toEqual(before.stats);
        if (ctx.claimsSurviveRestart) expect(await again.recordCalls(calls('p', 'local:file_read', 5))).toEqual({ recorded: 0, duplicates: 5, rejected: [] });
        await expectToolHubError(again.registerTool(tool('weather_get', { provider: 'manual' })), 'already_exists');
        await expectToolHubError(again.setPreloadList({ toolIds: [], expectedRevision: 1, changedBy: 'carol' }), 'failed_precondition');
        expect(await again.upsertTools('local', [tool('file_read'), tool('file_write')])).toMatchObject({ unchanged: ['file_read', 'file_write'] });
      },
      TEST_TIMEOUT,
    );

    // Events with and without a timestamp: a store may keep their claims apart (MongoRegistryStore
    // places a timestamped event's claim by its time, slotted-claims.ts).
    for (const [step, timed] of STEPS.flatMap((s) => [[s, false] as const, [s, true] as const])) {
      const kind = timed ? ' (events with timestamps, two claim slots apart)' : '';
      // Ten minutes apart: in different claim slots of MongoRegistryStore.
      const stamp = (minutesAgo: number) => (timed ? { timestampUnixMs: ctx.clock.now - minutesAgo * 60_000 } : {});
      it(
        `counts every event exactly once after a crash at ${step}, a restart${ctx.claimsSurviveRestart ? ' and a redelivery' : ''}${kind}`,
        async () => {
          await ctx.store().recordCalls(calls('earlier', 'local:file_read', 3, stamp(30)));
          const batch = [...calls('c', 'local:file_read', 4, stamp(11)), ...calls('d', 'mcp:web_fetch', 2, { status: 'tool_error', ...stamp(1) })];
          const crashing = await ctx.restart({ failAt: step });
          await expect(crashing.recordCalls(batch)).rejects.toThrow(/Injected failure/);

          const restarted = await ctx.restart();
          // Start-up finished what the crash left behind…
          expect(await restarted.getToolStats('local:file_read')).toMatchObject({ calls: 7, successes: 7 });
          expect(await restarted.getToolStats('mcp:web_fetch')).toMatchObject({ calls: 2, failures: { tool_error: 2 } });
          // …and the redelivery of the unacknowledged batch counts nothing twice.
          if (!ctx.claimsSurviveRestart) return;
          expect(await restarted.recordCalls(batch)).toEqual({ recorded: 0, duplicates: 6, rejected: [] });
          expect((await restarted.getToolStats('local:file_read'))?.calls).toBe(7);
          expect((await restarted.getToolStats('mcp:web_fetch'))?.calls).toBe(2);
        },
        TEST_TIMEOUT,
      );

      it(
        `counts every event exactly once when a batch interrupted at ${step} is redelivered, with new events, to a store that did not restart${kind}`,
        async () => {
          const batch = [...calls('c', 'local:file_read', 4, stamp(11)), ...calls('d', 'mcp:web_fetch', 2, stamp(1))];
          const store = await ctx.restart({ failAt: step });
          await expect(store.recordCalls(batch)).rejects.toThrow(/Injected failure/);
          const redelivery = [...calls('new', 'mcp:web_fetch', 2, stamp(25)), ...batch];
          const result = await store.recordCalls(redelivery);
          expect(result.recorded + result.duplicates).toBe(8);
          expect((await store.getToolStats('local:file_read'))?.calls).toBe(4);
          expect((await store.getToolStats('mcp:web_fetch'))?.calls).toBe(4);
          expect(await store.recordCalls(redelivery)).toEqual({ recorded: 0, duplicates: 8, rejected: [] });
        },
        TEST_TIMEOUT,
      );
    }

    it(
      'finishes a batch left behind by a crash once it is older than recoverAfterMs, without a restart or a full redelivery',
      async () => {
        const batch = calls('c', 'local:file_read', 6);
        const store = await ctx.restart({ failAt: 'batch-written', recoverAfterMs: 60_000 });
        await expect(store.recordCalls(batch)).rejects.toThrow(/Injected failure/);
        // Only part of it comes back; the rest was in the batch that was left behind.
        await store.recordCalls(batch.slice(0, 2));
        expect((await store.getToolStats('local:file_read'))?.calls).toBe(2);
        ctx.clock.advance(61_000);
        await store.recordCalls([called('later', 'mcp:web_fetch')]);
        expect((await store.getToolStats('local:file_read'))?.calls).toBe(6);
        expect(await store.recordCalls(batch)).toMatchObject({ recorded: 0, duplicates: 6 });
      },
      TEST_TIMEOUT,
    );

    it(
      'splits an input longer than maxBatchEvents into several batches and counts it exactly',
      async () => {
        const store = await ctx.restart({ maxBatchEvents: 3 });
        const events = [...calls('s', 'local:file_read', 7), ...calls('t', 'mcp:web_fetch', 4)];
        expect(await store.recordCalls(events.slice(0, 5))).toMatchObject({ recorded: 5 });
        expect(await store.recordCalls(events)).toEqual({ recorded: 6, duplicates: 5, rejected: [] });
        expect((await store.getToolStats('local:file_read'))?.calls).toBe(7);
        expect((await store.getToolStats('mcp:web_fetch'))?.calls).toBe(4);
      },
      TEST_TIMEOUT,
    );

    it(
      'waits for calls in flight on close, then refuses calls with StoreError closed; close is idempotent',
      async () => {
        const s = ctx.store();
        const inFlight = s.recordCalls(calls('f', 'local:file_read', 50));
        const closing = s.close();
        await expect(inFlight).resolves.toMatchObject({ recorded: 50 });
        await closing;
        await s.close();
        await expect(s.listTools()).rejects.toMatchObject({ name: 'StoreError', code: 'closed' });
        await expect(s.recordCalls([])).rejects.toMatchObject({ name: 'StoreError', code: 'closed' });
        const reopened = await ctx.restart();
        expect((await reopened.getToolStats('local:file_read'))?.calls).toBe(50);
      },
      TEST_TIMEOUT,
    );
  });
}
