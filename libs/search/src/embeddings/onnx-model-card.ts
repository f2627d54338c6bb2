/**
 * The card of an in-process model folder (toolhub-model.json): written by export_onnx.py for the
 * MiniLM models (whose graph pools and normalises: output `sentence_embedding`) and by
 * fetch-jar-model.mjs for the jar-published ones (output `last_hidden_state`, pooled here as the
 * card says, with the model's query/document prefixes).
 */
import { EmbeddingsError } from './embedder';
import type { EmbedInput, Pooling } from './pooling';

export interface OnnxModelCard {
  model: string;
  dimensions: number;
  /** Tokens per text, [CLS] and [SEP] included; longer texts are cut. */
  maxTokens: number;
  /** Absent: the graph answers `sentence_embedding` (pooled and normalised in the graph). */
  pooling?: Pooling;
  /** Put before each query (e5: "query: "). */
  queryPrefix: string;
  /** Put before each tool text (e5: "passage: "). */
  documentPrefix: string;
}

/**
 * Reads a parsed toolhub-model.json.
 * @throws EmbeddingsError bad_response when it names no model, dimensions, or an unknown pooling.
 */
export function parseModelCard(json: Record<string, unknown>, file: string): OnnxModelCard {
  const card: OnnxModelCard = {
    model: typeof json['model'] === 'string' ? json['model'] : '',
    dimensions: Number(json['dimensions']),
    maxTokens: Number(json['maxTokens'] ?? 256),
    queryPrefix: typeof json['queryPrefix'] === 'string' ? json['queryPrefix'] : '',
    documentPrefix: typeof json['documentPrefix'] === 'string' ? json['documentPrefix'] : '',
  };
  const fix = 'write it again with bash scripts/services.sh embeddings-model';
  if (!card.model || !Number.isInteger(card.dimensions) || card.dimensions <= 0) {
    throw new EmbeddingsError('bad_response', `${file} does not name a model and its dimensions; ${fix}.`, { retryable: false });
  }
  if (!Number.isInteger(card.maxTokens) || card.maxTokens < 3) {
    throw new EmbeddingsError('bad_response', `${file} has maxTokens ${JSON.stringify(json['maxTokens'])}; it must be an integer of at least 3; ${fix}.`, { retryable: false });
  }
  const pooling = json['pooling'];
  if (pooling !== undefined && pooling !== 'mean' && pooling !== 'cls') {
    throw new EmbeddingsError('bad_response', `${file} has pooling ${JSON.stringify(pooling)}; it must be "mean" or "cls" (or absent when the graph pools); ${fix}.`, { retryable: false });
  }
  if (pooling) card.pooling = pooling;
  return card;
}

/** The prefix `card` puts before texts of kind `input`. */
export function prefixFor(card: OnnxModelCard, input: EmbedInput): string {
  return input === 'query' ? card.queryPrefix : card.documentPrefix;
}
