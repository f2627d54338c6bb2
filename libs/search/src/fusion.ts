/** Fusing one query's lexical and dense rankings. */
import type { RankedTool } from './tool-search-index';

/** How the two rankings of a query are combined. */
export interface FusionOptions {
  /**
   * `rrf`: reciprocal-rank fusion, Σ weight / (k + rank) over both lists (scale-free, robust).
   * `weighted`: weight × (score / best score) summed over both lists.
   * @default 'rrf'
   */
  method?: 'rrf' | 'weighted';
  /** RRF's rank offset: larger flattens the head of each list. @default 60 */
  k?: number;
  /** Weight of the lexical ranking. @default 1 */
  lexicalWeight?: number;
  /** Weight of the dense ranking. @default 1 */
  denseWeight?: number;
  /** How deep each list is read. @default 100 */
  depth?: number;
  /** A tool in the dense list's top this many is marked `semantic` in `matchedOn`. @default 10 */
  semanticMark?: number;
}

export type ResolvedFusionOptions = Required<FusionOptions>;

export const fusionDefaults: ResolvedFusionOptions = { method: 'rrf', k: 60, lexicalWeight: 1, denseWeight: 1, depth: 100, semanticMark: 10 };

/** The dense ranking alone, as scores in [0, 1] (cosine mapped from [-1, 1]). */
export function denseOnly(dense: ReadonlyArray<[string, number]>, o: ResolvedFusionOptions): RankedTool[] {
  return dense.map(([id, cos], rank) => ({ id, score: (cos + 1) / 2, matched: rank < o.semanticMark ? ['semantic'] : [] }));
}

/** One fused ranking, best first; ties by id. */
export function fuse(lexical: readonly RankedTool[], dense: ReadonlyArray<[string, number]>, o: ResolvedFusionOptions): RankedTool[] {
  const acc = new Map<string, { score: number; matched: string[] }>();
  const add = (id: string, s: number, matched: readonly string[]) => {
    const a = acc.get(id);
    if (a) {
      a.score += s;
      a.matched.push(...matched);
    } else acc.set(id, { score: s, matched: [...matched] });
  };
  const lex = lexical.slice(0, o.depth);
  const den = dense.slice(0, o.depth);
  if (o.method === 'rrf') {
    lex.forEach((r, rank) => add(r.id, o.lexicalWeight / (o.k + rank + 1), r.matched ?? []));
    den.forEach(([id], rank) => add(id, o.denseWeight / (o.k + rank + 1), rank < o.semanticMark ? ['semantic'] : []));
  } else {
    const lexTop = lex[0]?.score || 1;
    // Cosines of unrelated texts sit well above 0 for sentence models: scale from the list's floor.
    const floor = den.length ? Math.min(0, ...den.map(([, c]) => c)) : 0;
    const denTop = (den[0]?.[1] ?? 1) - floor || 1;
    lex.forEach((r) => add(r.id, (o.lexicalWeight * r.score) / lexTop, r.matched ?? []));
    den.forEach(([id, c], rank) => add(id, (o.denseWeight * (c - floor)) / denTop, rank < o.semanticMark ? ['semantic'] : []));
  }
  return [...acc.entries()]
    .map(([id, a]) => ({ id, score: a.score, matched: a.matched }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
