/**
 * CallRecorder details the contract suite cannot reach through a real backend: what happens when
 * one of the statistics writes of a batch, which run concurrently, fails; how many writes the
 * statistics written later (statsFlushMs) take, and what a failed timed write leaves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { DocCollection } from '../src/backend';
import { NedbBackend } from '../src/embedded/nedb-backend';
import { StoreError } from '../src/errors';
import { withStoreDefaults } from '../src/options';
import { FlatClaims } from '../src/stats/claims';
import { LatencyDigest } from '../src/stats/digest';
import type { StatsDoc } from '../src/stats/fold';
import { type BatchDoc, CallRecorder, type ClaimDoc, MAX_WAITING_BYTES } from '../src/stats/recorder';
import { FakeClock, calls } from '../src/testing';
import { waitFor } from '@toolhub/test-harness';

let dir: string;
let backend: NedbBackend;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolhub-recorder-'));
  backend = await NedbBackend.open(dir, 60_000);
});

afterEach(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

/** `raw` whose writes each take a timer tick, counting those in flight; the first write of `failing` throws. */
function observedStats(raw: DocCollection<StatsDoc>, failing: string) {
  const seen = { inFlight: 0, maxInFlight: 0, failed: false };
  const write = async (doc: StatsDoc, op: () => Promise<boolean>): Promise<boolean> => {
    seen.inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (doc._id === failing && !seen.failed) {
        seen.failed = true;
        throw new StoreError('backend', `injected failure writing ${doc._id}`);
      }
      return await op();
    } finally {
      seen.inFlight--;
    }
  };
  return { stats: withWriteHook(raw, write), seen };
}

/** `raw` whose statistics writes (insert, replace) go through `write`. */
function withWriteHook(raw: DocCollection<StatsDoc>, write: (doc: StatsDoc, op: () => Promise<boolean>) => Promise<boolean>): DocCollection<StatsDoc> {
  return {
    get: (id) => raw.get(id),
    find: (filter, options) => raw.find(filter, options),
    insert: (doc) => write(doc, () => raw.insert(doc)),
    insertNew: (docs) => raw.insertNew(docs),
    replace: (filter, doc) => write(doc, () => raw.replace(filter, doc)),
    delete: (filter) => raw.delete(filter),
  };
}

