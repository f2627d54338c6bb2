/** The embedded store's kept append handles: every acknowledged write is in the file, compactions included. */
import { appendFile, copyFile, mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Datastore from '@seald-io/nedb';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object kept-appends.ts patches
import storage = require('@seald-io/nedb/lib/storage');

import { keepAppendsOpen, releaseAppends } from '../src/embedded/kept-appends';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolhub-kept-appends-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A loaded NeDB datastore on `filename`, its append handle kept (`keep`: how; false: not kept). */
async function datastore(filename: string, keep: false | { grouped?: boolean } = {}): Promise<Datastore> {
  const ds = new Datastore({ filename });
  await ds.loadDatabaseAsync();
  if (keep) keepAppendsOpen(filename, keep);
  return ds;
}

/** What a process that opened the file now would load (from a copy: loading rewrites the file). */
async function loadCopy(filename: string): Promise<unknown[]> {
  const copy = `${filename}.copy`;
  await copyFile(filename, copy);
  const ds = new Datastore({ filename: copy });
  await ds.loadDatabaseAsync();
  return ds.findAsync({}).sort({ _id: 1 });
}

describe('kept append handles', () => {
  it('writes made after NeDB rewrote the file (a compaction) land in the new file, not the replaced one', async () => {
    const filename = join(dir, 'tools.db');
    const ds = await datastore(filename);
    try {
      // NeDB's appends go through the kept handles (were this NeDB's storage module changed, they would not).
      expect(storage.appendFileAsync).not.toBe(appendFile);
      await ds.insertAsync({ _id: 'a', v: 1 });
      await ds.compactDatafileAsync();
      await ds.insertAsync({ _id: 'b', v: 1 });
      await ds.updateAsync({ _id: 'a' }, { _id: 'a', v: 2 });
      await ds.compactDatafileAsync();
      await ds.removeAsync({ _id: 'b' }, {});
      await ds.insertAsync({ _id: 'c', v: 1 });
      // Not closed and not compacted again: only the appends carry the last writes, as after a crash.
      expect(await loadCopy(filename)).toEqual([
        { _id: 'a', v: 2 },
        { _id: 'c', v: 1 },
      ]);
    } finally {
      await releaseAppends(filename);
    }
  });

  it('leaves files it does not keep, and files released, to NeDB as before', async () => {
    const kept = join(dir, 'kept.db');
    const other = join(dir, 'other.db');
    const a = await datastore(kept);
    const b = await datastore(other, false);
    await a.insertAsync({ _id: 'x' });
    await b.insertAsync({ _id: 'y' });
    await releaseAppends(kept);
    await a.insertAsync({ _id: 'z' });
    expect(await loadCopy(kept)).toEqual([{ _id: 'x' }, { _id: 'z' }]);
    expect(await loadCopy(other)).toEqual([{ _id: 'y' }]);
  });
});

/** Two kept NeDB files as the embedded store keeps them: the statistics grouped, the batches not. */
async function statsAndBatches(): Promise<{ stats: string; batches: string; a: Datastore; b: Datastore }> {
  const stats = join(dir, 'tool_stats.db');
  const batches = join(dir, 'call_batches.db');
  return { stats, batches, a: await datastore(stats, { grouped: true }), b: await datastore(batches) };
}

describe('grouped appends (group commit)', () => {
  it('writes a burst of updates in a few appends, and every one of them before a later write to another kept file', async () => {
    const { stats, batches, a, b } = await statsAndBatches();
    // Every append of a kept handle, in the order they were made.
    const probe = await open(join(dir, 'probe'), 'a');
    const handleProto = Object.getPrototypeOf(probe) as { appendFile: (data: string) => Promise<void> };
    await probe.close();
    const appends = jest.spyOn(handleProto, 'appendFile');
    try {
      await Promise.all(Array.from({ length: 100 }, (_, i) => a.insertAsync({ _id: `t${i}`, calls: i })));
      await b.removeAsync({ _id: 'x' }, {}); // nothing removed: NeDB appends nothing
      await b.insertAsync({ _id: 'x' });
      const written = appends.mock.calls.map(([data]) => String(data));
      // The 100 documents in at most a few appends, all made before the other file's append.
      expect(written.length).toBeLessThanOrEqual(4);
      expect(written.findIndex((d) => d.includes('"_id":"x"'))).toBe(written.length - 1);
      expect(written.slice(0, -1).join('').match(/"_id":"t\d+"/g)).toHaveLength(100);
      expect(await loadCopy(stats)).toHaveLength(100);
      expect(await loadCopy(batches)).toEqual([{ _id: 'x' }]);
    } finally {
      appends.mockRestore();
      await releaseAppends(stats);
      await releaseAppends(batches);
    }
  });

  it('a grouped write that failed is kept, fails the next write to another file, and lands once the file can be written', async () => {
    const { stats, batches, a, b } = await statsAndBatches();
    try {
      // A directory where the statistics file was: appending to it fails (EISDIR), even for root.
      await rm(stats);
      await mkdir(stats);
      await a.insertAsync({ _id: 's1' }); // queued: resolves at once
      await expect(b.insertAsync({ _id: 'b1' })).rejects.toThrow(/EISDIR|illegal operation on a directory/);
      await rm(stats, { recursive: true });
      await b.insertAsync({ _id: 'b2' });
      expect(await loadCopy(stats)).toEqual([{ _id: 's1' }]);
    } finally {
      await releaseAppends(stats);
      await releaseAppends(batches);
    }
  });

  it("one store's failing statistics file does not fail another store's writes", async () => {
    const broken = await statsAndBatches();
    const otherDir = join(dir, 'other-store');
    await mkdir(otherDir);
    const batches = join(otherDir, 'call_batches.db');
    const b = await datastore(batches);
    try {
      await rm(broken.stats);
      await mkdir(broken.stats);
      await broken.a.insertAsync({ _id: 's1' }); // queued; its write will fail (EISDIR)
      await b.insertAsync({ _id: 'b1' });
      expect(await loadCopy(batches)).toEqual([{ _id: 'b1' }]);
      await expect(broken.b.insertAsync({ _id: 'x' })).rejects.toThrow(/EISDIR|illegal operation on a directory/);
      await rm(broken.stats, { recursive: true });
    } finally {
      await releaseAppends(broken.stats);
      await releaseAppends(broken.batches);
      await releaseAppends(batches);
    }
  });

  it('release and rewrite write what is queued first', async () => {
    const stats = join(dir, 'tool_stats.db');
    const a = await datastore(stats, { grouped: true });
    await a.insertAsync({ _id: 'a' });
    await a.compactDatafileAsync();
    await a.insertAsync({ _id: 'b' });
    await releaseAppends(stats);
    expect(await loadCopy(stats)).toEqual([{ _id: 'a' }, { _id: 'b' }]);
  });
});
