/**
 * @toolhub/search/testing — a fake OpenAI-compatible embeddings endpoint over real HTTP, for
 * tests of what the hybrid search does when the endpoint works, fails, is slow or answers vectors
 * of the wrong length. Its vectors are feature-hashed words with a few synonym groups folded, so
 * similar texts get similar vectors without a model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake endpoint behaves; change it at any time. */
export type FakeEmbeddingsBehaviour = 'ok' | 'error' | 'slow' | 'wrong-dimensions';

/** A running fake endpoint. */
export interface FakeEmbeddingsServer {
  /** Base URL to give OpenAiEmbeddings (`…/v1`). */
  readonly url: string;
  behaviour: FakeEmbeddingsBehaviour;
  /** Delay of a `slow` answer, in ms. @default 5000 */
  slowMs: number;
  /** Texts embedded so far (every `ok` answer adds its inputs). */
  readonly embedded: string[];
  /** Requests received, of any outcome. */
  requests: number;
  close(): Promise<void>;
}

/** Words that mean the same for the fake model (a real one learns these). */
const CONCEPTS: ReadonlyArray<readonly string[]> = [
  ['email', 'mail', 'message', 'inbox', 'letter'],
  ['weather', 'forecast', 'temperature', 'rain'],
  ['picture', 'image', 'photo'],
  ['money', 'currency', 'exchange', 'dollars', 'euros'],
];

function bucket(word: string, dims: number): number {
  const concept = CONCEPTS.findIndex((c) => c.includes(word));
  if (concept >= 0) return concept;
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return CONCEPTS.length + ((h >>> 0) % (dims - CONCEPTS.length));
}

/** The fake model's vector of `text` (not normalised; the client normalises). */
export function fakeVector(text: string, dims = 64): number[] {
  const v = Array.from({ length: dims }, () => 0);
  for (const w of text.toLowerCase().split(/[^a-z0-9]+/).filter((x) => x.length > 2)) v[bucket(w.replace(/s$/, ''), dims)]! += 1;
  if (!v.some((x) => x > 0)) v[dims - 1] = 1;
  return v;
}

/** Starts the fake endpoint on a free loopback port. */
export async function startFakeEmbeddingsServer(options: { dims?: number } = {}): Promise<FakeEmbeddingsServer> {
  const dims = options.dims ?? 64;
  const pending = new Set<ServerResponse>();
  const state = {
    behaviour: 'ok' as FakeEmbeddingsBehaviour,
    slowMs: 5000,
    embedded: [] as string[],
    requests: 0,
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    pending.delete(res);
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      state.requests++;
      pending.add(res);
      const input = (JSON.parse(raw || '{}') as { input?: string | string[] }).input ?? [];
      const texts = typeof input === 'string' ? [input] : input;
      const answer = (d: number) => ({ object: 'list', data: texts.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t, d) })), model: 'fake' });
      switch (state.behaviour) {
        case 'error':
          return send(res, 503, { error: { message: 'model is loading' } });
        case 'slow':
          return void setTimeout(() => send(res, 200, answer(dims)), state.slowMs).unref();
        case 'wrong-dimensions':
          return send(res, 200, answer(dims + 3));
        default:
          state.embedded.push(...texts);
          return send(res, 200, answer(dims));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const handle = Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      for (const res of pending) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return handle;
}

export { embeddingsPython, exportedModelDir, freePort, type LocalEmbeddingsServer, startLocalEmbeddings } from './local-embeddings-server';
