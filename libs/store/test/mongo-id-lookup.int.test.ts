/**
 * `find({ _id: { $in } })` on a real server (MONGO_URL, else a private FerretDB 1.24): on FerretDB
 * it runs as one-by-one lookups (few ids) or one projected read (many ids, see
 * mongo/ferret-id-lookup.ts); whichever way, the answer must be what `$in` means.
 */
import { randomBytes } from 'node:crypto';

import { mongoUrl } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';

import type { BaseDoc, DocCollection } from '../src/backend';
import { MongoBackend } from '../src/mongo/mongo-backend';
import { ONE_BY_ONE_MAX, idListOf } from '../src/mongo/ferret-id-lookup';

interface Doc extends BaseDoc {
  b: string;
  n: number;
}

let url: string;
let dbName: string;
let backend: MongoBackend;
let docs: DocCollection<Doc>;
const all: Doc[] = Array.from({ length: 300 }, (_, i) => ({ _id: `ev-${i}`, b: `batch-${i % 7}`, n: i }));

beforeAll(async () => {
  url = await mongoUrl();
  dbName = `toolhub_idlookup_test_${randomBytes(4).toString('hex')}`;
  backend = await MongoBackend.connect(url, dbName, { serverSelectionTimeoutMS: 10_000 });
  docs = backend.collection<Doc>('call_batches');
  expect(await docs.insertNew(all)).toEqual([]);
}, 120_000);

afterAll(async () => {
  await backend?.close();
  const admin = new MongoClient(url);
  await admin.connect();
  await admin.db(dbName).dropDatabase();
  await admin.close();
});

const byId = (d: { _id: string }[]): string[] => d.map((x) => x._id).sort();

describe('find by a list of ids', () => {
  it('knows which server it talks to', async () => {
    const admin = new MongoClient(url);
    await admin.connect();
    const info = await admin.db('admin').command({ buildInfo: 1 });
    await admin.close();
    expect(backend.ferret).toBe(typeof info['ferretdbVersion'] === 'string');
  });

  it('a few ids: the documents that exist, whole, each once', async () => {
    const found = await docs.find({ _id: { $in: ['ev-3', 'ev-299', 'ev-3', 'missing'] } });
    expect(byId(found)).toEqual(['ev-299', 'ev-3']);
    expect(found.find((d) => d._id === 'ev-3')).toEqual({ _id: 'ev-3', b: 'batch-3', n: 3 });
  });

  it('a few ids with a projection: only the fields asked for', async () => {
    const found = await docs.find({ _id: { $in: ['ev-10', 'ev-11'] } }, { include: ['b'] });
    expect(found.sort((a, b) => a._id.localeCompare(b._id))).toEqual([
      { _id: 'ev-10', b: 'batch-3' },
      { _id: 'ev-11', b: 'batch-4' },
    ]);
  });

  it('many ids, with and without a projection: exactly the existing ones', async () => {
    const ids = [...all.filter((d) => d.n % 2 === 0).map((d) => d._id), 'nope-1', 'nope-2'];
    expect(ids.length).toBeGreaterThan(ONE_BY_ONE_MAX);
    const projected = await docs.find({ _id: { $in: ids } }, { include: ['b'] });
    expect(byId(projected)).toEqual(byId(all.filter((d) => d.n % 2 === 0)));
    expect(projected.every((d) => Object.keys(d).sort().join() === '_id,b')).toBe(true);
    const whole = await docs.find({ _id: { $in: ids } });
    expect(byId(whole)).toEqual(byId(projected));
    expect(whole.find((d) => d._id === 'ev-200')).toEqual({ _id: 'ev-200', b: 'batch-4', n: 200 });
  });

  it('an empty list finds nothing; sort and limit still apply', async () => {
    expect(await docs.find({ _id: { $in: [] } })).toEqual([]);
    const firstTwo = await docs.find({ _id: { $in: ['ev-5', 'ev-1', 'ev-9'] } }, { sort: { n: -1 }, limit: 2 });
    expect(firstTwo.map((d) => d._id)).toEqual(['ev-9', 'ev-5']);
  });

  it('only a bare list of string ids takes the other way', () => {
    expect(idListOf({ _id: { $in: ['a'] } })).toEqual(['a']);
    expect(idListOf({ _id: { $in: ['a'] }, b: 'x' })).toBeUndefined();
    expect(idListOf({ _id: { $in: [1] } })).toBeUndefined();
    expect(idListOf({ _id: { $in: ['a'], $ne: 'b' } })).toBeUndefined();
    expect(idListOf({ _id: 'a' })).toBeUndefined();
  });
});
