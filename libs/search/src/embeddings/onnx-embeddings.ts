/**
 * Sentence embeddings in process: an exported ONNX model (scripts/embeddings/export_onnx.py) run
 * by onnxruntime-node, with its WordPiece tokenizer in plain JavaScript. A query costs a few
 * milliseconds and no network round trip (bench/search). onnxruntime-node (1.30) runs the model
 * synchronously on this thread (in a setImmediate), so each run holds the event loop: tool texts go
 * one per run by default (`batchSize`), and a query waits for one text's run at most.
 *
 * The native runtime is loaded on first use, only in processes configured with a model directory.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type * as OnnxRuntime from 'onnxruntime-node';

import { DEFAULT_EMBEDDINGS_MODEL, type EmbedOptions, type Embedder, EmbeddingsError } from './embedder';
import { type OnnxModelCard, parseModelCard, prefixFor } from './onnx-model-card';
import { poolSentences } from './pooling';

/** Options of {@link OnnxEmbeddings}. */
export interface OnnxEmbeddingsOptions {
  /** Folder written by export_onnx.py or fetch-jar-model.mjs: model.onnx, tokenizer.json, tokenizer_config.json, toolhub-model.json (the card: pooling, prefixes). */
  modelDir: string;
  /** The model the folder must hold (its toolhub-model.json says); stored vectors are keyed by it. @default DEFAULT_EMBEDDINGS_MODEL ('all-MiniLM-L6-v2-toolhub') */
  model?: string;
  /**
   * Texts per run when embedding tools with the float model (sorted by length; the int8 one runs one
   * text at a time). @default 1: measured on real tool texts (bench/search tool-batch.bench.ts), one
   * per run embedded twice as many per second as 16 (padding and attention over the longest text
   * of a batch cost more than a batch saves), and a query waiting behind a run waited 45 ms at p99
   * instead of 680.
   */
  batchSize?: number;
  /** onnxruntime threads per run. @default 1 (queries are short; tool batches leave cores to the rest) */
  threads?: number;
  /**
   * Which export answers queries: `int8` (model.int8.onnx, weights quantised per channel, about
   * twice as fast) or `float` (model.onnx). @default 'int8' when the folder has it
   */
  queryPrecision?: OnnxPrecision;
  /**
   * Which export embeds tool texts (calls with `background`), whose vectors are stored: `float`
   * keeps them the same as the local server's (scripts/embeddings), so stores stay comparable.
   * @default 'float'
   */
  toolPrecision?: OnnxPrecision;
  /** onnxruntime session options laid over ToolHub's (benchmarks: graph optimisation, arena). */
  sessionOptions?: Record<string, unknown>;
}

/** The two exports of scripts/embeddings/export_onnx.py. */
export type OnnxPrecision = 'int8' | 'float';

type ModelCard = OnnxModelCard & {
  /** The int8 export's file, when the folder has one (older exports and jar-published models do not). */
  int8File?: string;
};

type OrtModule = typeof OnnxRuntime;
type Session = Awaited<ReturnType<OrtModule['InferenceSession']['create']>>;
interface WordPiece {
  encode(text: string): { ids: number[] };
}

interface Loaded {
  ort: OrtModule;
  tokenizer: WordPiece;
  card: ModelCard;
}

/** An {@link Embedder} that runs the model in this process. */
export class OnnxEmbeddings implements Embedder {
  readonly model: string;
  private loading: Promise<Loaded> | undefined;
  private readonly sessions = new Map<string, Promise<Session>>();

  constructor(private readonly options: OnnxEmbeddingsOptions) {
    this.model = options.model || DEFAULT_EMBEDDINGS_MODEL;
  }

  /** Loads the model now (start-up), so the first query does not pay for it (the tool model loads on first use). */
  async load(): Promise<ModelCard> {
    const loaded = await this.loaded();
    await this.session(loaded, false);
    return loaded.card;
  }

