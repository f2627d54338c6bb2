/** The embedded store's `claims: 'memory'` (one-process mode): bounded by the de-dup window, nothing on disk. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { MemoryClaims } from '../src/embedded/memory-claims';
import { isStoreError } from '../src/index';
import { EmbeddedRegistryStore } from '../src/embedded';
import { FakeClock, called, calls } from '../src/testing';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolhub-memory-claims-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("EmbeddedRegistryStore with claims: 'memory'", () => {
  it('refuses a redelivery within dedupWindowMs and forgets the event ids after it, so claims stay bounded', async () => {
    const clock = new FakeClock();
    const store = await EmbeddedRegistryStore.open({ dir, clock: clock.read, claims: 'memory', dedupWindowMs: 60_000 });
    try {
      expect(await store.recordCalls(calls('a', 'local:file_read', 3))).toMatchObject({ recorded: 3 });
      clock.advance(30_000);
      expect(await store.recordCalls(calls('a', 'local:file_read', 3))).toMatchObject({ recorded: 0, duplicates: 3 });
      // Past the window (and the prune interval, a quarter of it), the next write prunes.
      clock.advance(61_000);
      await store.recordCalls([called('later', 'mcp:web_fetch')]);
      expect(await store.recordCalls(calls('a', 'local:file_read', 3))).toMatchObject({ recorded: 3, duplicates: 0 });
      expect((await store.getToolStats('local:file_read'))?.calls).toBe(6);
    } finally {
      await store.close();
    }
  });

  it('writes no claims file: the store directory holds the catalog and statistics only', async () => {
    const store = await EmbeddedRegistryStore.open({ dir, claims: 'memory' });
    await store.recordCalls(calls('d', 'local:file_read', 50));
    await store.close();
    const files = await readdir(dir);
    expect(files).toContain('tool_stats.db');
    expect(files).not.toContain('call_claims.db');
  });

  it('rejects an unknown claims setting with invalid_options', async () => {
    const err = await EmbeddedRegistryStore.open({ dir, claims: 'disk' as 'memory' }).catch((e: unknown) => e);
    expect(isStoreError(err, 'invalid_options')).toBe(true);
  });
});

describe('MemoryClaims', () => {
  it('inserts only free ids, returns the taken ones, and prunes by age exactly', async () => {
    const claims = new MemoryClaims();
    expect(await claims.insertNew([{ _id: 'e1', b: 'B1', at: 100 }, { _id: 'e2', b: 'B1', at: 100 }])).toEqual([]);
    expect(await claims.insertNew([{ _id: 'e2', b: 'B2', at: 300 }, { _id: 'e3', b: 'B2', at: 300 }])).toEqual(['e2']);
    // A later batch stored with an earlier time (concurrent writers) is still pruned.
    await claims.insertNew([{ _id: 'e4', b: 'B3', at: 50 }]);
    expect(await claims.find({ _id: { $in: ['e2', 'e3', 'missing'] } }, { include: ['b'] })).toEqual([
      { _id: 'e2', b: 'B1', at: 100 },
      { _id: 'e3', b: 'B2', at: 300 },
    ]);
    expect(await claims.delete({ at: { $lt: 200 } })).toBe(3);
    expect(claims.size).toBe(1);
    expect(await claims.get('e3')).toEqual({ _id: 'e3', b: 'B2', at: 300 });
  });

  it('refuses a query it does not implement instead of answering wrongly', async () => {
    const claims = new MemoryClaims();
    await expect(claims.find({ b: 'B1' })).rejects.toMatchObject({ name: 'StoreError', code: 'backend' });
    await expect(claims.delete({ at: { $gte: 1 } })).rejects.toMatchObject({ name: 'StoreError', code: 'backend' });
  });

  it('refuses a batch holding a claim without `at` (it could never be pruned), inserting none of it', async () => {
    const claims = new MemoryClaims();
    await expect(claims.insertNew([{ _id: 'e1', b: 'B1', at: 100 }, { _id: 'e2', b: 'B1' }])).rejects.toMatchObject({
      name: 'StoreError',
      code: 'backend',
      message: expect.stringContaining('without `at`'),
    });
    expect(claims.size).toBe(0);
  });
});
