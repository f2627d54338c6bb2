import { randomBytes } from 'node:crypto';

import { MongoRegistryStore } from '../src/mongo';
import { storeContractSuite } from '../src/testing';
import { mongoUrl } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';

// MONGO_URL (e.g. from `eval "$(bash scripts/services.sh up)"`: FerretDB 1.24 on PostgreSQL, or on
// SQLite with TOOLHUB_FERRETDB_HANDLER=sqlite), else a private FerretDB started by the harness. Every test gets its own database, dropped afterwards.
const run = randomBytes(4).toString('hex');
let url: string;
let admin: MongoClient;
let counter = 0;

beforeAll(async () => {
  try {
    url = await mongoUrl();
    admin = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
    await admin.connect();
  } catch (err) {
    throw new Error(
      `No MongoDB-compatible server for the MongoRegistryStore contract${process.env['MONGO_URL'] ? ` at MONGO_URL=${process.env['MONGO_URL']}` : ''}: ${(err as Error).message}. ` +
        'Run `eval "$(bash scripts/services.sh up)"` (FerretDB on 127.0.0.1:27017, exports MONGO_URL), or unset MONGO_URL to let the harness start a private FerretDB, and run the tests again.',
      { cause: err },
    );
  }
}, 120_000);

afterAll(async () => {
  await admin?.close();
});

storeContractSuite('MongoRegistryStore', async (options) => {
  const dbName = `toolhub_store_test_${run}_${++counter}`;
  const store = await MongoRegistryStore.connect({ ...options, url, dbName });
  return {
    store,
    reopen: (reopenOptions) => MongoRegistryStore.connect({ ...reopenOptions, url, dbName }),
    cleanup: async () => {
      await store.close();
      await admin.db(dbName).dropDatabase();
    },
  };
});
