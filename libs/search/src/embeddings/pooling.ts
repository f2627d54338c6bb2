/**
 * From a BERT encoder's token states to one sentence vector, for ONNX models whose graph stops at
 * `last_hidden_state` (the jar-published ones of scripts/embeddings/jar-models.json): `mean` over
 * the real tokens (all-MiniLM, e5) or the `cls` token's state (bge), then unit length.
 */
import { normalize } from './embedder';

/** How token states become the sentence vector (the model's card says which its training used). */
export type Pooling = 'mean' | 'cls';

/** Whether the embedded texts are what an agent asks (`query`) or what is searched (`document`). */
export type EmbedInput = 'query' | 'document';

/**
 * One unit vector per row of `hidden`, a [rows, width, size] tensor's data (row-major), where row r
 * holds `lengths[r]` real tokens followed by padding (which mean pooling leaves out).
 */
export function poolSentences(hidden: Float32Array, dims: readonly number[], lengths: readonly number[], pooling: Pooling): Float32Array[] {
  const [rows, width, size] = dims as [number, number, number];
  if (dims.length !== 3 || rows !== lengths.length || hidden.length !== rows * width * size) {
    throw new RangeError(`token states of shape [${dims.join(', ')}] do not fit ${lengths.length} rows`);
  }
  const out: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const base = r * width * size;
    const v = new Float32Array(size);
    if (pooling === 'cls') {
      v.set(hidden.subarray(base, base + size));
    } else {
      const n = Math.max(1, Math.min(width, lengths[r]!));
      for (let t = 0; t < n; t++) {
        const at = base + t * size;
        for (let i = 0; i < size; i++) v[i]! += hidden[at + i]!;
      }
      for (let i = 0; i < size; i++) v[i]! /= n;
    }
    out.push(normalize(v));
  }
  return out;
}
