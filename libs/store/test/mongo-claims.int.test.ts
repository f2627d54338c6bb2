/**
 * MongoRegistryStore's claims (stats/slotted-claims.ts) on a real server (MONGO_URL, else a private
 * FerretDB 1.24 on PostgreSQL): pruning at a scale FerretDB refused before, claims of the previous
 * version honoured, events delivered late, two writers on one database.
 */
import type { Db } from 'mongodb';

import type { RegistryStore } from '../src/index';
import { packBatch } from '../src/stats/packing';
import { CLAIM_SLOT_MS, LEGACY_ROLLOUT_MS } from '../src/stats/slotted-claims';
import { FakeClock, called, calls } from '../src/testing';
import { scratchDatabase } from './support/scratch-database';

const HOUR = 3_600_000;
const scratch = scratchDatabase('toolhub_claims_test');
let db: Db;

beforeEach(() => {
  db = scratch.db();
});

function open(clock: FakeClock, dedupWindowMs = HOUR): Promise<RegistryStore> {
  return scratch.open({ clock: clock.read, dedupWindowMs });
}

/** Claim documents in every claims collection. */
async function claimCount(): Promise<number> {
  let n = 0;
  for (const c of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (c.name.startsWith('call_claims') && c.name !== 'call_claims_meta') n += await db.collection(c.name).countDocuments();
  }
  return n;
}