describe('CallRecorder', () => {
  it('writes the statistics of a batch concurrently; when one write fails it rejects only after the others settled, and the redelivery counts every event once', async () => {
    const clock = new FakeClock();
    const tools = Array.from({ length: 12 }, (_, i) => `local:tool_${i}`);
    const { stats, seen } = observedStats(backend.collection<StatsDoc>('tool_stats'), 'local:tool_7');
    const recorder = new CallRecorder(stats, backend.collection<BatchDoc>('call_batches'), new FlatClaims(backend.collection<ClaimDoc>('call_claims')), withStoreDefaults({ clock: clock.read }));
    const events = tools.flatMap((t, i) => calls(`e${i}`, t, i + 1));

    let inFlightAtRejection = -1;
    await expect(
      recorder.record(events).finally(() => {
        inFlightAtRejection = seen.inFlight;
      }),
    ).rejects.toThrow(/injected failure/);
    expect(seen.maxInFlight).toBeGreaterThan(1);
    // Nothing of the failed call still writes once its caller hears of the failure.
    expect(inFlightAtRejection).toBe(0);

    expect(await recorder.record(events)).toEqual({ recorded: 0, duplicates: events.length, rejected: [] });
    const counts = Object.fromEntries((await stats.find({})).map((d) => [d._id, d.calls]));
    expect(counts).toEqual(Object.fromEntries(tools.map((t, i) => [t, i + 1])));
  });

  it('counts a batch whose upkeep fails (pruning refused, as FerretDB refuses deleting > 65,535 claims) and reports the upkeep error instead of rejecting', async () => {
    const clock = new FakeClock();
    const raw = backend.collection<ClaimDoc>('call_claims');
    let pruneAttempts = 0;
    const claims: DocCollection<ClaimDoc> = {
      get: (id) => raw.get(id),
      find: (filter, options) => raw.find(filter, options),
      insert: (doc) => raw.insert(doc),
      insertNew: (docs) => raw.insertNew(docs),
      replace: (filter, doc) => raw.replace(filter, doc),
      delete: async () => {
        pruneAttempts++;
        throw new StoreError('backend', 'extended protocol limited to 65535 parameters');
      },
    };
    const stats = backend.collection<StatsDoc>('tool_stats');
    const recorder = new CallRecorder(stats, backend.collection<BatchDoc>('call_batches'), new FlatClaims(claims), withStoreDefaults({ clock: clock.read }));

    const first = calls('a', 'local:echo', 3);
    expect(await recorder.record(first)).toEqual({ recorded: 3, duplicates: 0, rejected: [], upkeepError: expect.stringContaining('65535') });
    expect(pruneAttempts).toBe(1);
    // The redelivery finds every event counted; the upkeep waits for its interval, so no error now.
    expect(await recorder.record(first)).toEqual({ recorded: 0, duplicates: 3, rejected: [] });
    expect((await stats.get('local:echo'))?.calls).toBe(3);
  });

  describe('the guard (batches applied to a tool)', () => {
    function recorderOn(options: { failAt?: 'claims-written' } = {}) {
      const clock = new FakeClock();
      const stats = backend.collection<StatsDoc>('tool_stats');
      const batches = backend.collection<BatchDoc>('call_batches');
      return { stats, batches, recorder: new CallRecorder(stats, batches, new FlatClaims(backend.collection<ClaimDoc>('call_claims')), withStoreDefaults({ clock: clock.read, ...options })) };
    }

    it('holds only batches still stored: a hot tool written by ten batches keeps one entry, not ten', async () => {
      const { stats, recorder } = recorderOn();
      for (let b = 0; b < 10; b++) await recorder.record(calls(`h${b}`, 'local:hot', 3));
      const doc = await stats.get('local:hot');
      expect(doc?.calls).toBe(30);
      expect(doc?.guard).toHaveLength(1);
    });

    it('does not apply twice a batch that a stalled writer finishes after another writer applied and deleted it and its guard entry is gone', async () => {
      // Writer 1 dies after claiming batch B; the stalled writer has read B by then.
      const crashing = recorderOn({ failAt: 'claims-written' });
      await expect(crashing.recorder.record(calls('b', 'local:echo', 4))).rejects.toThrow(/Injected failure/);
      const [batchB] = await crashing.batches.find({});
      expect(batchB?.events).toHaveLength(4);
      // Another writer finishes B (start-up recovery), deletes it, and a later batch drops B's entry.
      const other = recorderOn();
      expect(await other.recorder.recover()).toBe(1);
      await other.recorder.record(calls('c', 'local:echo', 2));
      expect((await other.stats.get('local:echo'))?.guard.map((g) => g.b)).not.toContain(batchB!._id);
      // The stalled writer resumes with B as it read it: B is no longer stored, so nothing is applied.
      const stalled = recorderOn();
      await (stalled.recorder as unknown as { finish(batch: BatchDoc): Promise<void> }).finish(batchB!);
      expect((await other.stats.get('local:echo'))?.calls).toBe(6);
    });
  });

  describe('latency digests kept decoded between writes (DigestCache)', () => {
    /** The stored tool's latency digest holds exactly the calls of `latencies`, and its percentiles are theirs. */
    async function expectLatencies(stats: DocCollection<StatsDoc>, toolId: string, latencies: readonly number[]): Promise<void> {
      const recorded = LatencyDigest.empty();
      for (const l of latencies) recorded.record(l);
      // Percentiles as a decoded histogram reports them (1000 → 1003: the bucket's highest value).
      const expected = LatencyDigest.decode(recorded.encode());
      const doc = await stats.get(toolId);
      expect(doc?.calls).toBe(latencies.length);
      expect(LatencyDigest.decode(doc?.latency).count).toBe(latencies.length);
      expect([doc?.p50Ms, doc?.p95Ms, doc?.p99Ms]).toEqual([expected.percentile(50), expected.percentile(95), expected.percentile(99)]);
    }

    it('keeps the percentiles exact when another writer wrote the tool in between and when a write fails after folding', async () => {
      const raw = backend.collection<StatsDoc>('tool_stats');
      let failNext = false;
      const stats = withWriteHook(raw, (doc, op) => {
        if (!failNext) return op();
        failNext = false;
        return Promise.reject(new StoreError('backend', `injected failure writing ${doc._id}`));
      });
      const recorderOver = (collection: DocCollection<StatsDoc>) =>
        new CallRecorder(collection, backend.collection<BatchDoc>('call_batches'), new FlatClaims(backend.collection<ClaimDoc>('call_claims')), withStoreDefaults({ clock: new FakeClock().read }));
      const first = recorderOver(stats);
      const second = recorderOver(raw);

      await first.record(calls('a', 'local:lat', 3, { latencyMs: 10 }));
      // Another process writes the tool: the first recorder's kept document and digest are stale.
      await second.record(calls('b', 'local:lat', 3, { latencyMs: 1000 }));
      await first.record(calls('c', 'local:lat', 3, { latencyMs: 20 }));
      await expectLatencies(raw, 'local:lat', [10, 10, 10, 1000, 1000, 1000, 20, 20, 20]);

      // A write that fails after the latencies were recorded into the kept digest, then the redelivery.
      failNext = true;
      const late = calls('d', 'local:lat', 6, { latencyMs: 5000 });
      await expect(first.record(late)).rejects.toThrow(/injected failure/);
      await first.record(late);
      await expectLatencies(raw, 'local:lat', [10, 10, 10, 1000, 1000, 1000, 20, 20, 20, ...late.map(() => 5000)]);
    });
  });

  describe('statistics written later (statsFlushMs)', () => {
    /** `raw` counting each tool's statistics writes; writes fail while `failing.on`. */
    function countedStats(raw: DocCollection<StatsDoc>) {
      const writes = new Map<string, number>();
      const failing = { on: false };
      const write = (doc: StatsDoc, op: () => Promise<boolean>): Promise<boolean> => {
        if (failing.on) return Promise.reject(new StoreError('backend', 'injected: the database is unreachable'));
        writes.set(doc._id, (writes.get(doc._id) ?? 0) + 1);
        return op();
      };
      return { stats: withWriteHook(raw, write), writes, failing };
    }

    /** A recorder with `statsFlushMs` over counted statistics writes (see {@link countedStats}). */
    function deferredRecorder(statsFlushMs: number, backendBytesPerEvent = 0) {
      const counted = countedStats(backend.collection<StatsDoc>('tool_stats'));
      const batches = backend.collection<BatchDoc>('call_batches');
      const clock = new FakeClock();
      const claims = new FlatClaims(backend.collection<ClaimDoc>('call_claims'));
      const recorder = new CallRecorder(counted.stats, batches, claims, withStoreDefaults({ clock: clock.read, statsFlushMs }), backendBytesPerEvent);
      return { ...counted, batches, clock, recorder };
    }

    async function until(what: string, done: () => Promise<boolean>): Promise<void> {
      await waitFor(done, { timeoutMs: 20_000, intervalMs: 20, message: what });
    }

    it('returns once the batches are claimed, then writes each tool once for all the batches waiting', async () => {
      const { stats, writes, batches, recorder } = deferredRecorder(60_000);
      for (let b = 0; b < 5; b++) {
        expect(await recorder.record([...calls(`a${b}`, 'local:echo', 3), ...calls(`b${b}`, 'local:sum', 1)])).toMatchObject({ recorded: 4 });
      }
      expect(writes.size).toBe(0);
      expect(await batches.find({})).toHaveLength(5);
      await recorder.flush();
      // One write per tool for the five batches (immediate writing takes one per tool per batch: 10).
      expect(Object.fromEntries(writes)).toEqual({ 'local:echo': 1, 'local:sum': 1 });
      expect((await stats.get('local:echo'))?.calls).toBe(15);
      expect((await stats.get('local:sum'))?.calls).toBe(5);
      expect((await stats.get('local:echo'))?.guard).toHaveLength(5);
      expect(await batches.find({})).toEqual([]);
      await recorder.stop();
    });

    it('writes what waits before returning once its estimated memory passes MAX_WAITING_BYTES', async () => {
      // A backend said to hold an eighth of the bound per waiting event: the third batch of three
      // events passes it (the first two stay under).
      const { stats, writes, batches, recorder } = deferredRecorder(60_000, MAX_WAITING_BYTES / 8);
      await recorder.record(calls('a', 'local:echo', 3));
      await recorder.record(calls('b', 'local:sum', 3));
      expect(writes.size).toBe(0);
      expect(await batches.find({})).toHaveLength(2);
      await recorder.record(calls('c', 'local:echo', 3));
      expect(Object.fromEntries(writes)).toEqual({ 'local:echo': 1, 'local:sum': 1 });
      expect(await batches.find({})).toEqual([]);
      expect((await stats.get('local:echo'))?.calls).toBe(6);
      await recorder.stop();
    });

    it("does not sweep its own batches while they wait for the write (the default recoverAfterMs outlasts the wait)", async () => {
      const { writes, batches, clock, recorder } = deferredRecorder(60_000);
      await recorder.record(calls('a', 'local:echo', 3));
      // Past one flush interval — as when a flush was late — the next batch's housekeeping sweep must
      // leave the first batch to the shared write instead of writing its tool on its own.
      clock.advance(61_000);
      await recorder.record(calls('b', 'local:echo', 2));
      expect(writes.size).toBe(0);
      expect(await batches.find({})).toHaveLength(2);
      await recorder.flush();
      expect(Object.fromEntries(writes)).toEqual({ 'local:echo': 1 });
      await recorder.stop();
    });

    it('writes on its timer without a read', async () => {
      const { stats, batches, recorder } = deferredRecorder(50);
      await recorder.record(calls('t', 'local:echo', 4));
      await until('the timed write removed the batch', async () => (await batches.find({})).length === 0);
      expect((await stats.get('local:echo'))?.calls).toBe(4);
      await recorder.stop();
    });

    it('keeps the statistics of a failed timed write waiting, reports it with the next batch, and writes them all once the database answers', async () => {
      const { stats, failing, batches, recorder } = deferredRecorder(60_000);
      await recorder.record(calls('a', 'local:echo', 3));
      failing.on = true;
      await expect(recorder.flush()).rejects.toThrow(/unreachable/);
      expect(await recorder.record(calls('b', 'local:echo', 2))).toMatchObject({ recorded: 2 });
      failing.on = false;
      await recorder.flush();
      expect((await stats.get('local:echo'))?.calls).toBe(5);
      expect(await batches.find({})).toEqual([]);
      expect(await recorder.record(calls('a', 'local:echo', 3))).toMatchObject({ recorded: 0, duplicates: 3 });
      await recorder.stop();
    });

    it('reports a failed timed write as the upkeep error of the next batch and retries it on its timer', async () => {
      const { stats, failing, batches, recorder } = deferredRecorder(50);
      failing.on = true;
      await recorder.record(calls('a', 'local:echo', 3));
      let reported: string | undefined;
      await until('a batch reports the failed write', async () => {
        reported = (await recorder.record([])).upkeepError;
        return reported !== undefined;
      });
      expect(reported).toMatch(/statistics of counted calls not written yet \(retried in 50 ms\): injected: the database is unreachable/);
      failing.on = false;
      await until('the retry wrote them', async () => (await batches.find({})).length === 0);
      expect((await stats.get('local:echo'))?.calls).toBe(3);
      await recorder.stop();
    });
  });
});
