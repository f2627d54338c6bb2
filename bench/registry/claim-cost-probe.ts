/**
 * What an event's claim costs the database, and what a claim per 16-event message would. Inserts
 * claim documents shaped as MongoRegistryStore's slotted claims (`{ _id: <event id>, b: <batch id> }`,
 * unordered insertMany into a fresh collection) into MONGO_URL, else a private FerretDB 1.24 on
 * PostgreSQL as the tests start it; the claims of `--per-insert` events per insert (the registry's
 * batches at 4,000 events/s hold ~2,300 events). Rows:
 * - one claim per event, as stored;
 * - the same without the owner `b` (what that field costs);
 * - one claim per 16 events (a message's), i.e. a sixteenth of the documents for the same events.
 * Reports the database servers' CPU per event and this process's. A script, not a test.
 *
 *   npm run bench -- registry/claim-cost-probe [--events 46000] [--per-insert 16,256,2300] [--rounds 2]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';

import { mongoUrl } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';

import { arg } from './args';
import { table } from './data';
import { runProbe } from './probe-store';
import { ownCpuMs, serverCpu } from './server-cpu';

const EVENTS = Number(arg('events', '46000'));
const PER_INSERT = arg('per-insert', '16,256,2300').split(',').map(Number);
const ROUNDS = Number(arg('rounds', '2'));
const EVENTS_PER_MESSAGE = 16;

interface Shape {
  name: string;
  /** Events one document stands for. */
  eventsPerDoc: number;
  doc: (id: string, batch: string) => Record<string, unknown>;
}

const SHAPES: Shape[] = [
  { name: 'claim per event { _id, b } (as stored)', eventsPerDoc: 1, doc: (id, b) => ({ _id: id, b }) },
  { name: 'claim per event { _id } (no owner)', eventsPerDoc: 1, doc: (id) => ({ _id: id }) },
  { name: `claim per ${EVENTS_PER_MESSAGE}-event message { _id, b }`, eventsPerDoc: EVENTS_PER_MESSAGE, doc: (id, b) => ({ _id: id, b }) },
];

interface Row {
  shape: string;
  perInsert: number;
  databaseUs: number[];
  processUs: number[];
}

async function main(): Promise<void> {
  if (!Number.isInteger(EVENTS) || EVENTS < 1000 || PER_INSERT.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(ROUNDS) || ROUNDS < 1) {
    throw new Error(`--events takes a count >= 1000, --per-insert whole numbers >= 1 (comma-separated), --rounds a count >= 1; got ${EVENTS}, ${PER_INSERT.join(',')}, ${ROUNDS}`);
  }
  const url = await mongoUrl();
  const server = serverCpu(url);
  if (!server) throw new Error(`cannot find the database server processes behind ${url} on this machine: the probe reads their CPU from /proc`);
  const client = new MongoClient(url);
  await client.connect();
  const db = client.db(`bench_claim_cost_${randomUUID().slice(0, 8)}`);
  const loadStart = loadavg().map((x) => x.toFixed(2));
  const rows: Row[] = [];
  try {
    for (const shape of SHAPES) {
      for (const perInsert of PER_INSERT) {
        const row: Row = { shape: shape.name, perInsert: perInsert, databaseUs: [], processUs: [] };
        for (let round = 0; round < ROUNDS; round++) {
          const name = `call_claims_probe_${rows.length}_${round}`;
          await db.createCollection(name);
          const collection = db.collection<Record<string, unknown> & { _id: string }>(name);
          const docs = Array.from({ length: Math.ceil(EVENTS / shape.eventsPerDoc) }, () => randomUUID());
          const batch = randomBytes(12).toString('base64url');
          const db0 = server.cpuMs();
          const p0 = ownCpuMs();
          const docsPerInsert = Math.ceil(perInsert / shape.eventsPerDoc);
          for (let i = 0; i < docs.length; i += docsPerInsert) {
            const part = docs.slice(i, i + docsPerInsert);
            const result = await collection.insertMany(
              part.map((id) => shape.doc(id, batch) as Record<string, unknown> & { _id: string }),
              { ordered: false },
            );
            if (result.insertedCount !== part.length) throw new Error(`inserted ${result.insertedCount} claims, expected ${part.length}`);
          }
          const events = docs.length * shape.eventsPerDoc;
          row.databaseUs.push(((server.cpuMs() - db0) * 1000) / events);
          row.processUs.push(((ownCpuMs() - p0) * 1000) / events);
          await collection.drop();
        }
        rows.push(row);
        process.stderr.write(`${shape.name}, ${perInsert} per insert: ${row.databaseUs.map((u) => u.toFixed(1)).join(', ')} µs/event of database CPU\n`);
      }
    }
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
  const loadEnd = loadavg().map((x) => x.toFixed(2));
  process.stdout.write(`\n${EVENTS} events per round, ${ROUNDS} rounds; ${server.label}; load ${loadStart.join(' ')} → ${loadEnd.join(' ')}\n\n`);
  process.stdout.write(
    `${table(
      ['claims', 'events per insert', 'database CPU µs per event, each round', 'process CPU µs per event, each round'],
      rows.map((r) => [r.shape, String(r.perInsert), r.databaseUs.map((u) => u.toFixed(1)).join(', '), r.processUs.map((u) => u.toFixed(1)).join(', ')]),
    )}\n`,
  );
}

runProbe(main);
