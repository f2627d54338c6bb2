/**
 * A fresh database per test on a real server (MONGO_URL, else a private FerretDB as the tests start
 * it), with MongoRegistryStores opened on it closed and the database dropped after each test.
 * Call at the top of a test file; it registers the Jest hooks.
 */
import { randomBytes } from 'node:crypto';

import { mongoUrl } from '@toolhub/test-harness';
import { type Db, MongoClient } from 'mongodb';

import { type RegistryStore } from '../../src/index';
import { MongoRegistryStore, type MongoRegistryStoreOptions } from '../../src/mongo';

export interface ScratchDatabase {
  /** The database of the running test. */
  db(): Db;
  /** Opens a store on it (closed after the test). */
  open(options: Omit<MongoRegistryStoreOptions, 'url' | 'dbName'>): Promise<RegistryStore>;
}

export function scratchDatabase(prefix: string): ScratchDatabase {
  let url: string;
  let admin: MongoClient;
  let db: Db;
  let dbName: string;
  const opened: RegistryStore[] = [];

  beforeAll(async () => {
    url = await mongoUrl();
    admin = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
    await admin.connect();
  }, 120_000);

  beforeEach(() => {
    dbName = `${prefix}_${randomBytes(4).toString('hex')}`;
    db = admin.db(dbName);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await db.dropDatabase();
  });

  afterAll(async () => {
    await admin?.close();
  });

  return {
    db: () => db,
    async open(options) {
      const store = await MongoRegistryStore.connect({ url, dbName, ...options });
      opened.push(store);
      return store;
    },
  };
}
