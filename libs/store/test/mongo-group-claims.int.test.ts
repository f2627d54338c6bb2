/**
 * Claim groups on a real server (MONGO_URL, else a private FerretDB 1.24 on PostgreSQL): events
 * stamped with a claim group are claimed with one chain of links per group (stats/group-claims.ts)
 * and counted exactly once however the group arrives — whole, split, redelivered, by two stores at
 * once, or left half-done by a crash.
 */
import type { ToolCalled } from '@toolhub/contracts';
import type { Db } from 'mongodb';

import type { RegistryStore } from '../src/index';
import type { MongoRegistryStoreOptions } from '../src/mongo';
import { CLAIM_SLOT_MS } from '../src/stats/slotted-claims';
import { FakeClock, called } from '../src/testing';
import { scratchDatabase } from './support/scratch-database';

const HOUR = 3_600_000;
const scratch = scratchDatabase('toolhub_groups_test');
let db: Db;

beforeEach(() => {
  db = scratch.db();
});

function open(clock: FakeClock, extra: Partial<MongoRegistryStoreOptions> = {}): Promise<RegistryStore> {
  return scratch.open({ clock: clock.read, dedupWindowMs: HOUR, ...extra });
}

/** `count` events of group `group` (time `at`), ids `<group>/<i>`, over two tools. */
function grouped(group: string, count: number, at: number): ToolCalled[] {
  return Array.from({ length: count }, (_, i) => called(`${group}/${i}`, `local:tool_${i % 2}`, { timestampUnixMs: at, claimGroup: group }));
}

/** Documents in the collections whose names start with `prefix`. */
async function docsIn(prefix: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for (const c of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (c.name.startsWith(prefix)) out.push(...(await db.collection(c.name).find({}).toArray()));
  }
  return out;
}

async function totalCalls(store: RegistryStore): Promise<number> {
  return (await store.listToolStats({ sortBy: 'calls', limit: 100 })).reduce((n, s) => n + s.calls, 0);
}

