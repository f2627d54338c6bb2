import { SearchMode } from '@toolhub/contracts';
import { type Embedder, HybridSearch, type HybridSearchOptions, OpenAiEmbeddings, ToolSearchIndex, type VectorStore } from '@toolhub/search';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '@toolhub/search/testing';
import { waitFor } from '@toolhub/test-harness';

import { catalog, tool } from './fixtures';

/** Vectors kept in a Map, as the registry's store keeps them across restarts. */
class MemoryVectors implements VectorStore {
  readonly data = new Map<string, Float32Array>();
  async loadVectors(model: string, keys: readonly string[]) {
    return new Map(keys.filter((k) => this.data.has(`${model}|${k}`)).map((k) => [k, this.data.get(`${model}|${k}`)!]));
  }
  async saveVectors(model: string, vectors: ReadonlyMap<string, Float32Array>) {
    for (const [k, v] of vectors) this.data.set(`${model}|${k}`, v);
  }
}

const mailTool = tool('mailer', 'deliver_letter', 'Deliver a letter to a recipient inbox.', { path: 'post' });

describe('HybridSearch', () => {
  let fake: FakeEmbeddingsServer;
  const warnings: string[] = [];
  const logger = { info() {}, warn: (_: object, msg?: string) => void warnings.push(msg ?? '') };

  beforeEach(async () => {
    fake = await startFakeEmbeddingsServer();
    warnings.length = 0;
  });
  // Background retries of tools left without a vector stop with their search.
  const opened: HybridSearch[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) s.close();
    await fake.close();
  });

  async function hybrid(options: Partial<HybridSearchOptions> = {}, tools = [...catalog(), mailTool]) {
    const index = new ToolSearchIndex();
    index.upsert(tools);
    const search = new HybridSearch(index, { embedder: new OpenAiEmbeddings({ url: fake.url, retries: 0 }), logger, queryTimeoutMs: 500, ...options });
    opened.push(search);
    await search.syncVectors();
    return search;
  }

  it('splits each hit into its keyword and meaning contributions when asked to explain', async () => {
    const search = await hybrid();
    const res = await search.search({ queries: ['send email'], explain: true, limit: 5 });
    const mail = res.hits.find((h) => h.id === 'mailer:deliver_letter')!;
    // Found by meaning only: everything it has came from the dense ranking.
    expect(mail).toMatchObject({ lexicalScore: 0, semanticScore: expect.any(Number) });
    expect(mail.semanticScore!).toBeGreaterThan(0);
    for (const h of res.hits) expect({ id: h.id, lexical: h.lexicalScore, semantic: h.semanticScore }).toEqual({ id: h.id, lexical: expect.any(Number), semantic: expect.any(Number) });
    // The top hit's parts are the bulk of a fused score (weights 0.3 + 0.7).
    expect(res.hits[0]!.lexicalScore! + res.hits[0]!.semanticScore!).toBeGreaterThan(0.5);
    // Not without explain, and not in lexical mode (nothing was fused).
    expect((await search.search({ queries: ['send email'], limit: 5 })).hits[0]?.lexicalScore).toBeUndefined();
    const lexical = await search.search({ queries: ['read a file'], mode: SearchMode.SEARCH_MODE_LEXICAL, explain: true });
    expect(lexical.hits[0]?.lexicalScore).toBeUndefined();
  });

  it('ranks a tool that has no vector yet by its keywords, not below every embedded tool', async () => {
    const search = await hybrid();
    // A catalog arrives after the others were embedded; its vectors come later, in the background.
    const droplets = tool('cloud', 'droplets_list', 'List all droplets in your account.', { path: 'vendor/digitalocean' });
    search.index.upsert([droplets]);
    expect(search.embeddedCount).toBeLessThan(search.index.size);
    const res = await search.search({ queries: ['list all droplets'], limit: 3 });
    expect(res.mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    expect(res.note).toMatch(/still being embedded/);
    expect(res.hits[0]?.id).toBe('cloud:droplets_list');
  });

  it('is hybrid by default with an endpoint, and finds by meaning what keywords miss', async () => {
    const search = await hybrid();
    const lexical = await search.search({ queries: ['send email'], mode: SearchMode.SEARCH_MODE_LEXICAL });
    expect(lexical.hits.map((h) => h.id)).not.toContain('mailer:deliver_letter');
    const res = await search.search({ queries: ['send email'], explain: true });
    expect(res.mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    expect(res.note).toBe('');
    expect(res.searchId).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    const hit = res.hits.find((h) => h.id === 'mailer:deliver_letter');
    expect(hit?.matchedOn).toBe('semantic');
    const semantic = await search.search({ queries: ['send email'], mode: SearchMode.SEARCH_MODE_SEMANTIC, limit: 3 });
    expect(semantic.mode).toBe(SearchMode.SEARCH_MODE_SEMANTIC);
    expect(semantic.hits.map((h) => h.id)).toContain('mailer:deliver_letter');
  });

  it('is lexical without an endpoint, and says so when semantic search is asked for', async () => {
    const index = new ToolSearchIndex();
    index.upsert(catalog());
    const search = new HybridSearch(index);
    expect(search.defaultMode).toBe(SearchMode.SEARCH_MODE_LEXICAL);
    const plain = await search.search({ queries: ['create issue'] });
    expect(plain).toMatchObject({ mode: SearchMode.SEARCH_MODE_LEXICAL, note: '' });
    expect(plain.hits[0]?.id).toBe('github:create_issue');
    const asked = await search.search({ queries: ['create issue'], mode: SearchMode.SEARCH_MODE_HYBRID });
    expect(asked.mode).toBe(SearchMode.SEARCH_MODE_LEXICAL);
    expect(asked.note).toMatch(/not configured/);
    expect(asked.hits).toEqual(plain.hits);
  });

  it.each([
    ['down', 'unavailable', (f: FakeEmbeddingsServer) => (f.behaviour = 'error')],
    ['slow', 'too slow', (f: FakeEmbeddingsServer) => (f.behaviour = 'slow')],
    ['answering vectors of the wrong length', 'dimensions', (f: FakeEmbeddingsServer) => (f.behaviour = 'wrong-dimensions')],
  ])('answers by keywords with a note and a log line when the endpoint is %s', async (_label, words, breakIt) => {
    const search = await hybrid();
    const lexical = await search.search({ queries: ['create issue', 'weather forecast'], mode: SearchMode.SEARCH_MODE_LEXICAL });
    breakIt(fake);
    const res = await search.search({ queries: ['create issue', 'weather forecast'] });
    expect(res.mode).toBe(SearchMode.SEARCH_MODE_LEXICAL);
    expect(res.note).toMatch(/^Semantic search is unavailable/);
    expect(res.note).toContain(words);
    expect(res.hits).toEqual(lexical.hits);
    expect(warnings.some((w) => w.includes('degraded to keywords'))).toBe(true);
  });

  it("gives the query's embedding at most half the time the caller has left, and none when too little is left", async () => {
    const endpoint = new OpenAiEmbeddings({ url: fake.url, retries: 0 });
    const asked: number[] = [];
    const embedder: Embedder = {
      model: endpoint.model,
      embed: (texts, options) => {
        if (options?.timeoutMs !== undefined) asked.push(options.timeoutMs);
        return endpoint.embed(texts, options);
      },
    };
    const search = await hybrid({ embedder, queryTimeoutMs: 5_000 });
    asked.length = 0;
    const roomy = await search.search({ queries: ['send email'], deadlineUnixMs: Date.now() + 4_000 });
    expect(roomy.mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBeGreaterThan(0);
    expect(asked[0]).toBeLessThanOrEqual(2_000);
    const late = await search.search({ queries: ['deliver a parcel'], deadlineUnixMs: Date.now() + 10 });
    expect(asked).toHaveLength(1); // the endpoint was not asked
    expect(late.mode).toBe(SearchMode.SEARCH_MODE_LEXICAL);
    expect(late.note).toMatch(/^Semantic search is unavailable \(too little of the request's time was left/);
    const noDeadline = await search.search({ queries: ['post a letter'] });
    expect(noDeadline.mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    expect(asked[1]).toBe(5_000);
  });

  it('keeps filters, several queries and suggestions in hybrid and semantic mode', async () => {
    const search = await hybrid();
    for (const mode of [SearchMode.SEARCH_MODE_HYBRID, SearchMode.SEARCH_MODE_SEMANTIC]) {
      const res = await search.search({ queries: ['create issue', 'send email'], provider: 'github', mode, explain: true });
      expect(res.hits.length).toBeGreaterThan(0);
      expect(res.hits.every((h) => h.provider === 'github')).toBe(true);
      const both = await search.search({ queries: ['create issue', 'send email'], mode, limit: 10 });
      expect(new Set(both.hits.flatMap((h) => h.queryIndexes))).toEqual(new Set([0, 1]));
      const none = await search.search({ queries: ['create issue'], provider: 'githib', mode });
      expect(none.hits).toEqual([]);
      expect(none.suggestions[0]).toBe('github:');
    }
  });

  it('embeds missing tools again in the background, with backoff, until the endpoint answers; the status says why it is lexical meanwhile', async () => {
    fake.behaviour = 'error';
    const search = await hybrid({ retryMinMs: 20, retryMaxMs: 200 });
    const down = search.status();
    expect(down).toMatchObject({ defaultMode: SearchMode.SEARCH_MODE_HYBRID, effectiveMode: SearchMode.SEARCH_MODE_LEXICAL, embedded: 0, tools: catalog().length + 1 });
    expect(down.lastError).toContain('HTTP 503');
    expect(down.note).toMatch(/^Lexical until tools have vectors \(no tool is embedded yet\)\. The embeddings endpoint fails: .*HTTP 503.* Retrying in \d+ s; no restart needed\.$/);
    expect(down.nextRetryUnixMs).toBeGreaterThan(0);
    // Retried with nothing else happening (no catalog change, no search).
    await waitFor(() => fake.requests >= 3, { message: 'retries of the failing endpoint' });
    fake.behaviour = 'ok';
    await waitFor(() => search.status().embedded === catalog().length + 1, { message: 'every tool embedded once the endpoint answers' });
    const up = search.status();
    expect(up).toMatchObject({ effectiveMode: SearchMode.SEARCH_MODE_HYBRID, lastError: '', nextRetryUnixMs: 0 });
    expect(up.note).toBe(`Hybrid (keywords + all-MiniLM-L6-v2-toolhub): all ${catalog().length + 1} tools embedded.`);
    expect((await search.search({ queries: ['send email'] })).mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    search.close();
  });

  it('starts no tool batch while a query is being embedded (queries first), and marks tool batches as background work', async () => {
    const calls: Array<{ texts: readonly string[]; background: boolean }> = [];
    let releaseQuery = () => {};
    const embedder: Embedder = {
      model: 'gate-test',
      async embed(texts, options = {}) {
        calls.push({ texts, background: options.background === true });
        if (!options.background) await new Promise<void>((r) => (releaseQuery = r));
        return texts.map(() => Float32Array.from([1, 0, 0]));
      },
    };
    const index = new ToolSearchIndex();
    index.upsert(catalog());
    const search = new HybridSearch(index, { embedder, embedBatch: 1, queryTimeoutMs: 60_000 });
    await search.syncVectors();
    expect(calls.every((c) => c.background)).toBe(true);
    const before = calls.length;
    const answered = search.search({ queries: ['a query'] });
    await waitFor(() => calls.length === before + 1, { message: 'the query embedding to start' });
    index.upsert([mailTool]);
    const syncing = search.syncVectors();
    // The new tool's batch waits for the query: give the event loop many turns to prove it.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(calls.length).toBe(before + 1);
    releaseQuery();
    expect((await answered).mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
    await syncing;
    expect(calls.slice(before + 1)).toEqual([{ texts: [expect.stringContaining('deliver letter')], background: true }]);
  });

  it('embeds only tools whose text changed, and nothing after a restart with the same store', async () => {
    const vectors = new MemoryVectors();
    const first = await hybrid({ vectors });
    const all = catalog().length + 1;
    expect(fake.embedded).toHaveLength(all);
    expect(vectors.data.size).toBe(all);

    fake.embedded.length = 0;
    first.index.upsert([tool('github', 'create_issue', 'Open a new issue in a repository, with labels.', { path: 'github/issues' })]);
    first.index.remove(['mailer:deliver_letter']);
    expect(await first.syncVectors()).toMatchObject({ embedded: 1, removed: 1, kept: all - 2 });
    expect(fake.embedded).toEqual([expect.stringContaining('with labels')]);

    // A restarted registry: a fresh index and search over the same store.
    fake.embedded.length = 0;
    const again = await hybrid({ vectors });
    expect(fake.embedded).toEqual([]);
    expect(again.embeddedCount).toBe(all);
  });

  it('learns which tool ran after a search and lifts it for similar searches, bounded; off when switched off', async () => {
    const search = await hybrid();
    const before = await search.search({ queries: ['repository'], limit: 10 });
    const last = before.hits[before.hits.length - 1]!;
    expect(search.recordRun(before.searchId, last.id, last.provider)).toBe(true);
    const after = await search.search({ queries: ['repository'], limit: 10, explain: true });
    const lifted = after.hits.find((h) => h.id === last.id)!;
    expect(after.hits.indexOf(lifted)).toBeLessThan(before.hits.findIndex((h) => h.id === last.id) + 1);
    expect(lifted.matchedOn).toContain('usage');
    expect(search.learned()).toEqual([expect.objectContaining({ toolId: last.id, query: 'repository' })]);
    expect(search.recordRun('no-such-search', last.id, last.provider)).toBe(false);

    const off = await hybrid({ learning: false });
    const res = await off.search({ queries: ['repository'], limit: 10 });
    expect(off.recordRun(res.searchId, last.id, last.provider)).toBe(false);
    expect((await off.search({ queries: ['repository'], limit: 10 })).hits).toEqual(res.hits);
  });
});
