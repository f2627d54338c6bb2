/**
 * The registry's hybrid search over its real (embedded) store and a fake embeddings endpoint:
 * vectors are stored with the catalog, only changed tools are embedded again, a restart embeds
 * nothing, and a run that carries a search id teaches the search.
 */
import { InProcessBus } from '@toolhub/bus';
import { readReply } from '@toolhub/adapter-sdk';
import { HEADER_DEADLINE, Importance, registrySubject, SearchMode, SearchToolsRequest, SearchToolsResponse, type ToolInfo } from '@toolhub/contracts';
import { OpenAiEmbeddings } from '@toolhub/search';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '@toolhub/search/testing';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Registry } from '../src';

const tool = (name: string, description: string): ToolInfo => ({
  id: `mail:${name}`,
  provider: 'mail',
  name,
  path: 'mail',
  description,
  inputSchema: { type: 'object', properties: { to: { type: 'string', description: 'recipient address' } } },
  outputDescription: '',
  examples: [],
  importance: Importance.IMPORTANCE_NORMAL,
  version: '',
  tags: [],
  defaultTimeoutMs: 0,
});

describe('Registry hybrid search', () => {
  let fake: FakeEmbeddingsServer;
  let dir: string;

  beforeEach(async () => {
    fake = await startFakeEmbeddingsServer();
    dir = mkdtempSync(join(tmpdir(), 'registry-hybrid-'));
  });
  afterEach(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(queryTimeoutMs?: number) {
    const bus = new InProcessBus();
    const store = await EmbeddedRegistryStore.open({ dir });
    const registry = await Registry.start(bus, store, { search: { embedder: new OpenAiEmbeddings({ url: fake.url, retries: 0 }), queryTimeoutMs } });
    await registry.hybrid.syncVectors();
    return {
      bus,
      registry,
      stop: async () => {
        await registry.close();
        await store.close();
        await bus.close();
      },
    };
  }

  it('stores tool vectors, embeds only changed tools, and embeds nothing after a restart', async () => {
    const first = await start();
    await first.registry.registerTool(tool('deliver_letter', 'Deliver a letter to an inbox.'));
    await first.registry.registerTool(tool('list_folders', 'List the folders of a mailbox.'));
    await first.registry.hybrid.syncVectors();
    expect(fake.embedded).toHaveLength(2);

    fake.embedded.length = 0;
    await first.registry.updateTool(tool('list_folders', 'List the folders and labels of a mailbox.'));
    await first.registry.hybrid.syncVectors();
    expect(fake.embedded).toEqual([expect.stringContaining('folders and labels')]);
    const res = await first.registry.hybrid.search({ queries: ['send email'], explain: true });
    expect(res.mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    expect(res.hits[0]).toMatchObject({ id: 'mail:deliver_letter', matchedOn: expect.stringContaining('semantic') });
    await first.stop();

    fake.embedded.length = 0;
    const again = await start();
    expect(fake.embedded).toEqual([]);
    expect(again.registry.hybrid.embeddedCount).toBe(2);
    await again.stop();
  });

  it("answers a search over the bus by keywords before the caller's deadline when the embeddings endpoint is slower than it", async () => {
    // The endpoint would answer after 20 s, the registry would wait up to 10 s for it, the caller
    // waits 6 s: the query's embedding gets at most half of that, then keywords answer.
    const { bus, registry, stop } = await start(10_000);
    try {
      await registry.registerTool(tool('deliver_letter', 'Deliver a letter to an inbox.'));
      await registry.hybrid.syncVectors();
      fake.behaviour = 'slow';
      fake.slowMs = 20_000;
      const timeoutMs = 6_000;
      const request = SearchToolsRequest.decode(new Uint8Array());
      const reply = await bus.request(registrySubject('search'), SearchToolsRequest.encode({ ...request, queries: ['deliver a letter'], limit: 5 }).finish(), {
        timeoutMs,
        headers: { [HEADER_DEADLINE]: String(Date.now() + timeoutMs) },
      });
      const res = readReply(reply, (b) => SearchToolsResponse.decode(b));
      expect(res.mode).toBe(SearchMode.SEARCH_MODE_LEXICAL);
      expect(res.note).toMatch(/too slow/);
      expect(res.hits[0]?.id).toBe('mail:deliver_letter');
    } finally {
      await stop();
    }
  });

  it('learns from a successful run that carries the search id, and ignores failed runs', async () => {
    const { registry, stop } = await start();
    await registry.registerTool(tool('deliver_letter', 'Deliver a letter to an inbox.'));
    await registry.registerTool(tool('list_folders', 'List the folders of a mailbox.'));
    await registry.hybrid.syncVectors();
    const res = await registry.hybrid.search({ queries: ['mailbox'] });
    const event = { eventId: 'e1', toolId: 'mail:deliver_letter', provider: 'mail', name: 'deliver_letter', errorCode: 0, latencyMs: 1, attempts: 1, fallbackUsed: '', caller: '', timestampUnixMs: Date.now(), searchId: res.searchId, claimGroup: '' };
    registry.learnFrom([{ ...event, status: 'timeout' }]);
    expect(registry.hybrid.learned()).toEqual([]);
    registry.learnFrom([{ ...event, status: 'ok' }]);
    expect(registry.hybrid.learned()).toEqual([expect.objectContaining({ toolId: 'mail:deliver_letter', query: 'mailbox' })]);
    await stop();
  });
});
