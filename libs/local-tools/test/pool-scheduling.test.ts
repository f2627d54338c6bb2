/**
 * How the worker pool shares its workers: large calls cannot take the workers kept for small
 * calls, and a worker that is ended or crashes is replaced at once, before the next call.
 * Assertions are on order and on the pool's own counters, never on milliseconds, so they hold on a
 * busy machine.
 */
import { join } from 'node:path';

import type { RunContext, ToolResult } from '@toolhub/adapter-sdk';
import type { ToolHubError } from '@toolhub/contracts';

import { LocalToolsError, ToolWorkerPool, type ToolWorkerPoolStats } from '../src';
import { waitFor } from '@toolhub/test-harness';

const SPIN = join(__dirname, 'fixtures', 'spin-worker.js');
const BROKEN = join(__dirname, 'fixtures', 'broken-worker.js');
/** Arguments past the 1 KiB threshold the tests use: a large call. */
const LARGE = { pad: 'x'.repeat(2048) };

function ctx(timeoutMs: number, signal = new AbortController().signal): RunContext {
  return { signal, deadline: Date.now() + timeoutMs, caller: '', idempotencyKey: '' };
}

/** Waits (polling, bounded only by the test's timeout) until the pool's counters match `expected`. */
async function until(pool: ToolWorkerPool, expected: Partial<ToolWorkerPoolStats>): Promise<void> {
  const matches = (): boolean => Object.entries(expected).every(([k, v]) => pool.stats()[k as keyof ToolWorkerPoolStats] === v);
  await waitFor(matches, { timeoutMs: 20_000, intervalMs: 5, message: `pool stats ${JSON.stringify(expected)} (now ${JSON.stringify(pool.stats())})` });
}

/** A call whose outcome can be checked while it is still running. */
function track(running: Promise<ToolResult>): { done: () => boolean; outcome: Promise<unknown> } {
  let done = false;
  const outcome = running.then(
    (r) => r,
    (e: unknown) => e,
  );
  void outcome.then(() => (done = true));
  return { done: () => done, outcome };
}

