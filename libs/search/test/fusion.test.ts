import { fuse, fusionDefaults, fusionForModel, HybridSearch, isSearchError, type RankedTool, ToolSearchIndex, withFusionDefaults } from '@toolhub/search';

const lexical = (...hits: Array<[string, number]>): RankedTool[] => hits.map(([id, score]) => ({ id, score }));
const order = (ranked: readonly RankedTool[]) => ranked.map((r) => r.id);

describe('fusion', () => {
  it('by default weighs scores, not ranks: a near-tie in the lexical list goes to the tool the dense list finds closer', () => {
    // Lexically a and b are all but tied; by meaning b is far closer to the query than a.
    const ranked = fuse(lexical(['a', 10], ['b', 9.9], ['c', 2]), [['c', 0.62], ['b', 0.6], ['a', 0.3]], withFusionDefaults());
    expect(order(ranked)).toEqual(['b', 'c', 'a']);
    // Ranks alone (RRF) cannot see that: a, ranked first and third, beats b, ranked second twice.
    expect(order(fuse(lexical(['a', 10], ['b', 9.9], ['c', 2]), [['c', 0.62], ['b', 0.6], ['a', 0.3]], withFusionDefaults({ method: 'rrf' })))[2]).toBe('b');
  });

  it('by default keeps a clear lexical winner on top when the dense list barely tells the two apart', () => {
    const ranked = fuse(lexical(['z_exact_name', 10], ['a_other', 1]), [['a_other', 0.5], ['z_exact_name', 0.49]], withFusionDefaults());
    expect(order(ranked)).toEqual(['z_exact_name', 'a_other']);
    expect(ranked[0]!.score).toBeCloseTo(0.3 + (0.7 * 0.49) / 0.5, 9);
  });

  it('lets a tool without a vector compete by its lexical standing while the catalog is being embedded', () => {
    // Only the box_* tools have vectors yet; the query's words match do_droplets_list best.
    const lex = lexical(['do_droplets_list', 12], ['box_list_items', 3]);
    const dense: Array<[string, number]> = [['box_delete_pinner', 0.31], ['box_delete_agent', 0.3], ['box_list_items', 0.2]];
    const embedded = (id: string) => id.startsWith('box_');
    for (const method of ['weighted', 'rrf'] as const) {
      const o = withFusionDefaults({ method });
      // Without knowing who has a vector, the unembedded best match sinks below tools that only share vectors.
      expect(order(fuse(lex, dense, o)).indexOf('do_droplets_list')).toBeGreaterThan(0);
      expect(order(fuse(lex, dense, o, embedded))[0]).toBe('do_droplets_list');
    }
    // Fully embedded, `hasVector` changes nothing.
    const all = () => true;
    expect(fuse(lex, [...dense, ['do_droplets_list', 0.1]], withFusionDefaults(), all)).toEqual(fuse(lex, [...dense, ['do_droplets_list', 0.1]], withFusionDefaults()));
  });

  it('gives RRF equal weights unless told otherwise, and keeps weights that are given', () => {
    expect(withFusionDefaults()).toEqual(fusionDefaults);
    expect(fusionDefaults).toMatchObject({ method: 'weighted', lexicalWeight: 0.3, denseWeight: 0.7 });
    expect(withFusionDefaults({ method: 'rrf' })).toMatchObject({ method: 'rrf', k: 60, lexicalWeight: 1, denseWeight: 1 });
    expect(withFusionDefaults({ method: 'rrf', denseWeight: 2 })).toMatchObject({ lexicalWeight: 1, denseWeight: 2 });
    expect(withFusionDefaults({ lexicalWeight: 0.5, denseWeight: undefined })).toMatchObject({ method: 'weighted', lexicalWeight: 0.5, denseWeight: 0.7 });
  });

  it("uses the weights tuned for the embedder's model unless the caller gives weights or another method", () => {
    const tuned = 'all-MiniLM-L6-v2-toolhub';
    expect(withFusionDefaults(fusionForModel(tuned))).toMatchObject({ method: 'weighted', lexicalWeight: 0.2, denseWeight: 0.8 });
    expect(withFusionDefaults(fusionForModel('all-MiniLM-L6-v2'))).toEqual(fusionDefaults);
    expect(withFusionDefaults(fusionForModel(undefined))).toEqual(fusionDefaults);
    expect(withFusionDefaults(fusionForModel(tuned, { lexicalWeight: 0.5 }))).toMatchObject({ lexicalWeight: 0.5, denseWeight: 0.7 });
    expect(withFusionDefaults(fusionForModel(tuned, { method: 'rrf' }))).toMatchObject({ method: 'rrf', lexicalWeight: 1, denseWeight: 1 });
    expect(withFusionDefaults(fusionForModel(tuned, { depth: 50 }))).toMatchObject({ lexicalWeight: 0.2, denseWeight: 0.8, depth: 50 });
  });

  it('rejects options out of range, naming the field, when the hybrid search is built', () => {
    const bad = [{ lexicalWeight: -1 }, { denseWeight: Number.NaN }, { lexicalWeight: 0, denseWeight: 0 }, { depth: 0 }, { k: -5 }, { method: 'max' as 'rrf' }];
    for (const fusion of bad) {
      let err: unknown;
      try {
        new HybridSearch(new ToolSearchIndex(), { fusion });
      } catch (e) {
        err = e;
      }
      expect(isSearchError(err, 'invalid_options')).toBe(true);
      expect((err as Error).message).toMatch(new RegExp(`^Fusion option (${Object.keys(fusion).join('|')}) must be`));
    }
  });
});
