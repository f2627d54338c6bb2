/**
 * The real local embeddings server (scripts/embeddings, all-MiniLM-L6-v2 in numpy, by default with
 * the layers tuned for finding tools) behind OpenAiEmbeddings and HybridSearch. Installs its Python packages from PyPI on a fresh machine
 * (into their virtual environment: scripts/services.sh embeddings-python) and embeds a handful of texts, so it stays cheap.
 */
import { SearchMode } from '@toolhub/contracts';
import { DEFAULT_EMBEDDINGS_MODEL, HybridSearch, OpenAiEmbeddings, ToolSearchIndex } from '@toolhub/search';

import { dot } from './embedding-helpers';
import { catalog, tool } from './fixtures';
import { type LocalEmbeddingsServer, startLocalEmbeddings } from '@toolhub/search/testing';


describe('the local embeddings server', () => {
  let url = '';
  let server: LocalEmbeddingsServer | undefined;
  let base: LocalEmbeddingsServer | undefined;
  const sentences = ['A man is eating food.', 'A man is eating a piece of bread.', 'A man is riding a horse.'];

  beforeAll(async () => {
    server = await startLocalEmbeddings();
    url = server.url;
    base = await startLocalEmbeddings(0, 'all-MiniLM-L6-v2');
  }, 660_000);
  afterAll(async () => {
    await server?.stop();
    await base?.stop();
  });

  it('gives the reference similarity of all-MiniLM-L6-v2 (sentence-transformers docs: 0.7553) when started with the base model', async () => {
    const [a, b, c] = await new OpenAiEmbeddings({ url: base!.url, model: 'all-MiniLM-L6-v2' }).embed(sentences);
    expect(a).toHaveLength(384);
    expect(dot(a!, b!)).toBeCloseTo(0.7553, 3);
    expect(dot(a!, c!)).toBeLessThan(0.4);
  }, 120_000);

  it('serves the tuned model by default, and refuses a request for the other local model', async () => {
    const health = (await (await fetch(url.replace(/\/v1$/, '/health'))).json()) as { model: string };
    expect(health.model).toBe(DEFAULT_EMBEDDINGS_MODEL);
    const [tuned] = await new OpenAiEmbeddings({ url }).embed(sentences.slice(0, 1));
    const [plain] = await new OpenAiEmbeddings({ url: base!.url, model: 'all-MiniLM-L6-v2' }).embed(sentences.slice(0, 1));
    // The tuned layers are laid over the base weights: close to the base vector, not equal to it.
    expect(dot(tuned!, plain!)).toBeLessThan(0.999);
    expect(dot(tuned!, plain!)).toBeGreaterThan(0.5);
    await expect(new OpenAiEmbeddings({ url, model: 'all-MiniLM-L6-v2' }).embed(['x'])).rejects.toThrow(/HTTP 400: .*serves all-MiniLM-L6-v2-toolhub, not all-MiniLM-L6-v2/);
  }, 120_000);

  it('lets a hybrid search find a tool by meaning', async () => {
    const index = new ToolSearchIndex();
    index.upsert([...catalog(), tool('post', 'deliver_letter', 'Deliver a letter to a recipient inbox.')]);
    const search = new HybridSearch(index, { embedder: new OpenAiEmbeddings({ url }), queryTimeoutMs: 60_000 });
    expect(await search.syncVectors()).toMatchObject({ missing: 0 });
    const res = await search.search({ queries: ['write an e-mail to a colleague'], mode: SearchMode.SEARCH_MODE_SEMANTIC, limit: 3 });
    expect(res.note).toBe('');
    expect(res.hits.map((h) => h.id)).toContain('post:deliver_letter');
  }, 300_000);
});