  /** The ONNX file that answers queries (`forTools` false) or embeds tool texts, in this folder. */
  async modelFile(forTools = false): Promise<string> {
    return join(this.options.modelDir, this.fileOf(await this.loaded(), forTools));
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (options.signal?.aborted) throw new EmbeddingsError('timeout', 'The embedding was cancelled before it started.');
    const loaded = await this.loaded();
    const { ort, tokenizer, card } = loaded;
    const file = this.fileOf(loaded, options.background === true);
    const session = await this.session(loaded, options.background === true);
    const prefix = prefixFor(card, options.input ?? (options.background ? 'document' : 'query'));
    const encoded = texts.map((t) => truncate(tokenizer.encode(prefix + t).ids, card.maxTokens));
    const out = new Array<Float32Array>(texts.length);
    // Similar lengths in one run: padding is wasted work.
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    // The int8 model quantises activations with one scale per run, so a text's vector would depend
    // on what it was batched with (cosine ~0.98 between alone and in a batch): one text per run.
    const batch = file === 'model.onnx' ? Math.max(1, this.options.batchSize ?? 1) : 1;
    for (let start = 0; start < order.length; start += batch) {
      const idx = order.slice(start, start + batch);
      const width = Math.max(1, ...idx.map((i) => encoded[i]!.length));
      const ids = new BigInt64Array(idx.length * width);
      const mask = new BigInt64Array(idx.length * width);
      idx.forEach((i, row) => {
        encoded[i]!.forEach((id, col) => {
          ids[row * width + col] = BigInt(id);
          mask[row * width + col] = 1n;
        });
      });
      let result: Record<string, { data: unknown; dims: readonly number[] }>;
      try {
        const feeds: Record<string, OnnxRuntime.Tensor> = { input_ids: new ort.Tensor('int64', ids, [idx.length, width]), attention_mask: new ort.Tensor('int64', mask, [idx.length, width]) };
        // Graphs exported by others (the jar-published ones) also take the segment ids: all 0 for one text.
        if (session.inputNames.includes('token_type_ids')) feeds['token_type_ids'] = new ort.Tensor('int64', new BigInt64Array(idx.length * width), [idx.length, width]);
        result = await session.run(feeds);
      } catch (err) {
        throw new EmbeddingsError('unavailable', `The in-process model failed to run: ${(err as Error).message}`, { cause: err, retryable: false });
      }
      if (card.pooling) {
        const states = result['last_hidden_state'];
        if (!states || !(states.data instanceof Float32Array) || states.dims.length !== 3 || states.dims[2] !== card.dimensions) {
          throw new EmbeddingsError('bad_response', `The model in ${this.options.modelDir} answered no [batch, tokens, ${card.dimensions}] last_hidden_state output, which its card's pooling needs; fetch it again with bash scripts/services.sh embeddings-model.`);
        }
        const pooled = poolSentences(states.data, states.dims, idx.map((i) => encoded[i]!.length), card.pooling);
        idx.forEach((i, row) => (out[i] = pooled[row]!));
        continue;
      }
      const vectors = result['sentence_embedding'];
      if (!vectors || !(vectors.data instanceof Float32Array) || vectors.dims[1] !== card.dimensions) {
        throw new EmbeddingsError('bad_response', `The model in ${this.options.modelDir} answered no [batch, ${card.dimensions}] sentence_embedding output; export it again with scripts/embeddings/export_onnx.py.`);
      }
      idx.forEach((i, row) => {
        out[i] = vectors.data instanceof Float32Array ? vectors.data.slice(row * card.dimensions, (row + 1) * card.dimensions) : new Float32Array(0);
      });
    }
    return out;
  }

  private loaded(): Promise<Loaded> {
    this.loading ??= this.load_().catch((err: unknown) => {
      // A later call tries again (the folder may be written meanwhile).
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }

  private async load_(): Promise<Loaded> {
    const dir = this.options.modelDir;
    const read = async (name: string) => {
      try {
        return JSON.parse(await readFile(join(dir, name), 'utf8')) as Record<string, unknown>;
      } catch (err) {
        throw new EmbeddingsError('unavailable', `The embeddings model folder ${dir} has no readable ${name} (${(err as Error).message}); create it with: bash scripts/services.sh embeddings-model`, { cause: err, retryable: false });
      }
    };
    const [cardJson, tokenizerJson, tokenizerConfig] = await Promise.all([read('toolhub-model.json'), read('tokenizer.json'), read('tokenizer_config.json')]);
    const card: ModelCard = parseModelCard(cardJson, join(dir, 'toolhub-model.json'));
    if (card.model !== this.model) {
      throw new EmbeddingsError('bad_response', `The folder ${dir} holds the model ${JSON.stringify(card.model)}, but ${JSON.stringify(this.model)} is configured (TOOLHUB_EMBEDDINGS_MODEL); set one to match the other.`, { retryable: false });
    }
    const int8 = cardJson['int8'] as { file?: unknown } | undefined;
    if (typeof int8?.file === 'string' && /^[\w.-]+$/.test(int8.file)) card.int8File = int8.file;
    const ort = (await import('onnxruntime-node')) as OrtModule;
    const { Tokenizer } = (await import('@huggingface/tokenizers')) as { Tokenizer: new (json: object, config: object) => WordPiece };
    return { ort, tokenizer: new Tokenizer(tokenizerJson, tokenizerConfig), card };
  }

  private fileOf({ card }: Loaded, forTools: boolean): string {
    const precision = forTools ? (this.options.toolPrecision ?? 'float') : this.options.queryPrecision;
    if (precision === 'float') return 'model.onnx';
    if (card.int8File) return card.int8File;
    if (precision === 'int8') {
      throw new EmbeddingsError('unavailable', `The embeddings model folder ${this.options.modelDir} has no int8 export (an export older than model.int8.onnx); export it again with: bash scripts/services.sh embeddings-model, or set TOOLHUB_EMBEDDINGS_PRECISION=float.`, { retryable: false });
    }
    return 'model.onnx'; // the default with an older export: the float model it has
  }

  /** One onnxruntime session per file: queries and tool texts share it when their precision is the same. */
  private session(loaded: Loaded, forTools: boolean): Promise<Session> {
    const file = join(this.options.modelDir, this.fileOf(loaded, forTools));
    let session = this.sessions.get(file);
    if (!session) {
      const threads = Math.max(1, this.options.threads ?? 1);
      session = loaded.ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', ...this.options.sessionOptions }).catch((err: unknown) => {
        this.sessions.delete(file);
        throw new EmbeddingsError('unavailable', `onnxruntime could not load ${file}: ${(err as Error).message}`, { cause: err, retryable: false });
      });
      this.sessions.set(file, session);
    }
    return session;
  }
}

/** BERT's truncation: the first tokens and the closing [SEP], at most `max` in all. */
function truncate(ids: number[], max: number): number[] {
  if (ids.length <= max) return ids;
  return [...ids.slice(0, max - 1), ids[ids.length - 1]!];
}
