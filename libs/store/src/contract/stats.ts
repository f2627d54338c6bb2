/** Contract: call statistics — exact counts under redelivery, percentiles, hourly buckets, rankings. */
import { ErrorCode } from '@toolhub/contracts';

import { type ContractContext, DAY, HOUR, TEST_TIMEOUT, called, calls, expectToolHubError } from './support';

export function statsContract(ctx: ContractContext): void {
  describe('call statistics', () => {
    it(
      'counts calls, successes, failures by class, fallbacks and the first and last call',
      async () => {
        const t0 = ctx.clock.now;
        const result = await ctx.store().recordCalls([
          called('e1', 'local:file_read', { timestampUnixMs: t0 - 5000 }),
          called('e2', 'local:file_read', { status: 'timeout', errorCode: ErrorCode.ERROR_CODE_TIMEOUT, latencyMs: 30_000 }),
          called('e3', 'local:file_read', { status: 'tool_error' }),
          called('e4', 'local:file_read', { status: 'tool_error', fallbackUsed: 'cloud:file_read' }),
          called('e5', 'local:file_read', { status: '', errorCode: ErrorCode.ERROR_CODE_UNAVAILABLE }),
          called('e6', 'local:file_read', { fallbackUsed: 'cloud:file_read' }),
          called('e7', 'mcp:web_fetch'),
        ]);
        expect(result).toEqual({ recorded: 7, duplicates: 0, rejected: [] });
        const stats = await ctx.store().getToolStats('local:file_read');
        expect(stats).toMatchObject({
          toolId: 'local:file_read',
          provider: 'local',
          name: 'file_read',
          calls: 6,
          successes: 2,
          failureCount: 4,
          failures: { timeout: 1, tool_error: 2, unavailable: 1 },
          fallbackServed: 2,
          firstCallUnixMs: t0 - 5000,
          lastCallUnixMs: t0,
        });
        expect(stats?.successRate).toBeCloseTo(2 / 6, 10);
        expect(stats?.failureRate).toBeCloseTo(4 / 6, 10);
        expect(stats?.maxLatencyMs).toBeGreaterThanOrEqual(29_700);
        expect(await ctx.store().getToolStats('mcp:web_fetch')).toMatchObject({ calls: 1, successes: 1, failures: {} });
        expect(await ctx.store().getToolStats('mcp:never_called')).toBeUndefined();
        await expectToolHubError(ctx.store().getToolStats('no-colon'), 'invalid_argument', 'toolId');
      },
      TEST_TIMEOUT,
    );

    it(
      'never counts a redelivered batch twice',
      async () => {
        const batch = [...calls('a', 'local:file_read', 5), ...calls('b', 'mcp:web_fetch', 3, { status: 'tool_error' })];
        expect(await ctx.store().recordCalls(batch)).toEqual({ recorded: 8, duplicates: 0, rejected: [] });
        expect(await ctx.store().recordCalls(batch)).toEqual({ recorded: 0, duplicates: 8, rejected: [] });
        expect(await ctx.store().recordCalls([...batch].reverse())).toEqual({ recorded: 0, duplicates: 8, rejected: [] });
        expect(await ctx.store().getToolStats('local:file_read')).toMatchObject({ calls: 5, successes: 5 });
        expect(await ctx.store().getToolStats('mcp:web_fetch')).toMatchObject({ calls: 3, failures: { tool_error: 3 } });
      },
      TEST_TIMEOUT,
    );

    it(
      'counts events of a claim group once each, whole, split over batches or redelivered (whatever the store claims them by)',
      async () => {
        const group = `${ctx.clock.now}-contract-1`;
        const events = calls('grp', 'local:file_read', 10, { timestampUnixMs: ctx.clock.now, claimGroup: group });
        expect(await ctx.store().recordCalls(events.slice(0, 4))).toEqual({ recorded: 4, duplicates: 0, rejected: [] });
        expect(await ctx.store().recordCalls(events.slice(2, 7))).toEqual({ recorded: 3, duplicates: 2, rejected: [] });
        expect(await ctx.store().recordCalls(events)).toEqual({ recorded: 3, duplicates: 7, rejected: [] });
        expect(await ctx.store().recordCalls(events)).toEqual({ recorded: 0, duplicates: 10, rejected: [] });
        expect(await ctx.store().getToolStats('local:file_read')).toMatchObject({ calls: 10, successes: 10 });
      },
      TEST_TIMEOUT,
    );

    it(
      'counts partially overlapping batches exactly once per event id',
      async () => {
        const all = calls('e', 'local:file_read', 20);
        await ctx.store().recordCalls(all.slice(0, 8));
        expect(await ctx.store().recordCalls(all.slice(5, 14))).toEqual({ recorded: 6, duplicates: 3, rejected: [] });
        expect(await ctx.store().recordCalls(all)).toEqual({ recorded: 6, duplicates: 14, rejected: [] });
        expect(await ctx.store().getToolStats('local:file_read')).toMatchObject({ calls: 20 });
      },
      TEST_TIMEOUT,
    );

    it(
      'counts an event id repeated within one call once',
      async () => {
        const result = await ctx.store().recordCalls([called('same', 'local:file_read'), called('same', 'local:file_read'), called('other', 'local:file_read')]);
        expect(result).toEqual({ recorded: 2, duplicates: 1, rejected: [] });
        expect((await ctx.store().getToolStats('local:file_read'))?.calls).toBe(2);
      },
      TEST_TIMEOUT,
    );

    for (const timed of [false, true]) {
      it(
        `counts each event once when overlapping batches are recorded concurrently${timed ? ' (events with timestamps, over two claim slots)' : ''}`,
        async () => {
          // Timestamps 1 and 12 minutes back: two claim slots of MongoRegistryStore, neither existing yet.
          const at = (i: number) => (timed ? { timestampUnixMs: ctx.clock.now - (i % 2 === 0 ? 60_000 : 12 * 60_000) } : {});
          const all = [...calls('x', 'local:file_read', 30), ...calls('y', 'mcp:web_fetch', 30)].map((e, i) => ({ ...e, ...at(i) }));
          const slices = [all.slice(0, 25), all.slice(10, 40), all.slice(20, 60), all.slice(0, 60), all.slice(35, 50)];
          const results = await Promise.all(slices.map((s) => ctx.store().recordCalls(s)));
          expect(results.reduce((n, r) => n + r.recorded, 0)).toBe(60);
          expect((await ctx.store().getToolStats('local:file_read'))?.calls).toBe(30);
          expect((await ctx.store().getToolStats('mcp:web_fetch'))?.calls).toBe(30);
        },
        TEST_TIMEOUT,
      );
    }

    it(
      'skips malformed events, says why, and counts the rest',
      async () => {
        const result = await ctx.store().recordCalls([
          called('', 'local:file_read'),
          called('bad-tool', 'no colon here'),
          called('ok-1', 'local:file_read'),
          called('bad-latency', 'local:file_read', { latencyMs: Number.NaN }),
          called('ok-2', '', { provider: 'local', name: 'file_read' }),
        ]);
        expect(result.recorded).toBe(2);
        expect(result.rejected.map((r) => [r.index, r.eventId])).toEqual([
          [0, ''],
          [1, 'bad-tool'],
          [3, 'bad-latency'],
        ]);
        expect(result.rejected[0]?.reason).toMatch(/eventId/);
        expect(result.rejected[1]?.reason).toMatch(/toolId/);
        expect((await ctx.store().getToolStats('local:file_read'))?.calls).toBe(2);
        expect(await ctx.store().recordCalls([])).toEqual({ recorded: 0, duplicates: 0, rejected: [] });
      },
      TEST_TIMEOUT,
    );

    it(
      'reports latency percentiles within 1% on a known distribution, folded in over several batches',
      async () => {
        // 1..1000 ms, shuffled deterministically, in four batches.
        const latencies = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) + 1);
        for (let b = 0; b < 4; b++) {
          await ctx.store().recordCalls(latencies.slice(b * 250, (b + 1) * 250).map((ms, i) => called(`lat-${b}-${i}`, 'local:slow_tool', { latencyMs: ms })));
        }
        const stats = await ctx.store().getToolStats('local:slow_tool');
        expect(stats?.calls).toBe(1000);
        expect(stats?.meanLatencyMs).toBeCloseTo(500.5, 6);
        expect(Math.abs((stats?.p50Ms ?? 0) - 500) / 500).toBeLessThanOrEqual(0.01);
        expect(Math.abs((stats?.p95Ms ?? 0) - 950) / 950).toBeLessThanOrEqual(0.01);
        expect(Math.abs((stats?.p99Ms ?? 0) - 990) / 990).toBeLessThanOrEqual(0.01);
        expect(Math.abs((stats?.maxLatencyMs ?? 0) - 1000) / 1000).toBeLessThanOrEqual(0.01);
        expect(stats!.p50Ms).toBeLessThanOrEqual(stats!.p95Ms);
        expect(stats!.p95Ms).toBeLessThanOrEqual(stats!.p99Ms);
      },
      TEST_TIMEOUT,
    );

    it(
      'puts calls into hourly buckets and keeps only the last 7 days of them',
      async () => {
        const hour = Math.floor(ctx.clock.now / HOUR) * HOUR;
        await ctx.store().recordCalls([
          called('h1', 'local:file_read', { timestampUnixMs: hour + 1000, latencyMs: 10 }),
          called('h2', 'local:file_read', { timestampUnixMs: hour + 2000, latencyMs: 30, status: 'tool_error' }),
          called('h3', 'local:file_read', { timestampUnixMs: hour - 2 * HOUR + 5, latencyMs: 7 }),
          called('h4', 'local:file_read', { timestampUnixMs: hour - 8 * DAY }),
        ]);
        let stats = await ctx.store().getToolStats('local:file_read');
        expect(stats).toMatchObject({ calls: 4, recentCalls: 3, recentFailures: 1 });
        expect(stats?.hourly).toEqual([
          { hourStartUnixMs: hour - 2 * HOUR, calls: 1, successes: 1, failures: 0, meanLatencyMs: 7 },
          { hourStartUnixMs: hour, calls: 2, successes: 1, failures: 1, meanLatencyMs: 20 },
        ]);
        // Six days and 22 hours later the older bucket has left the window, the newer one not yet.
        ctx.clock.advance(7 * DAY - 2 * HOUR);
        stats = await ctx.store().getToolStats('local:file_read');
        expect(stats?.hourly.map((h) => h.hourStartUnixMs)).toEqual([hour]);
        expect(stats).toMatchObject({ calls: 4, recentCalls: 2 });
        expect((await ctx.store().listToolStats())[0]).toMatchObject({ recentCalls: 2, recentFailures: 1 });
        await ctx.store().recordCalls([called('h5', 'local:file_read')]);
        stats = await ctx.store().getToolStats('local:file_read');
        expect(stats?.calls).toBe(5);
        expect(stats?.hourly.map((h) => [h.hourStartUnixMs, h.calls])).toEqual([
          [hour, 2],
          [Math.floor(ctx.clock.now / HOUR) * HOUR, 1],
        ]);
      },
      TEST_TIMEOUT,
    );

    it(
      'ranks tools by calls, recency, failure rate and p95 latency, with provider, minCalls and limit',
      async () => {
        const t = ctx.clock.now;
        await ctx.store().recordCalls([
          ...calls('busy', 'local:busy_tool', 10, { latencyMs: 5, timestampUnixMs: t - 3000 }),
          ...calls('flaky', 'local:flaky_tool', 4, { status: 'tool_error', latencyMs: 50, timestampUnixMs: t - 2000 }),
          called('flaky-ok', 'local:flaky_tool', { latencyMs: 50, timestampUnixMs: t - 2000 }),
          ...calls('slow', 'mcp:slow_tool', 3, { latencyMs: 900, timestampUnixMs: t - 1000 }),
          called('once', 'mcp:once_tool', { status: 'timeout', timestampUnixMs: t }),
        ]);
        const ids = async (options: Parameters<ReturnType<typeof ctx.store>['listToolStats']>[0]) => (await ctx.store().listToolStats(options)).map((s) => s.toolId);
        expect(await ids(undefined)).toEqual(['local:busy_tool', 'local:flaky_tool', 'mcp:slow_tool', 'mcp:once_tool']);
        expect(await ids({ sortBy: 'recency' })).toEqual(['mcp:once_tool', 'mcp:slow_tool', 'local:flaky_tool', 'local:busy_tool']);
        expect(await ids({ sortBy: 'failure_rate' })).toEqual(['mcp:once_tool', 'local:flaky_tool', 'local:busy_tool', 'mcp:slow_tool']);
        expect(await ids({ sortBy: 'failure_rate', minCalls: 2 })).toEqual(['local:flaky_tool', 'local:busy_tool', 'mcp:slow_tool']);
        expect(await ids({ sortBy: 'latency', limit: 2 })).toEqual(['mcp:slow_tool', 'local:flaky_tool']);
        expect(await ids({ provider: 'mcp' })).toEqual(['mcp:slow_tool', 'mcp:once_tool']);
        const [top] = await ctx.store().listToolStats({ limit: 1 });
        expect(top).toMatchObject({ toolId: 'local:busy_tool', calls: 10, recentCalls: 10, successRate: 1, p50Ms: 5, lastCallUnixMs: t - 3000 });
        expect(top).not.toHaveProperty('hourly');
        await expectToolHubError(ctx.store().listToolStats({ sortBy: 'popularity' as 'calls' }), 'invalid_argument', 'sortBy');
        await expectToolHubError(ctx.store().listToolStats({ limit: 0 }), 'invalid_argument', 'limit');
      },
      TEST_TIMEOUT,
    );
  });
}
