/** The exact nearest-neighbour index: the WebAssembly kernel's ranking equals a plain dot product's. */
import { DenseIndex } from '@toolhub/search';
import { seededRandom } from '@toolhub/test-harness';

function unit(random: () => number, d: number): Float32Array {
  const v = Float32Array.from({ length: d }, () => random() - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function bruteForce(vectors: Map<string, Float32Array>, q: Float32Array, k: number, accept: (id: string) => boolean = () => true): Array<[string, number]> {
  return [...vectors]
    .filter(([id]) => accept(id))
    .map(([id, v]): [string, number] => [id, v.reduce((s, x, i) => s + x * q[i]!, 0)])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, k);
}

describe('DenseIndex', () => {
  it.each([384, 10, 2, 17])('ranks like a plain dot product at %i dimensions, through growth, deletes and slot reuse', (d) => {
    const random = seededRandom(d);
    // Capacity 8: the memory grows several times below.
    const index = new DenseIndex(d, 8);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 300; i++) {
      const v = unit(random, d);
      index.set(`t${i}`, `k${i}`, v);
      vectors.set(`t${i}`, v);
    }
    for (let i = 0; i < 300; i += 7) {
      index.delete(`t${i}`);
      vectors.delete(`t${i}`);
    }
    // Freed slots are reused, and a re-set vector replaces the old one.
    for (let i = 0; i < 20; i++) {
      const v = unit(random, d);
      index.set(`new${i}`, 'k', v);
      vectors.set(`new${i}`, v);
    }
    const replaced = unit(random, d);
    index.set('t1', 'k1b', replaced);
    vectors.set('t1', replaced);
    expect(index.size).toBe(vectors.size);
    expect(index.keyOf('t1')).toBe('k1b');
    expect(index.keyOf('t0')).toBeUndefined();
    for (let trial = 0; trial < 5; trial++) {
      const q = unit(random, d);
      const got = index.nearest(q, 10);
      const want = bruteForce(vectors, q, 10);
      expect(got.map(([id]) => id)).toEqual(want.map(([id]) => id));
      got.forEach(([, score], i) => expect(score).toBeCloseTo(want[i]![1], 5));
      const even = (id: string) => Number(id.replace(/\D/g, '')) % 2 === 0;
      expect(index.nearest(q, 5, even).map(([id]) => id)).toEqual(bruteForce(vectors, q, 5, even).map(([id]) => id));
    }
  });

  it('refuses a vector or a query of another length', () => {
    const index = new DenseIndex(4);
    expect(() => index.set('a', 'k', new Float32Array(3))).toThrow(RangeError);
    index.set('a', 'k', Float32Array.from([1, 0, 0, 0]));
    expect(() => index.nearest(new Float32Array(5), 1)).toThrow(/A query of 5 dimensions in an index of 4/);
    expect(index.nearest(Float32Array.from([1, 0, 0, 0]), 1)).toEqual([['a', 1]]);
  });
});
