/** The embedded store's kept append handles: every acknowledged write is in the file, compactions included. */
import { appendFile, copyFile, mkdtemp, rm } from 'node:fs/promises';
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
    const ds = new Datastore({ filename });
    await ds.loadDatabaseAsync();
    keepAppendsOpen(filename);
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
    const a = new Datastore({ filename: kept });
    const b = new Datastore({ filename: other });
    await a.loadDatabaseAsync();
    await b.loadDatabaseAsync();
    keepAppendsOpen(kept);
    await a.insertAsync({ _id: 'x' });
    await b.insertAsync({ _id: 'y' });
    await releaseAppends(kept);
    await a.insertAsync({ _id: 'z' });
    expect(await loadCopy(kept)).toEqual([{ _id: 'x' }, { _id: 'z' }]);
    expect(await loadCopy(other)).toEqual([{ _id: 'y' }]);
  });
});
