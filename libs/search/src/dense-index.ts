/**
 * Exact nearest neighbours by cosine over unit vectors kept in one Float32Array: a dot product
 * per tool per query. At ToolHub's scale (tens of thousands of tools, 384 dimensions) this is a
 * few milliseconds (bench/search) and needs no approximate index.
 */

/** Vectors of tools by id, each with the key (model + text hash) it was computed from. */
export class DenseIndex {
  private matrix: Float32Array;
  private readonly slotOf = new Map<string, number>();
  private ids: Array<string | undefined> = [];
  private keys: string[] = [];
  private free: number[] = [];

  constructor(readonly dimensions: number, capacity = 1024) {
    this.matrix = new Float32Array(dimensions * capacity);
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
      if ((slot + 1) * this.dimensions > this.matrix.length) {
        const grown = new Float32Array(this.matrix.length * 2);
        grown.set(this.matrix);
        this.matrix = grown;
      }
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    this.keys[slot] = key;
    this.matrix.set(vector, slot * this.dimensions);
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.matrix.fill(0, slot * this.dimensions, (slot + 1) * this.dimensions);
    this.free.push(slot);
  }

  /**
   * The `k` tools most similar to `query` (a unit vector), best first, as [id, cosine]; `accept`
   * filters ids (provider, path). Ties go by id.
   */
  nearest(query: Float32Array, k: number, accept?: (id: string) => boolean): Array<[string, number]> {
    const d = this.dimensions;
    const m = this.matrix;
    // A bounded min-heap of the best k (scores and slots side by side).
    const heapScore = new Float64Array(k);
    const heapSlot = new Int32Array(k);
    let n = 0;
    const slots = this.ids.length;
    const ids = this.ids;
    const q = query instanceof Float32Array ? query : Float32Array.from(query);
    // Four running sums: independent additions the CPU can overlap (about 1.4× the plain loop).
    const whole = d - (d % 4);
    for (let slot = 0; slot < slots; slot++) {
      const id = ids[slot];
      if (id === undefined) continue;
      const base = slot * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j < whole; j += 4) {
        s0 += m[base + j]! * q[j]!;
        s1 += m[base + j + 1]! * q[j + 1]!;
        s2 += m[base + j + 2]! * q[j + 2]!;
        s3 += m[base + j + 3]! * q[j + 3]!;
      }
      for (; j < d; j++) s0 += m[base + j]! * q[j]!;
      const s = s0 + s1 + s2 + s3;
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
