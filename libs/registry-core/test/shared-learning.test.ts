/**
 * Learning from use across registry replicas and restarts: two registries on one bus and one
 * store (as two replicas behind a queue group and a shared durable consumer), and a registry
 * restarted on the same store. Hybrid search through the fake embeddings endpoint, so the pairs'
 * query vectors travel and are stored too: the similar query below shares no word set with the
 * learned one, only its vector neighbourhood.
 */
import { textResult, toToolInfo } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { learningSubject, type SearchToolsResponse, type ToolCalled, type ToolInfo } from '@toolhub/contracts';
import { OpenAiEmbeddings } from '@toolhub/search';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '@toolhub/search/testing';
import { type RegistryStore } from '@toolhub/store';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Registry, type RegistryOptions } from '../src';

const tool = (name: string, description: string): ToolInfo =>
  toToolInfo('mail', { name, path: 'mail', description, inputSchema: { type: 'object', properties: { to: { type: 'string', description: 'recipient address' } } }, run: async () => textResult('') });

/** The query a run teaches, and a similar one (other words, close vector) that it should lift. */
const LEARNED = 'send a letter to my mailbox';
const SIMILAR = 'send letters to mailbox please';
const TARGET = 'mail:deliver_letter';
const WAIT = { timeoutMs: 15_000 };

const ran = (eventId: string, searchId: string): ToolCalled => ({
  eventId,
  toolId: TARGET,
  provider: 'mail',
  name: 'deliver_letter',
  status: 'ok',
  errorCode: 0,
  latencyMs: 3,
  attempts: 1,
  fallbackUsed: '',
  caller: 'agent',
  timestampUnixMs: Date.now(),
  searchId,
  claimGroup: '',
});

/**
 * Where the taught tool stands: its score over the best other hit's (scores are relative to the
 * top hit, so a lift of the top hit shows as the others falling behind), and whether usage counted.
 */
function lift(res: SearchToolsResponse): { lead: number; usage: boolean } {
  const hit = res.hits.find((h) => h.id === TARGET);
  const other = Math.max(...res.hits.filter((h) => h.id !== TARGET).map((h) => h.score));
  if (!hit || !(other > 0)) throw new Error(`expected ${TARGET} and another tool among the hits: ${JSON.stringify(res.hits.map((h) => [h.id, h.score]))}`);
  return { lead: hit.score / other, usage: hit.matchedOn.includes('usage') };
}

