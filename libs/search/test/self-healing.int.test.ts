/**
 * A tool batch that times out is embedded again in the background, against the real local
 * embeddings server (scripts/embeddings): a pass-through HTTP proxy in front of it holds the first
 * tool batch past the client's timeout and forwards every later request unchanged.
 */
import { SearchMode } from '@toolhub/contracts';
import { HybridSearch, OpenAiEmbeddings, ToolSearchIndex } from '@toolhub/search';
import { type LocalEmbeddingsServer, startLocalEmbeddings } from '@toolhub/search/testing';
import { waitFor } from '@toolhub/test-harness';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { catalog } from './fixtures';

let upstream: LocalEmbeddingsServer | undefined;
let proxy: Server | undefined;
const seen: Array<{ background: boolean; inputs: string[]; held: boolean }> = [];

beforeAll(async () => {
  upstream = await startLocalEmbeddings();
  proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const background = req.headers['x-embeddings-priority'] === 'background';
      const held = background && !seen.some((s) => s.held);
      seen.push({ background, inputs: (JSON.parse(body.toString()) as { input: string[] }).input, held });
      if (held) return; // never answered: the client's timeout ends it
      void fetch(`${upstream!.url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer())))
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
}, 660_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await upstream?.stop();
});

it('embeds again, in the background, the tools of a batch that timed out', async () => {
  const url = `http://127.0.0.1:${(proxy!.address() as AddressInfo).port}/v1`;
  const index = new ToolSearchIndex();
  index.upsert(catalog());
  // No retry inside the client: the timed-out batch is left to the search's background retries.
  const search = new HybridSearch(index, { embedder: new OpenAiEmbeddings({ url, timeoutMs: 3000, retries: 0 }), embedBatch: 2, retryMinMs: 100, queryTimeoutMs: 30_000 });
  const first = await search.syncVectors();
  expect(first.missing).toBe(catalog().length);
  expect(search.status().lastError).toContain('did not answer within 3000 ms');
  expect(search.status().nextRetryUnixMs).toBeGreaterThan(0);

  await waitFor(() => search.status().embedded === catalog().length, { timeoutMs: 120_000, intervalMs: 100, message: 'every tool embedded after the timed-out batch' });
  const held = seen.find((s) => s.held)!;
  // The held batch's texts were sent again, and every tool batch was marked as background work.
  expect(seen.filter((s) => !s.held && s.inputs.join('\n') === held.inputs.join('\n')).length).toBeGreaterThanOrEqual(1);
  expect(seen.every((s) => s.background)).toBe(true);
  expect(search.status()).toMatchObject({ effectiveMode: SearchMode.SEARCH_MODE_HYBRID, lastError: '', nextRetryUnixMs: 0 });
  expect((await search.search({ queries: ['open a new issue'] })).mode).toBe(SearchMode.SEARCH_MODE_HYBRID);
  search.close();
}, 180_000);
