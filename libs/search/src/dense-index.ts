/**
 * Exact nearest neighbours by cosine over unit vectors: a dot product per tool per query, run by a
 * small WebAssembly SIMD kernel (src/wasm/dot-scores.wat) over vectors kept in its memory. At
 * ToolHub's scale (tens of thousands of tools, 384 dimensions) this is about a millisecond
 * (bench/search) and needs no approximate index.
 */
import { WASM_BASE64 } from './wasm/dot-scores.wasm';

/** Floats per row in the kernel's memory: the dimensions rounded up to 16 (it reads 16 at a time). */
const LANES = 16;
const PAGE = 65_536;

// The project's TypeScript libs carry no WebAssembly types (no DOM lib); what is used here:
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Kernel {
  memory: WasmMemory;
  scores(matrix: number, query: number, rows: number, stride: number, out: number): void;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: object | undefined;

function kernel(): Kernel {
  compiled ??= new wasm.Module(Buffer.from(WASM_BASE64, 'base64'));
  return new wasm.Instance(compiled).exports as Kernel;
}

/** Vectors of tools by id, each with the key (model + text hash) it was computed from. */
export class DenseIndex {
  private readonly kernel = kernel();
  /** Floats between two rows (dimensions padded to a multiple of 16, padding zero). */
  private readonly stride: number;
  /** Memory layout in floats: the query at 0, the rows from `matrixAt`, the scores after the last row. */
  private readonly matrixAt: number;
  private capacity: number;
  private view: Float32Array;
  private readonly slotOf = new Map<string, number>();
  private ids: Array<string | undefined> = [];
  private keys: string[] = [];
  private free: number[] = [];

  constructor(readonly dimensions: number, capacity = 1024) {
    this.stride = Math.ceil(dimensions / LANES) * LANES;
    this.matrixAt = this.stride;
    this.capacity = Math.max(1, capacity);
    this.view = this.fit();
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** The key the tool's vector was computed from, if it has one. */
  keyOf(id: string): string | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.keys[slot];
  }

  /** Ids that have a vector. */
  idList(): string[] {
    return [...this.slotOf.keys()];
  }

  /** Sets a tool's (unit) vector. @throws RangeError for a vector of another length. */
  set(id: string, key: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new RangeError(`A vector of ${vector.length} dimensions in an index of ${this.dimensions}.`);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.ids.length;
      if (slot >= this.capacity) {
        this.capacity *= 2;
        this.view = this.fit();
      }
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    this.keys[slot] = key;
    this.view.set(vector, this.matrixAt + slot * this.stride);
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    const at = this.matrixAt + slot * this.stride;
    this.view.fill(0, at, at + this.dimensions);
    this.free.push(slot);
  }

  /** Grows the kernel's memory to hold `capacity` rows and their scores; a view of all of it. */
  private fit(): Float32Array {
    const floats = this.matrixAt + this.capacity * this.stride + this.capacity;
    const memory = this.kernel.memory;
    const pages = Math.ceil((floats * 4) / PAGE) - memory.buffer.byteLength / PAGE;
    if (pages > 0) memory.grow(pages);
    return new Float32Array(memory.buffer);
  }

  /**
   * The `k` tools most similar to `query` (a unit vector), best first, as [id, cosine]; `accept`
   * filters ids (provider, path). Ties go by id.
   */
  nearest(query: Float32Array, k: number, accept?: (id: string) => boolean): Array<[string, number]> {
    if (query.length !== this.dimensions) throw new RangeError(`A query of ${query.length} dimensions in an index of ${this.dimensions}.`);
    const view = this.view;
    // A bounded min-heap of the best k (scores and slots side by side).
    const heapScore = new Float64Array(k);
    const heapSlot = new Int32Array(k);
    let n = 0;
    const slots = this.ids.length;
    const ids = this.ids;
    view.set(query instanceof Float32Array ? query : Float32Array.from(query), 0);
    const scoresAt = this.matrixAt + this.capacity * this.stride;
    this.kernel.scores(this.matrixAt * 4, 0, slots, this.stride, scoresAt * 4);
    for (let slot = 0; slot < slots; slot++) {
      const id = ids[slot];
      if (id === undefined) continue;
      const s = view[scoresAt + slot]!;
      if (n === k && s <= heapScore[0]!) continue;
      if (accept && !accept(id)) continue;
      if (n < k) {
        let i = n++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (heapScore[p]! <= s) break;
          heapScore[i] = heapScore[p]!;
          heapSlot[i] = heapSlot[p]!;
          i = p;
        }
        heapScore[i] = s;
        heapSlot[i] = slot;
      } else {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= n) break;
          const c = l + 1 < n && heapScore[l + 1]! < heapScore[l]! ? l + 1 : l;
          if (heapScore[c]! >= s) break;
          heapScore[i] = heapScore[c]!;
          heapSlot[i] = heapSlot[c]!;
          i = c;
        }
        heapScore[i] = s;
        heapSlot[i] = slot;
      }
    }
    const out: Array<[string, number]> = [];
    for (let i = 0; i < n; i++) out.push([this.ids[heapSlot[i]!]!, heapScore[i]!]);
    return out.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}
