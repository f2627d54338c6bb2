/**
 * The real local embeddings server (scripts/embeddings, all-MiniLM-L6-v2 in numpy) behind
 * OpenAiEmbeddings and HybridSearch. Installs its Python packages from PyPI on a fresh machine
 * (into their virtual environment: scripts/services.sh embeddings-python) and embeds a handful of texts, so it stays cheap.
 */
import { SearchMode } from '@toolhub/contracts';
import { HybridSearch, OpenAiEmbeddings, ToolSearchIndex } from '@toolhub/search';

import { catalog, tool } from './fixtures';
import { type LocalEmbeddingsServer, startLocalEmbeddings } from '@toolhub/search/testing';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('the local embeddings server', () => {
  let url = '';
  let server: LocalEmbeddingsServer | undefined;

  beforeAll(async () => {
    server = await startLocalEmbeddings();
    url = server.url;
  }, 660_000);
  afterAll(() => server?.stop());

  it('gives the reference similarity of all-MiniLM-L6-v2 (sentence-transformers docs: 0.7553)', async () => {
    const [a, b, c] = await new OpenAiEmbeddings({ url }).embed(['A man is eating food.', 'A man is eating a piece of bread.', 'A man is riding a horse.']);
    expect(a).toHaveLength(384);
    expect(dot(a!, b!)).toBeCloseTo(0.7553, 3);
    expect(dot(a!, c!)).toBeLessThan(0.4);
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