async function collectionNames(): Promise<string[]> {
  return (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
}

describe('MongoRegistryStore claims', () => {
  it('forgets more than 65,535 expired claims in one upkeep (FerretDB refuses deleting that many documents at once)', async () => {
    const clock = new FakeClock();
    const store = await open(clock);
    const total = 70_000;
    for (let i = 0; i < total; i += 5000) {
      // Timestamps over 40 minutes: several claim slots.
      const events = Array.from({ length: 5000 }, (_, j) => called(`p-${i + j}`, `local:tool_${j % 20}`, { timestampUnixMs: clock.now - ((i + j) % 40) * 60_000 }));
      expect(await store.recordCalls(events)).toMatchObject({ recorded: 5000 });
    }
    expect(await claimCount()).toBe(total);
    // Within the window a redelivery is refused.
    expect(await store.recordCalls([called('p-7', 'local:tool_7', { timestampUnixMs: clock.now - 7 * 60_000 })])).toMatchObject({ recorded: 0, duplicates: 1 });

    clock.advance(HOUR + 45 * 60_000);
    const result = await store.recordCalls([called('after', 'local:tool_0', { timestampUnixMs: clock.now })]);
    expect(result).toEqual({ recorded: 1, duplicates: 0, rejected: [] });
    expect(await claimCount()).toBe(1);
    expect((await collectionNames()).filter((n) => n.startsWith('call_claims_s'))).toHaveLength(1);
    const sum = (await store.listToolStats({ limit: 100 })).reduce((n, s) => n + s.calls, 0);
    expect(sum).toBe(total + 1);
  }, 180_000);

  it('forgets expired claims of events without a timestamp by generation, and refuses a redelivery across a generation boundary within the window', async () => {
    const clock = new FakeClock(); // 12:30; generations of the 1 h window start on the hour
    const store = await open(clock);
    const total = 70_000;
    for (let i = 0; i < total; i += 5000) {
      expect(await store.recordCalls(Array.from({ length: 5000 }, (_, j) => called(`u-${i + j}`, `local:tool_${j % 20}`)))).toMatchObject({ recorded: 5000 });
    }
    // 40 min later, in the next generation: still refused, in a batch of another composition.
    clock.advance(40 * 60_000);
    expect(await store.recordCalls([called('u-new', 'local:tool_0'), called('u-3', 'local:tool_3'), called('u-69999', 'local:tool_19')])).toEqual({ recorded: 1, duplicates: 2, rejected: [] });
    // Two windows on, every earlier generation is dropped, far above 65,535 claims.
    clock.advance(2 * HOUR);
    const result = await store.recordCalls([called('u-later', 'local:tool_0')]);
    expect(result.upkeepError).toBeUndefined();
    expect(await claimCount()).toBe(2); // u-later in the previous and the current generation
    const sum = (await store.listToolStats({ limit: 100 })).reduce((n, st) => n + st.calls, 0);
    expect(sum).toBe(total + 2);
  }, 180_000);

  it('honours claims stored by the previous version (one collection) until they age out, then drops that collection', async () => {
    const clock = new FakeClock();
    const t0 = clock.now;
    // As the version before left them: claims by a finished batch, one timestamped event and one without.
    await db.collection('call_claims').insertMany([
      { _id: 'old-timed', b: 'old-batch', at: t0 - 60_000 } as never,
      { _id: 'old-untimed', b: 'old-batch', at: t0 - 60_000 } as never,
    ]);
    const store = await open(clock);
    const timed = called('old-timed', 'local:file_read', { timestampUnixMs: t0 - 90_000 });
    const untimed = called('old-untimed', 'local:file_read');
    expect(await store.recordCalls([timed, untimed, called('new-1', 'local:file_read', { timestampUnixMs: t0 })])).toEqual({ recorded: 1, duplicates: 2, rejected: [] });
    expect((await store.getToolStats('local:file_read'))?.calls).toBe(1);

    // The old claims are gone (as when they age out): the timestamped event's claim, moved to its
    // slot naming the old owner, still refuses it in a batch of another composition.
    await db.collection('call_claims').deleteMany({});
    expect(await store.recordCalls([called('new-2', 'mcp:web_fetch', { timestampUnixMs: t0 }), timed])).toEqual({ recorded: 1, duplicates: 1, rejected: [] });
    expect((await store.getToolStats('local:file_read'))?.calls).toBe(1);

    // A window (plus the roll-out allowance) after the upgrade the old collection is dropped.
    expect(await collectionNames()).toContain('call_claims');
    clock.advance(HOUR + LEGACY_ROLLOUT_MS + 60_000);
    await store.recordCalls([called('later', 'mcp:web_fetch', { timestampUnixMs: clock.now })]);
    expect(await collectionNames()).not.toContain('call_claims');
  }, 60_000);

  it('finishes a batch the previous version left behind (crashed after claiming) exactly once at start-up, and refuses its redelivery', async () => {
    const clock = new FakeClock();
    const t0 = clock.now;
    // As the version before left it: the batch (records packed without the untimed mark) and its
    // claims in `call_claims`; one event was claimed earlier by another, finished batch.
    const records = [
      { id: 'ob-1', t: 'local:file_read', ok: true, c: '', l: 5, ts: t0 - 3 * 60_000, fb: false },
      { id: 'ob-2', t: 'local:file_read', ok: false, c: 'tool_error', l: 7, ts: t0 - 2 * 60_000, fb: false }, // had no timestamp
      { id: 'ob-3', t: 'mcp:web_fetch', ok: true, c: '', l: 9, ts: t0 - 4 * 60_000, fb: false },
    ];
    await db.collection('call_batches').insertOne(packBatch({ _id: 'old-b', at: t0 - 2 * 60_000, events: records }) as never);
    await db.collection('call_claims').insertMany([
      { _id: 'ob-1', b: 'old-b', at: t0 - 2 * 60_000 },
      { _id: 'ob-2', b: 'old-b', at: t0 - 2 * 60_000 },
      { _id: 'ob-3', b: 'old-other', at: t0 - 5 * 60_000 },
    ] as never[]);

    const store = await open(clock);
    expect(await store.getToolStats('local:file_read')).toMatchObject({ calls: 2, failureCount: 1 });
    expect(await store.getToolStats('mcp:web_fetch')).toBeUndefined();
    expect(await db.collection('call_batches').countDocuments()).toBe(0);
    const redelivery = [
      called('ob-1', 'local:file_read', { timestampUnixMs: t0 - 3 * 60_000 }),
      called('ob-2', 'local:file_read', { status: 'tool_error' }),
      called('ob-3', 'mcp:web_fetch', { timestampUnixMs: t0 - 4 * 60_000 }),
      called('fresh', 'mcp:web_fetch', { timestampUnixMs: t0 }),
    ];
    expect(await store.recordCalls(redelivery)).toEqual({ recorded: 1, duplicates: 3, rejected: [] });
    expect((await store.getToolStats('local:file_read'))?.calls).toBe(2);
    expect((await store.getToolStats('mcp:web_fetch'))?.calls).toBe(1);
  }, 60_000);

  it('stores opened later honour the old claims until the same deadline, set once by the first store that saw them', async () => {
    const clock = new FakeClock();
    const ts = clock.now - 90_000;
    await db.collection('call_claims').insertMany([{ _id: 'old-1', b: 'old-batch', at: ts } as never, { _id: 'old-2', b: 'old-batch', at: ts } as never]);
    await open(clock);
    clock.advance(90 * 60_000);
    const later = await open(clock);
    expect(await later.recordCalls([called('old-1', 'local:file_read', { timestampUnixMs: ts })])).toMatchObject({ recorded: 0, duplicates: 1 });
    // Window (1 h) + roll-out allowance (1 h) after the FIRST opening: no longer honoured.
    clock.advance(40 * 60_000);
    expect(await later.recordCalls([called('old-2', 'local:file_read', { timestampUnixMs: ts })])).toMatchObject({ recorded: 1, duplicates: 0 });
    expect(await collectionNames()).not.toContain('call_claims');
  }, 60_000);

  it('writes claims in a slot without `at` (a slot is dropped whole) and keeps it in the legacy collection, which the version before prunes by it', async () => {
    const clock = new FakeClock();
    await db.collection('call_claims').insertOne({ _id: 'old-1', b: 'old-batch', at: clock.now - 60_000 } as never);
    const store = await open(clock);
    expect(await store.recordCalls([called('new-1', 'local:file_read', { timestampUnixMs: clock.now })])).toMatchObject({ recorded: 1 });
    const slot = `call_claims_s${Math.floor(clock.now / CLAIM_SLOT_MS)}`;
    const inSlot = await db.collection(slot).findOne({ _id: 'new-1' as never });
    expect(inSlot).toMatchObject({ b: expect.any(String) });
    expect(inSlot).not.toHaveProperty('at');
    expect(await db.collection('call_claims').findOne({ _id: 'new-1' as never })).toMatchObject({ b: inSlot!['b'], at: clock.now });
  }, 60_000);

  it('keeps the claims of events delivered late (timestamps older than the window) for a full window', async () => {
    const clock = new FakeClock();
    const store = await open(clock);
    const ts = clock.now - 2 * 24 * HOUR;
    const lateSlot = `call_claims_s${Math.floor(ts / CLAIM_SLOT_MS)}`;
    const late = calls('late', 'local:file_read', 3, { timestampUnixMs: ts });
    expect(await store.recordCalls(late)).toMatchObject({ recorded: 3 });
    // Past the next prunes (every 15 min with a 1 h window), still within an hour of the delivery.
    for (let i = 0; i < 3; i++) {
      clock.advance(16 * 60_000);
      await store.recordCalls([called(`tick-${i}`, 'mcp:web_fetch', { timestampUnixMs: clock.now })]);
    }
    expect(await store.recordCalls(late)).toMatchObject({ recorded: 0, duplicates: 3 });
    expect(await collectionNames()).toContain(lateSlot);
    // A window after the last delivery they are forgotten like any other.
    clock.advance(HOUR + 60_000);
    await store.recordCalls([called('tick-late', 'mcp:web_fetch', { timestampUnixMs: clock.now })]);
    expect(await collectionNames()).not.toContain(lateSlot);
    expect((await store.getToolStats('local:file_read'))?.calls).toBe(3);
  }, 60_000);

  it('two stores on one database, recording overlapping batches at once, own each event exactly once', async () => {
    const clock = new FakeClock();
    const [a, b] = [await open(clock), await open(clock)];
    // Spread over three claim slots that do not exist yet, so both create them at once.
    const all = Array.from({ length: 300 }, (_, i) => called(`two-${i}`, `local:tool_${i % 10}`, { timestampUnixMs: clock.now - (i % 3) * CLAIM_SLOT_MS }));
    const slices = [all.slice(0, 200), all.slice(100, 300), all.slice(50, 250), all];
    const results = await Promise.all(slices.map((s, i) => (i % 2 === 0 ? a : b).recordCalls(s)));
    expect(results.reduce((n, r) => n + r.recorded, 0)).toBe(300);
    expect(results.reduce((n, r) => n + r.duplicates, 0)).toBe(slices.reduce((n, s) => n + s.length, 0) - 300);
    expect(await claimCount()).toBe(300);
  }, 60_000);
});
