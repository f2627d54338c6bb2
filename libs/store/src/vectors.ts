/**
 * Tool vectors of the hybrid search, stored content-addressed: the key is a hash of the model and
 * the embedded text (computed by @toolhub/search), so a vector never goes stale — a changed tool
 * has a new key — and a restarted registry finds every unchanged tool's vector here.
 */
import type { DocCollection } from './backend';
import { StoreError } from './errors';

/** One stored vector (float32 little-endian bytes as base64: both backends store strings alike). */
export interface VectorDoc {
  /** `<model>|<key>` */
  _id: string;
  model: string;
  dims: number;
  vector: string;
}

/** Keys looked up per query (bounded `$in` lists). */
const CHUNK = 500;

const idOf = (model: string, key: string): string => `${model}|${key}`;

/** A vector as stored: base64 of its float32 bytes (both backends store strings alike). */
export function vectorToBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

/** The vector {@link vectorToBase64} stored, or undefined when it is not `dims` floats (torn or foreign). */
export function vectorFromBase64(encoded: string, dims: number): Float32Array | undefined {
  const buf = Buffer.from(encoded, 'base64');
  if (buf.byteLength !== dims * 4) return undefined;
  const v = new Float32Array(dims);
  new Uint8Array(v.buffer).set(buf);
  return v;
}

/** The `tool_vectors` collection. */
export class ToolVectors {
  constructor(private readonly docs: DocCollection<VectorDoc>) {}

  async load(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const found = await this.docs.find({ _id: { $in: unique.slice(i, i + CHUNK).map((k) => idOf(model, k)) } });
      for (const d of found) {
        const v = vectorFromBase64(d.vector, d.dims);
        if (v) out.set(d._id.slice(model.length + 1), v); // else a torn or foreign document: embed again
      }
    }
    return out;
  }

  async save(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    if (model === '' || model.includes('|')) throw new StoreError('invalid_options', `A vector model name must be non-empty without "|"; got ${JSON.stringify(model)}.`, { retryable: false });
    const docs: VectorDoc[] = [];
    for (const [key, v] of vectors) {
      docs.push({ _id: idOf(model, key), model, dims: v.length, vector: vectorToBase64(v) });
    }
    // Content-addressed: a key that is already stored holds the same vector.
    for (let i = 0; i < docs.length; i += CHUNK) await this.docs.insertNew(docs.slice(i, i + CHUNK));
  }
}
