/**
 * Learning from use with two registry replicas as the Helm chart runs them: each with its own NATS
 * connection and its own MongoRegistryStore connection to one database (MONGO_URL, e.g. FerretDB
 * from scripts/services.sh), searches answered by whichever replica the queue group picks, runs
 * published as `tool.called` on JetStream and consumed by whichever replica the shared durable
 * consumer hands them to. Every run teaches both replicas, once, and is stored once.
 */
import { NatsBus } from '@toolhub/bus';
import { readReply, textResult, toToolInfo } from '@toolhub/adapter-sdk';
import { eventSubject, registrySubject, SearchToolsRequest, SearchToolsResponse, ToolCalled, type ToolInfo } from '@toolhub/contracts';
import { MongoRegistryStore } from '@toolhub/store/mongo';
import { mongoUrl, type NatsServerHandle, startNatsServer, waitFor } from '@toolhub/test-harness';
import { MongoClient } from 'mongodb';
import { randomBytes } from 'node:crypto';

import { Registry } from '../src';

jest.setTimeout(120_000);

const tool = (name: string, description: string): ToolInfo =>
  toToolInfo('mail', { name, path: 'mail', description, inputSchema: { type: 'object', properties: {} }, run: async () => textResult('') });

describe('learning from use with two registry replicas over NATS and MongoDB', () => {
  let nats: NatsServerHandle;
  let url: string;
  const dbName = `toolhub_learning_test_${randomBytes(4).toString('hex')}`;
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    url = await mongoUrl();
  });
  afterAll(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
    const admin = new MongoClient(url);
    await admin.db(dbName).dropDatabase().catch(() => undefined);
    await admin.close();
    await nats.stop();
  });

  async function replica(name: string): Promise<{ bus: NatsBus; store: MongoRegistryStore; registry: Registry }> {
    const bus = await NatsBus.connect({ servers: nats.url, name });
    closers.push(() => bus.close());
    const store = await MongoRegistryStore.connect({ url, dbName });
    closers.push(() => store.close());
    const registry = await Registry.start(bus, store, { statsLingerMs: 50 });
    closers.push(() => registry.close());
    return { bus, store, registry };
  }

  it('teaches both replicas every run, whichever replica answered the search and whichever consumed the run', async () => {
    const seed = await MongoRegistryStore.connect({ url, dbName });
    closers.push(() => seed.close());
    await seed.registerTool(tool('deliver_letter', 'Deliver a letter to a mailbox.'));
    await seed.registerTool(tool('list_folders', 'List the folders of a mailbox.'));
    const a = await replica('registry-a');
    const b = await replica('registry-b');
    const agent = await NatsBus.connect({ servers: nats.url, name: 'dispatcher' });
    closers.push(() => agent.close());

    // Eight searches through the queue group, each followed by a run on JetStream: with two
    // replicas, about half are consumed by the replica that did not answer the search.
    const runs = 8;
    for (let i = 0; i < runs; i++) {
      const request = { ...SearchToolsRequest.decode(new Uint8Array()), queries: [`mailbox letter ${i}`], limit: 5 };
      const reply = await agent.request(registrySubject('search'), SearchToolsRequest.encode(request).finish(), { timeoutMs: 10_000 });
      const { searchId } = readReply(reply, (d) => SearchToolsResponse.decode(d));
      const event: ToolCalled = { eventId: `run-${i}`, toolId: 'mail:deliver_letter', provider: 'mail', name: 'deliver_letter', status: 'ok', errorCode: 0, latencyMs: 2, attempts: 1, fallbackUsed: '', caller: 'agent', timestampUnixMs: Date.now(), searchId, claimGroup: '' };
      await agent.publishEvent(eventSubject('tool.called', 'mail'), ToolCalled.encode(event).finish(), { msgId: event.eventId });
    }

    const total = (r: Registry) => r.hybrid.learning().total;
    await waitFor(() => total(a.registry) === runs && total(b.registry) === runs, { timeoutMs: 30_000, message: `both replicas to hold ${runs} pairs (a: ${total(a.registry)}, b: ${total(b.registry)})` });
    await waitFor(async () => (await seed.listLearnedUses(0)).length === runs, { timeoutMs: 30_000, message: `${runs} stored pairs` });
    const stored = await seed.listLearnedUses(0);
    expect(stored.map((u) => u.id).sort()).toEqual(Array.from({ length: runs }, (_, i) => `run-${i}#0`).sort());
    for (const r of [a.registry, b.registry]) {
      const res = await r.hybrid.search({ queries: ['mailbox letter 3'], explain: true });
      expect(res.hits.find((h) => h.id === 'mail:deliver_letter')?.matchedOn).toContain('usage');
    }
    // Each run was consumed once, by one of the two (the shared durable consumer).
    expect(a.registry.ingested + b.registry.ingested).toBe(runs);
  });
});
