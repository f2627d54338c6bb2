/**
 * The registry's hybrid search over its real (embedded) store and a fake embeddings endpoint:
 * vectors are stored with the catalog, only changed tools are embedded again, a restart embeds
 * nothing, and a run that carries a search id teaches the search.
 */
import { InProcessBus } from '@toolhub/bus';
import { Importance, SearchMode, type ToolInfo } from '@toolhub/contracts';
import { OpenAiEmbeddings } from '@toolhub/search';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '@toolhub/search/testing';
import { EmbeddedRegistryStore } from '@toolhub/store';
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

  async function start() {
    const bus = new InProcessBus();
    const store = await EmbeddedRegistryStore.open({ dir });
    const registry = await Registry.start(bus, store, { search: { embedder: new OpenAiEmbeddings({ url: fake.url, retries: 0 }) } });
    await registry.hybrid.syncVectors();
    return {
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

  it('learns from a successful run that carries the search id, and ignores failed runs', async () => {
    const { registry, stop } = await start();
    await registry.registerTool(tool('deliver_letter', 'Deliver a letter to an inbox.'));
    await registry.registerTool(tool('list_folders', 'List the folders of a mailbox.'));
    await registry.hybrid.syncVectors();
    const res = await registry.hybrid.search({ queries: ['mailbox'] });
    const event = { eventId: 'e1', toolId: 'mail:deliver_letter', provider: 'mail', name: 'deliver_letter', errorCode: 0, latencyMs: 1, attempts: 1, fallbackUsed: '', caller: '', timestampUnixMs: Date.now(), searchId: res.searchId };
    registry.learnFrom([{ ...event, status: 'timeout' }]);
    expect(registry.hybrid.learned()).toEqual([]);
    registry.learnFrom([{ ...event, status: 'ok' }]);
    expect(registry.hybrid.learned()).toEqual([expect.objectContaining({ toolId: 'mail:deliver_letter', query: 'mailbox' })]);
    await stop();
  });
});