describe('ToolWorkerPool scheduling', () => {
  const pools: ToolWorkerPool[] = [];
  const pool = (options: Parameters<typeof ToolWorkerPool.create>[0] = {}) => {
    const p = ToolWorkerPool.create(options);
    pools.push(p);
    return p;
  };
  afterAll(async () => Promise.all(pools.map((p) => p.close())));

  it('runs a small call at once while large calls hold every worker they may use', async () => {
    const p = pool({ size: 2, script: SPIN, largeInputBytes: 1024 });
    p.warm();
    await until(p, { ready: 2 });
    const stop = new AbortController();
    const large = [track(p.run('block', LARGE, ctx(60_000, stop.signal))), track(p.run('block', LARGE, ctx(60_000, stop.signal)))];
    // One large call runs, the second waits: the other worker is kept for small calls.
    expect(p.stats()).toMatchObject({ busy: 1, busyLarge: 1, queued: 1, queuedLarge: 1 });

    const small = await p.run('echo', { text: 'short' }, ctx(60_000));

    expect(small.content[0]).toEqual({ text: '{"text":"short"}' });
    expect(large.map((c) => c.done())).toEqual([false, false]);
    expect(p.stats()).toMatchObject({ busyLarge: 1, queuedLarge: 1 });
    stop.abort();
    for (const c of large) expect(((await c.outcome) as ToolHubError).code).toBe('timeout');
  });

  it('lets small calls use every worker, and a large call then waits for a second one to be free', async () => {
    const p = pool({ size: 2, script: SPIN, largeInputBytes: 1024 });
    p.warm();
    await until(p, { ready: 2 });
    const first = new AbortController();
    const smallBlockers = [track(p.run('block', {}, ctx(60_000, first.signal))), track(p.run('block', {}, ctx(60_000)))];
    expect(p.stats()).toMatchObject({ busy: 2, busyLarge: 0 });
    const large = track(p.run('echo', LARGE, ctx(60_000)));
    expect(p.stats()).toMatchObject({ queuedLarge: 1 });

    // Freeing one worker (ended, then replaced) leaves a single started worker besides the busy
    // one; the large call may take it only because the other is free of large calls.
    first.abort();
    expect(((await smallBlockers[0]?.outcome) as ToolHubError).code).toBe('timeout');
    expect(((await large.outcome) as ToolResult).content).toHaveLength(1);
    expect(smallBlockers[1]?.done()).toBe(false);
  });

  it('with reservedForSmallCalls 0, large calls may take every worker and a small call queues behind them', async () => {
    const p = pool({ size: 2, script: SPIN, largeInputBytes: 1024, reservedForSmallCalls: 0 });
    p.warm();
    await until(p, { ready: 2 });
    const stop = new AbortController();
    const large = [track(p.run('block', LARGE, ctx(60_000, stop.signal))), track(p.run('block', LARGE, ctx(60_000, stop.signal)))];
    const small = track(p.run('echo', {}, ctx(60_000)));
    expect(p.stats()).toMatchObject({ busyLarge: 2, queued: 1, queuedLarge: 0 });
    expect(small.done()).toBe(false);
    stop.abort();
    expect(((await small.outcome) as ToolResult).content).toHaveLength(1);
    for (const c of large) expect(((await c.outcome) as ToolHubError).code).toBe('timeout');
  });

  it('starts the replacement of a worker ended at a deadline at once, before the next call arrives', async () => {
    const p = pool({ size: 1, script: SPIN });
    p.warm();
    await until(p, { ready: 1 });
    const err = (await p.run('spin', {}, ctx(300)).catch((e: unknown) => e)) as ToolHubError;
    expect(err.code).toBe('timeout');
    // Nothing has called since: the replacement was started when the worker was ended ...
    expect(p.stats()).toMatchObject({ workers: 1, started: 2, replaced: 1, busy: 0 });
    // ... and becomes ready without any call waiting on it.
    await until(p, { ready: 1, ending: 0 });
    expect(p.stats()).toMatchObject({ workers: 1, started: 2, queued: 0 });
    expect((await p.run('echo', {}, ctx(60_000))).content).toHaveLength(1);
    expect(p.stats().started).toBe(2);
  });

  it('replaces a crashed worker in the background too', async () => {
    const p = pool({ size: 1, script: SPIN });
    p.warm();
    await until(p, { ready: 1 });
    const err = (await p.run('crash', {}, ctx(60_000)).catch((e: unknown) => e)) as ToolHubError;
    expect(err.code).toBe('internal');
    expect(p.stats()).toMatchObject({ workers: 1, started: 2, replaced: 1 });
    await until(p, { ready: 1 });
  });

  it('does not restart a worker that fails while starting until a call needs one, and that call gets the error', async () => {
    const p = pool({ size: 1, script: BROKEN });
    const first = (await p.run('echo', {}, ctx(60_000)).catch((e: unknown) => e)) as ToolHubError;
    expect(first.code).toBe('internal');
    expect(first.message).toContain('broken worker fixture');
    await until(p, { ending: 0 });
    expect(p.stats()).toMatchObject({ workers: 0, started: 1 });
    const second = (await p.run('echo', {}, ctx(60_000)).catch((e: unknown) => e)) as ToolHubError;
    expect(second.code).toBe('internal');
    await until(p, { ending: 0 });
    expect(p.stats()).toMatchObject({ workers: 0, started: 2 });
  });

  it('rejects a reservation that would leave large calls no worker, naming both fields', () => {
    expect(() => ToolWorkerPool.create({ size: 2, reservedForSmallCalls: 2 })).toThrow(LocalToolsError);
    expect(() => ToolWorkerPool.create({ size: 2, reservedForSmallCalls: 2 })).toThrow(/reservedForSmallCalls \(2\) must be less than size \(2\)/);
    expect(ToolWorkerPool.create({ size: 1 }).stats().workers).toBe(0);
  });
});
