/**
 * A client of the OpenAI-compatible `POST /v1/embeddings` API, so OpenAI, Ollama, vLLM, TEI,
 * LiteLLM and the local server of scripts/embeddings all work: batching, a timeout per request,
 * retries with backoff for transient failures, and strict checks of what comes back.
 */
import { DEFAULT_EMBEDDINGS_MODEL, type EmbedOptions, type Embedder, EmbeddingsError, normalize } from './embedder';

/** Options of {@link OpenAiEmbeddings}. */
export interface OpenAiEmbeddingsOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8089/v1` (`/embeddings` is appended). */
  url: string;
  /** Model name sent in each request. @default DEFAULT_EMBEDDINGS_MODEL ('all-MiniLM-L6-v2-toolhub') */
  model?: string;
  /** Bearer token, if the endpoint wants one. Never logged. @default '' */
  apiKey?: string;
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** Deadline of one request, in ms. @default 30000 */
  timeoutMs?: number;
  /** Retries of a failed request (network, 408, 429, 5xx, timeout); not of a malformed answer. @default 2 */
  retries?: number;
  /** Expected vector length; a different one is refused as `bad_response`. 0 = whatever the first answer has. @default 0 */
  dimensions?: number;
  /** Injected for tests. @default globalThis.fetch */
  fetch?: typeof fetch;
}

const RETRY_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/** An {@link Embedder} over HTTP. */
export class OpenAiEmbeddings implements Embedder {
  readonly model: string;
  private readonly endpoint: string;
  private readonly o: Required<Omit<OpenAiEmbeddingsOptions, 'url' | 'model'>>;
  /** Vector length, fixed by the option or by the first good answer. */
  private dims: number;

  constructor(options: OpenAiEmbeddingsOptions) {
    if (!/^https?:\/\//.test(options.url)) throw new EmbeddingsError('bad_response', `The embeddings URL must start with http:// or https://; got ${JSON.stringify(options.url)}.`, { retryable: false });
    this.endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
    this.model = options.model || DEFAULT_EMBEDDINGS_MODEL;
    this.o = {
      apiKey: options.apiKey ?? '',
      batchSize: Math.max(1, options.batchSize ?? 64),
      timeoutMs: Math.max(1, options.timeoutMs ?? 30_000),
      retries: Math.max(0, options.retries ?? 2),
      dimensions: options.dimensions ?? 0,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    };
    this.dims = this.o.dimensions;
  }

  /** Vector length known so far (0 before the first answer unless configured). */
  get dimensions(): number {
    return this.dims;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.o.batchSize) {
      out.push(...(await this.batch(texts.slice(i, i + this.o.batchSize), options)));
    }
    return out;
  }

  private async batch(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]> {
    const retries = options.retries ?? this.o.retries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(texts, options);
      } catch (err) {
        const e = err as EmbeddingsError;
        if (!e.retryable || attempt >= retries || options.signal?.aborted) throw e;
        // Backoff with jitter: 200 ms, 400 ms, ... (a rate-limited endpoint needs the pause).
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt * (0.5 + Math.random())));
      }
    }
  }

  private async request(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]> {
    const timeoutMs = options.timeoutMs ?? this.o.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    let body: unknown;
    try {
      res = await this.o.fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
          ...(options.background ? { 'x-embeddings-priority': 'background' } : {}),
        },
        body: JSON.stringify({ model: this.model, input: texts, encoding_format: 'float' }),
        signal,
      });
      body = await res.json().catch(() => undefined);
    } catch (err) {
      if (timeout.aborted) throw new EmbeddingsError('timeout', `The embeddings endpoint ${this.endpoint} did not answer within ${timeoutMs} ms.`, { cause: err });
      throw new EmbeddingsError('unavailable', `The embeddings endpoint ${this.endpoint} cannot be reached: ${(err as Error).message}`, { cause: err, retryable: !options.signal?.aborted });
    }
    if (!res.ok) {
      const detail = (body as { error?: { message?: string } } | undefined)?.error?.message ?? '';
      throw new EmbeddingsError('unavailable', `The embeddings endpoint ${this.endpoint} answered HTTP ${res.status}${detail ? `: ${detail.slice(0, 200)}` : ''}.`, {
        retryable: RETRY_STATUS.has(res.status),
      });
    }
    return this.vectors(body, texts.length);
  }

  /** The vectors of an answer, in input order; anything malformed is refused. */
  private vectors(body: unknown, count: number): Float32Array[] {
    const data = (body as { data?: unknown } | undefined)?.data;
    const bad = (why: string) => new EmbeddingsError('bad_response', `The embeddings endpoint ${this.endpoint} answered ${why}.`, { retryable: false });
    if (!Array.isArray(data) || data.length !== count) throw bad(`${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`);
    const out = new Array<Float32Array>(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      const e = item?.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= count || out[index]) throw bad(`a vector with a bad or repeated index ${JSON.stringify(index)}`);
      if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('a vector that is not a list of finite numbers');
      if (this.dims === 0) this.dims = e.length;
      if (e.length !== this.dims) throw bad(`vectors of ${e.length} dimensions where ${this.dims} are expected (model ${this.model})`);
      out[index] = normalize(Float32Array.from(e as number[]));
    });
    return out;
  }
}
