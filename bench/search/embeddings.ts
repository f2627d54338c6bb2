/**
 * Embeddings for the search benchmarks: the local server of scripts/embeddings (started here
 * unless TOOLHUB_EMBEDDINGS_URL names an endpoint) and a file cache of vectors under the
 * git-ignored bench/results/cache/, so a second run embeds nothing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type EmbedOptions, type Embedder, embeddingKey, type VectorStore } from '@toolhub/search';

import { REPO_ROOT, RESULTS_DIR } from './data';

/** An embeddings endpoint for a benchmark run; `stop` ends the server if this process started it. */
export async function benchEmbeddings(): Promise<{ url: string; started: boolean; stop: () => void }> {
  const given = process.env.TOOLHUB_EMBEDDINGS_URL;
  if (given) return { url: given, started: false, stop: () => undefined };
  const portFile = join(tmpdir(), `toolhub-bench-embeddings-${process.pid}.port`);
  // The server's own virtual environment (scripts/services.sh installs it there once), unless PYTHON names one.
  const python = process.env.PYTHON ?? execFileSync('bash', [join(REPO_ROOT, 'scripts/services.sh'), 'embeddings-python'], { stdio: ['ignore', 'pipe', 'inherit'] }).toString().trim();
  const child: ChildProcess = spawn(python, [join(REPO_ROOT, 'scripts/embeddings/server.py'), '--port', '0', '--port-file', portFile, '--quiet'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = () => {
    child.kill('SIGTERM');
    rmSync(portFile, { force: true });
  };
  for (let i = 0; i < 600 && !existsSync(portFile); i++) {
    if (child.exitCode !== null) throw new Error('The local embeddings server exited; install it with: bash scripts/services.sh install-embeddings');
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!existsSync(portFile)) {
    stop();
    throw new Error('The local embeddings server did not start within 60 s.');
  }
  return { url: `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}/v1`, started: true, stop };
}

/**
 * The folder of `model` exported to ONNX (scripts/services.sh embeddings-model, which exports it
 * once per machine and version of the weights), for in-process embeddings in a benchmark.
 */
export function benchModelDir(model: string): string {
  return execFileSync('bash', [join(REPO_ROOT, 'scripts/services.sh'), 'embeddings-model'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TOOLHUB_EMBEDDINGS_MODEL: model, TOOLHUB_EMBEDDINGS_MODEL_DIR: '' } })
    .toString()
    .trim()
    .replace(/^export TOOLHUB_EMBEDDINGS_MODEL_DIR=/, '');
}

/** Vectors in an append-only JSON Lines file per model (key, base64 of the float32 bytes). */
export class FileVectorStore implements VectorStore {
  private readonly loaded = new Map<string, Map<string, Float32Array>>();

  constructor(private readonly dir = join(RESULTS_DIR, 'cache')) {
    mkdirSync(dir, { recursive: true });
  }

  private file(model: string): string {
    return join(this.dir, `vectors-${model.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
  }

  private all(model: string): Map<string, Float32Array> {
    let m = this.loaded.get(model);
    if (m) return m;
    m = new Map();
    const f = this.file(model);
    if (existsSync(f)) {
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        if (!line) continue;
        const [k, b64] = JSON.parse(line) as [string, string];
        const buf = Buffer.from(b64, 'base64');
        m.set(k, new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4));
      }
    }
    this.loaded.set(model, m);
    return m;
  }

  async loadVectors(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const all = this.all(model);
    return new Map(keys.filter((k) => all.has(k)).map((k) => [k, all.get(k)!]));
  }

  async saveVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    const all = this.all(model);
    const lines: string[] = [];
    for (const [k, v] of vectors) {
      if (all.has(k)) continue;
      all.set(k, v);
      lines.push(JSON.stringify([k, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')]));
    }
    if (lines.length) appendFileSync(this.file(model), lines.join('\n') + '\n');
  }
}

/**
 * The cache file name of the vectors an ONNX export makes: the model's name for model.onnx (the
 * same vectors as the local server's), `<model>@int8` for model.int8.onnx.
 */
export function cacheNameOf(model: string, file: string): string {
  const base = file.split('/').pop()!;
  return base === 'model.onnx' ? model : `${model}@${base.replace(/^model\./, '').replace(/\.onnx$/, '')}`;
}

/** `store` with every model name replaced by `as` (tool vectors of one export kept apart from another's). */
export function storeAs(store: VectorStore, as: string): VectorStore {
  return { loadVectors: (_model, keys) => store.loadVectors(as, keys), saveVectors: (_model, vectors) => store.saveVectors(as, vectors) };
}

/** An embedder that answers from a {@link FileVectorStore} first (queries repeat across runs) and counts real calls. */
export class CachedEmbedder implements Embedder {
  readonly model: string;
  /** Texts sent to the endpoint and time spent there. */
  calls = 0;
  texts = 0;
  ms = 0;

  /**
   * `cacheAs`: the cache file of queries and of tool texts (`background`), when not the model's name.
   * `distinctQueries`: the model embeds a query and a tool text differently (prefixes: e5's
   * "query: "), so their vectors are cached under different keys.
   */
  constructor(
    private readonly inner: Embedder,
    private readonly store: FileVectorStore,
    private readonly cacheAs: { queries?: string; tools?: string } = {},
    private readonly distinctQueries = false,
  ) {
    this.model = inner.model;
  }

  async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    const name = (options?.background ? this.cacheAs.tools : this.cacheAs.queries) ?? this.model;
    const query = this.distinctQueries && (options?.input ?? (options?.background ? 'document' : 'query')) === 'query';
    const keys = texts.map((t) => embeddingKey(this.model, query ? `\u0000query\u0000${t}` : t));
    const have = await this.store.loadVectors(name, keys);
    const missing = [...new Set(texts.filter((_, i) => !have.has(keys[i]!)))];
    if (missing.length) {
      const t0 = performance.now();
      // Large batches (cached after) in slices, so an in-process model does not pad thousands of texts at once.
      const got: Float32Array[] = [];
      for (let i = 0; i < missing.length; i += 256) got.push(...(await this.inner.embed(missing.slice(i, i + 256), { ...options, timeoutMs: 600_000 })));
      this.ms += performance.now() - t0;
      this.calls++;
      this.texts += missing.length;
      const fresh = new Map(missing.map((t, i) => [embeddingKey(this.model, query ? `\u0000query\u0000${t}` : t), got[i]!]));
      await this.store.saveVectors(name, fresh);
      for (const [k, v] of fresh) have.set(k, v);
    }
    return keys.map((k) => have.get(k)!);
  }
}