describe('MongoRegistryStore claim groups', () => {
  it('claims a whole group with one document, and refuses its redelivery', async () => {
    const clock = new FakeClock();
    const store = await open(clock);
    const g1 = `${clock.now}-d1-1`;
    const g2 = `${clock.now}-d1-2`;
    expect(await store.recordCalls([...grouped(g1, 16, clock.now), ...grouped(g2, 16, clock.now)])).toEqual({ recorded: 32, duplicates: 0, rejected: [] });
    const links = await docsIn('call_claims_g');
    expect(links.map((l) => l['_id']).sort()).toEqual([`${g1}#1`, `${g2}#1`]);
    expect(JSON.parse(links.find((l) => l['_id'] === `${g1}#1`)!['ids'] as string)).toHaveLength(16);
    expect(await docsIn('call_claims_s')).toEqual([]);
    expect(await store.recordCalls(grouped(g1, 16, clock.now))).toEqual({ recorded: 0, duplicates: 16, rejected: [] });
    expect(await totalCalls(store)).toBe(32);
  }, 60_000);

  it('counts a group split over deliveries once: parts, a redelivery of the whole, and an overlap', async () => {
    const clock = new FakeClock();
    const store = await open(clock);
    const g = `${clock.now}-d1-7`;
    const all = grouped(g, 12, clock.now);
    expect((await store.recordCalls(all.slice(0, 5))).recorded).toBe(5);
    expect((await store.recordCalls(all.slice(3, 9))).recorded).toBe(4);
    expect(await store.recordCalls(all)).toEqual({ recorded: 3, duplicates: 9, rejected: [] });
    expect(await store.recordCalls(all)).toEqual({ recorded: 0, duplicates: 12, rejected: [] });
    expect(await totalCalls(store)).toBe(12);
    // One link per delivery that brought events not listed before.
    expect((await docsIn('call_claims_g')).map((l) => l['_id']).sort()).toEqual([`${g}#1`, `${g}#2`, `${g}#3`]);
  }, 60_000);

  it('two stores recording overlapping parts of the same groups at once own each event exactly once', async () => {
    const clock = new FakeClock();
    const [a, b] = [await open(clock), await open(clock)];
    // Groups over three claim slots that do not exist yet, so both stores create them at once.
    const all = [0, 1, 2].flatMap((s) => grouped(`${clock.now - s * CLAIM_SLOT_MS}-d2-${s}`, 40, clock.now));
    const slices = [all.slice(0, 80), all.slice(40, 120), all.slice(20, 100), all, all.slice(90, 120)];
    const results = await Promise.all(slices.map((s, i) => (i % 2 === 0 ? a : b).recordCalls(s)));
    expect(results.reduce((n, r) => n + r.recorded, 0)).toBe(120);
    expect(results.reduce((n, r) => n + r.duplicates, 0)).toBe(slices.reduce((n, s) => n + s.length, 0) - 120);
    expect(await totalCalls(a)).toBe(120);
    // Every event is listed by exactly one first link of its group.
    const listed = new Map<string, number>();
    for (const link of await docsIn('call_claims_g')) for (const id of JSON.parse(link['ids'] as string) as string[]) listed.set(id, (listed.get(id) ?? 0) + 1);
    expect(listed.size).toBe(120);
    expect([...listed.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);

  it('finishes a grouped batch left by a crash after claiming exactly once, and the version before cannot read it', async () => {
    const clock = new FakeClock();
    const g = `${clock.now}-d3-1`;
    const crashing = await open(clock, { failAt: 'claims-written' });
    await expect(crashing.recordCalls(grouped(g, 10, clock.now))).rejects.toThrow(/Injected failure at claims-written/);
    // As stored: the records in `grouped` (deflated), no `events` (what the version before reads, and fails on).
    const [batch] = await db.collection('call_batches').find({}).toArray();
    expect(batch?.['grouped']).toBeDefined();
    expect(batch).not.toHaveProperty('events');

    const next = await open(clock);
    expect(await totalCalls(next)).toBe(10);
    expect(await db.collection('call_batches').countDocuments()).toBe(0);
    expect(await next.recordCalls(grouped(g, 10, clock.now))).toEqual({ recorded: 0, duplicates: 10, rejected: [] });
    expect(await totalCalls(next)).toBe(10);
  }, 60_000);

  it('claims an event with a malformed group by its id, like an event without one', async () => {
    const clock = new FakeClock();
    const store = await open(clock);
    const events = [called('m-1', 'local:tool_0', { timestampUnixMs: clock.now, claimGroup: 'no-time' }), called('m-2', 'local:tool_0', { timestampUnixMs: clock.now, claimGroup: `${clock.now}-bad#1` })];
    expect(await store.recordCalls(events)).toEqual({ recorded: 2, duplicates: 0, rejected: [] });
    expect((await docsIn('call_claims_s')).map((c) => c['_id']).sort()).toEqual(['m-1', 'm-2']);
    expect(await docsIn('call_claims_g')).toEqual([]);
    expect(await store.recordCalls(events)).toMatchObject({ recorded: 0, duplicates: 2 });
  }, 60_000);

  it('drops a group slot once its end is a window old', async () => {
    const clock = new FakeClock();
    const store = await open(clock);
    const g = `${clock.now}-d4-1`;
    await store.recordCalls(grouped(g, 4, clock.now));
    expect(await docsIn('call_claims_g')).toHaveLength(1);
    clock.advance(HOUR + 2 * CLAIM_SLOT_MS);
    const later = `${clock.now}-d4-2`;
    expect((await store.recordCalls(grouped(later, 2, clock.now))).recorded).toBe(2);
    expect((await docsIn('call_claims_g')).map((l) => l['_id'])).toEqual([`${later}#1`]);
  }, 60_000);
});
