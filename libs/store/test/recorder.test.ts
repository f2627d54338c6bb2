/**
 * CallRecorder details the contract suite cannot reach through a real backend: what happens when
 * one of the statistics writes of a batch, which run concurrently, fails.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { DocCollection } from '../src/backend';
import { NedbBackend } from '../src/embedded/nedb-backend';
import { StoreError } from '../src/errors';
import { withStoreDefaults } from '../src/options';
import { FlatClaims } from '../src/stats/claims';
import type { StatsDoc } from '../src/stats/fold';
import { type BatchDoc, CallRecorder, type ClaimDoc } from '../src/stats/recorder';
import { FakeClock, calls } from '../src/testing';

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
  const stats: DocCollection<StatsDoc> = {
    get: (id) => raw.get(id),
    find: (filter, options) => raw.find(filter, options),
    insert: (doc) => write(doc, () => raw.insert(doc)),
    insertNew: (docs) => raw.insertNew(docs),
    replace: (filter, doc) => write(doc, () => raw.replace(filter, doc)),
    delete: (filter) => raw.delete(filter),
  };
  return { stats, seen };
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
});
