/** The embeddings port: what the hybrid search needs from a sentence-embedding model. */

import { findCause } from '@toolhub/contracts';

/** Per-call overrides of an {@link Embedder}'s defaults. */
export interface EmbedOptions {
  signal?: AbortSignal;
  /** Deadline of each request, in ms. */
  timeoutMs?: number;
  /** Retries of a failed request (0 when an agent is waiting). */
  retries?: number;
  /**
   * Bulk work no one waits on (tool texts): sent with `X-Embeddings-Priority: background`, which
   * the local server (scripts/embeddings) answers after every waiting query; others ignore it.
   */
  background?: boolean;
  /**
   * What the texts are, for models that embed queries and documents with different prefixes
   * (e5: "query: " / "passage: "; see OnnxEmbeddings). @default 'document' when `background`, else 'query'
   */
  input?: 'query' | 'document';
}

/** Turns texts into vectors of one model. */
export interface Embedder {
  /** Model name; stored vectors are keyed by it, so a new model re-embeds every tool. */
  readonly model: string;
  /**
   * One unit-length (or any, they are normalised) vector per text, in order, all of the same length.
   * @throws EmbeddingsError when the endpoint fails, times out or answers malformed vectors.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** Why embedding failed: the endpoint could not be reached or failed, took too long, or answered nonsense. */
export type EmbeddingsErrorCode = 'unavailable' | 'timeout' | 'bad_response';

/** An embeddings call that failed; search answers lexically instead. */
export class EmbeddingsError extends Error {
  override readonly name = 'EmbeddingsError';

  constructor(
    readonly code: EmbeddingsErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? code !== 'bad_response';
  }

  /** A retry may succeed (network failure, 429, 5xx, timeout). */
  readonly retryable: boolean;
}

/** Type guard that follows `cause` chains. */
export function isEmbeddingsError(err: unknown): err is EmbeddingsError {
  return findCause(err, (e): e is EmbeddingsError => e instanceof EmbeddingsError) !== undefined;
}

/** `v` scaled to unit length (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const n = Math.sqrt(sum);
  if (n === 0 || Math.abs(n - 1) < 1e-6) return v;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

/**
 * The model ToolHub asks for when none is configured: all-MiniLM-L6-v2 tuned for finding tools
 * (scripts/embeddings/tuned; the local server and the ONNX export serve it by default). The base
 * model, `all-MiniLM-L6-v2`, stays selectable (TOOLHUB_EMBEDDINGS_MODEL).
 */
export const DEFAULT_EMBEDDINGS_MODEL = 'all-MiniLM-L6-v2-toolhub';
