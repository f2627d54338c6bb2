/** The MongoDB RunStore against the RunStore contract on a real server (MONGO_URL, else a private FerretDB). */
import { mongoUrl } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';
import { randomBytes } from 'node:crypto';

import { connectMongoRunStore } from '../src/mongo';
import { runStoreContract } from './support/contract';

describe('MongoDB RunStore', () => {
  const dbs: string[] = [];
  runStoreContract(async () => {
    const dbName = `run_store_test_${randomBytes(4).toString('hex')}`;
    dbs.push(dbName);
    return connectMongoRunStore({ url: await mongoUrl(), dbName });
  });

  afterAll(async () => {
    const client = new MongoClient(await mongoUrl());
    await client.connect();
    for (const db of dbs) await client.db(db).dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('refuses a URL that is not MongoDB with a message naming the expected form', async () => {
    await expect(connectMongoRunStore({ url: 'http://x' })).rejects.toThrow(/mongodb:\/\//);
  });
});
