/**
 * Hybrid search that heals itself, seen where a person sees it: a ToolHub whose embeddings
 * endpoint is not up yet answers by keywords and says why (CLI text and --json, GetStatus); the
 * real local embeddings server (scripts/embeddings, all-MiniLM-L6-v2-toolhub by default) started afterwards makes it
 * hybrid within a minute, with no restart and no catalog change.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { type GetStatusResponse, SearchMode, ToolHubClient } from '@toolhub/contracts';
import { OpenAiEmbeddings } from '@toolhub/search';
import { embeddingsPython, freePort, type LocalEmbeddingsServer, startLocalEmbeddings } from '@toolhub/search/testing';
import { waitFor } from '@toolhub/test-harness';

import { type CliResult, cliRunner } from './support/run-cli';
import { startTestHub, type TestHub } from './support/toolhub';

let hub: TestHub;
let server: LocalEmbeddingsServer | undefined;
let port = 0;
let cli: (args: string[]) => Promise<CliResult>;

function getStatus(address: string): Promise<GetStatusResponse> {
  const client = new ToolHubClient(address, credentials.createInsecure());
  return new Promise<GetStatusResponse>((resolve, reject) =>
    client.getStatus({}, new Metadata(), { deadline: new Date(Date.now() + 10_000) }, (err, res) => (client.close(), err ? reject(err) : resolve(res))),
  ).finally(() => client.close());
}

beforeAll(async () => {
  embeddingsPython(); // installs the server's packages on a fresh machine, before the clock matters
  port = await freePort();
  hub = await startTestHub({
    // Queries may take seconds on a busy CI machine; the dispatcher's deadline still bounds them.
    search: { embedder: new OpenAiEmbeddings({ url: `http://127.0.0.1:${port}/v1` }), queryTimeoutMs: 30_000 },
  });
  cli = cliRunner({ TOOLHUB_ADDRESS: hub.address, TOOLHUB_ADMIN_ADDRESS: hub.adminAddress, USER: 'ops-alice' });
}, 660_000);

afterAll(async () => {
  await hub?.close();
  await server?.stop();
});

it('answers by keywords and says why while the embeddings server is down, then turns hybrid within a minute of its start, without a restart', async () => {
  // The first attempt at embedding the catalog fails in the background (connection refused, after the client's own retries).
  const down = await waitFor(async () => {
    const s = await getStatus(hub.address);
    return s.search?.lastError && s.search.nextRetryUnixMs > 0 ? s : undefined;
  }, { timeoutMs: 30_000, message: 'the first failed attempt at embedding the tools' });
  expect(down.search).toMatchObject({ reported: true, defaultMode: SearchMode.SEARCH_MODE_HYBRID, effectiveMode: SearchMode.SEARCH_MODE_LEXICAL, toolsEmbedded: 0, embeddingsModel: 'all-MiniLM-L6-v2-toolhub' });
  expect(down.search!.tools).toBeGreaterThan(10);
  expect(down.search!.lastError).toContain(`127.0.0.1:${port}`);
  expect(down.search!.note).toMatch(/^Lexical until tools have vectors .* Retrying in \d+ s; no restart needed\.$/);

  const text = await cli(['search', 'convert', 'json', 'to', 'csv']);
  expect(text.code).toBe(0);
  expect(text.stderr).toMatch(/^mode: lexical — Semantic search is not ready \(no tool is embedded yet\); answered by keywords\.$/m);
  expect(text.stdout).toContain('local:data_json_to_csv');

  server = await startLocalEmbeddings(port);
  const started = Date.now();
  const healed = await waitFor(
    async () => {
      const s = (await getStatus(hub.address)).search!;
      return s.effectiveMode === SearchMode.SEARCH_MODE_HYBRID && s.toolsEmbedded === s.tools ? s : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, message: 'every tool embedded and search hybrid within a minute of the embeddings server starting' },
  ).catch(async (err: Error) => {
    throw new Error(`${err.message}; status: ${JSON.stringify((await getStatus(hub.address)).search)}`);
  });
  expect(healed.note).toBe(`Hybrid (keywords + all-MiniLM-L6-v2-toolhub): all ${healed.tools} tools embedded.`);
  expect(healed.lastError).toBe('');
  expect(Date.now() - started).toBeLessThan(60_000);

  // A query's own embedding may still miss the dispatcher's deadline on a very busy machine (the
  // answer is then lexical with a note, by design); it is asked again until it makes it.
  type Doc = { mode: string; requestedMode: string; note: string; hits: { id: string }[] };
  let last: Doc | undefined;
  const doc = await waitFor(
    async () => {
      last = (await cli(['--timeout', '30000', 'search', '--mode', 'hybrid', 'turn json records into a csv table', '--json'])).json<Doc>();
      return last.mode === 'hybrid' ? last : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, message: 'a hybrid answer through the CLI' },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; last answer: ${JSON.stringify(last)}`);
  });
  expect(doc).toMatchObject({ mode: 'hybrid', requestedMode: 'hybrid', note: '' });
  expect(doc.hits[0]!.id).toBe('local:data_json_to_csv');
  const hybridText = await cli(['--timeout', '30000', 'search', 'turn', 'json', 'records', 'into', 'a', 'csv', 'table']);
  expect(hybridText.stderr).toMatch(/^mode: hybrid$/m);
}, 180_000);