describe('learning from use, shared by replicas and kept across restarts', () => {
  let fake: FakeEmbeddingsServer;
  let dir: string;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeEach(async () => {
    fake = await startFakeEmbeddingsServer();
    dir = mkdtempSync(join(tmpdir(), 'registry-learning-'));
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function openStore(): Promise<RegistryStore> {
    const store = await EmbeddedRegistryStore.open({ dir });
    cleanups.push(() => store.close());
    return store;
  }

  async function startRegistry(bus: InProcessBus, store: RegistryStore, search: RegistryOptions['search'] = {}): Promise<Registry> {
    const registry = await Registry.start(bus, store, { search: { embedder: new OpenAiEmbeddings({ url: fake.url, retries: 0 }), ...search } });
    cleanups.push(() => registry.close());
    await registry.hybrid.syncVectors();
    return registry;
  }

  async function catalog(store: RegistryStore): Promise<void> {
    await store.registerTool(tool('deliver_letter', 'Deliver a letter to an inbox.'));
    await store.registerTool(tool('list_folders', 'List the folders of a mailbox.'));
  }

  const similar = (r: Registry) => r.hybrid.search({ queries: [SIMILAR], explain: true });

  it('a run consumed by the replica that did not answer its search teaches both replicas, and is stored once', async () => {
    const bus = new InProcessBus();
    cleanups.push(() => bus.close());
    const store = await openStore();
    await catalog(store);
    const a = await startRegistry(bus, store);
    const b = await startRegistry(bus, store);
    const before = lift(await similar(a));
    expect(lift(await similar(b))).toEqual(before);
    expect(before.usage).toBe(false);

    // Replica A answers the search; replica B's consumer takes the run.
    const search = await a.hybrid.search({ queries: [LEARNED] });
    b.learnFrom([ran('e1', search.searchId)]);

    await waitFor(() => a.hybrid.learning().total === 1 && b.hybrid.learning().total === 1, { ...WAIT, message: 'both replicas to hold the pair' });
    for (const r of [a, b]) {
      expect(r.hybrid.learning().entries).toEqual([expect.objectContaining({ toolId: TARGET, query: LEARNED, weight: expect.closeTo(1, 3) })]);
      const after = lift(await similar(r));
      expect(after.usage).toBe(true);
      expect(after.lead).toBeGreaterThan(before.lead * 1.1);
    }
    await waitFor(async () => (await store.listLearnedUses(0)).length === 1, { ...WAIT, message: 'the pair to be stored' });

    // The run redelivered to either replica adds nothing; a second run (a barrier: broadcasts
    // arrive in order) is learned by both.
    b.learnFrom([ran('e1', search.searchId)]);
    a.learnFrom([ran('e1', search.searchId)]);
    const second = await a.hybrid.search({ queries: ['list my folders'] });
    b.learnFrom([ran('e2', second.searchId)]);
    await waitFor(() => b.hybrid.learning().total === 2, { ...WAIT, message: 'replica B to hold the second pair' });
    await waitFor(async () => (await store.listLearnedUses(0)).length === 2, { ...WAIT, message: 'the second pair to be stored' });
    expect(a.hybrid.learning().total).toBe(2);
    expect((await store.listLearnedUses(0)).map((u) => [u.id, u.query, u.vector?.length])).toEqual([
      ['e1#0', LEARNED, 64],
      ['e2#0', 'list my folders', 64],
    ]);
  });

  it('a registry restarted on the same store lists what was learned and lifts similar queries (by the stored vector)', async () => {
    const bus = new InProcessBus();
    cleanups.push(() => bus.close());
    let store = await openStore();
    await catalog(store);
    const first = await startRegistry(bus, store);
    const before = lift(await similar(first));
    const search = await first.hybrid.search({ queries: [LEARNED] });
    first.learnFrom([ran('e1', search.searchId)]);
    first.learnFrom([ran('e1', search.searchId)]); // redelivered: one pair, one stored
    expect(first.hybrid.learning().total).toBe(1);
    await first.close(); // waits for the store write
    await store.close();

    store = await openStore();
    expect(await store.listLearnedUses(0)).toHaveLength(1);
    const again = await startRegistry(bus, store);
    expect(again.hybrid.learning()).toMatchObject({ enabled: true, total: 1, entries: [{ toolId: TARGET, query: LEARNED }] });
    const after = lift(await similar(again));
    expect(after.usage).toBe(true);
    expect(after.lead).toBeGreaterThan(before.lead * 1.1);
  });

  it('with learning off, a registry neither stores nor broadcasts anything', async () => {
    const bus = new InProcessBus();
    cleanups.push(() => bus.close());
    const store = await openStore();
    await catalog(store);
    const seen: string[] = [];
    for (const kind of ['run', 'learned'] as const) {
      const sub = await bus.subscribe(learningSubject(kind), (m) => void seen.push(`${kind}:${Buffer.from(m.data).toString()}`));
      cleanups.push(() => sub.close());
    }
    const off = await startRegistry(bus, store, { learning: false });
    const search = await off.hybrid.search({ queries: [LEARNED] });
    off.learnFrom([ran('e1', search.searchId), ran('e2', 'a search of another replica')]);
    // A marker after them: messages arrive in order, so once it is here, theirs would be too.
    bus.publish(learningSubject('run'), new TextEncoder().encode('marker'));
    await waitFor(() => seen.length > 0, { ...WAIT, message: 'the marker' });
    expect(seen).toEqual(['run:marker']);
    await off.close();
    expect(await store.listLearnedUses(0)).toEqual([]);
  });
});
