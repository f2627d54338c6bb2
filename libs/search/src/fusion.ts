/** Fusing one query's lexical and dense rankings. */
import { SearchError } from './errors';
import type { RankedTool } from './tool-search-index';

/** How the two rankings of a query are combined. */
export interface FusionOptions {
  /**
   * `weighted`: a convex combination of the two lists' scores, each divided by the best score of
   * its list: lexicalWeight × BM25 / best BM25 + denseWeight × cosine / best cosine (a tool missing
   * from a list gets 0 there). Scores say how far behind the best a tool is, which ranks do not: a
   * near-tie in one list is decided by the other, and a list whose runner-up is far behind keeps
   * its winner on top.
   * `rrf`: reciprocal-rank fusion, Σ weight / (k + rank) over both lists (scale-free; reads ranks only).
   * @default 'weighted'
   */
  method?: 'weighted' | 'rrf';
  /** RRF's rank offset: larger flattens the head of each list. @default 60 */
  k?: number;
  /** Weight of the lexical ranking. @default 0.3 with `weighted`, 1 with `rrf` */
  lexicalWeight?: number;
  /** Weight of the dense ranking. @default 0.7 with `weighted`, 1 with `rrf` */
  denseWeight?: number;
  /** How deep each list is read. @default 100 */
  depth?: number;
  /** A tool in the dense list's top this many is marked `semantic` in `matchedOn`. @default 10 */
  semanticMark?: number;
}

export type ResolvedFusionOptions = Required<FusionOptions>;

/**
 * The defaults: the weighted fusion, 0.3 lexical + 0.7 dense. Picked on half of each retrieval set
 * (the even queries of MetaTool and BFCL, one setting for both) and measured on the other half,
 * where it beat RRF on both (recall@5 MetaTool 0.734 → 0.797, BFCL 0.916 → 0.923; libs/search/README.md).
 * Dense gets the larger weight because a cosine divided by the best cosine stays near 1 for every
 * plausible tool (sentence-model cosines of related texts are close), while BM25 divided by the
 * best falls off steeply: equal weights would let lexical decide nearly alone.
 */
export const fusionDefaults: ResolvedFusionOptions = { method: 'weighted', k: 60, lexicalWeight: 0.3, denseWeight: 0.7, depth: 100, semanticMark: 10 };

/**
 * Weighted-fusion weights tuned for one model, where they differ from {@link fusionDefaults};
 * they apply when the caller gives no weights and no other method. The model tuned for finding
 * tools (scripts/embeddings/tuned) ranks well enough alone that dense gets more weight: on the
 * validation split of bench/search/splits.ts (never the evaluation one), R@5 summed over MetaTool
 * and BFCL was best at lexical 0.2 (0.869 + 0.929) against 0.3 (0.860 + 0.930) and 0.1 (0.872 +
 * 0.923); for the base model 0.3 stays best there (0.794 + 0.928 against 0.786 + 0.917 at 0.2).
 */
export const MODEL_FUSION: Readonly<Record<string, Pick<FusionOptions, 'lexicalWeight' | 'denseWeight'>>> = {
  'all-MiniLM-L6-v2-toolhub': { lexicalWeight: 0.2, denseWeight: 0.8 },
  // The jar-published models (scripts/embeddings/jar-models.json), same rule, same validation split
  // (R@5 MetaTool + BFCL, 2026-11-29): bge-small-en-v1.5-q 0.760 + 0.920 at 0.2 against 0.747 +
  // 0.921 at 0.3 and 0.760 + 0.909 at 0.1; bge-small-en-v1.5 0.761 + 0.919 at 0.2 (0.749 + 0.917 at
  // 0.3); e5-small-v2-q 0.716 + 0.923 at 0.1 against 0.703 + 0.915 at 0.2; bge-small-en-v1.5-q with
  // its query instruction 0.762 + 0.920 at 0.1 against 0.759 + 0.913 at 0.2.
  'bge-small-en-v1.5-q': { lexicalWeight: 0.2, denseWeight: 0.8 },
  'bge-small-en-v1.5-q-instruct': { lexicalWeight: 0.1, denseWeight: 0.9 },
  'bge-small-en-v1.5': { lexicalWeight: 0.2, denseWeight: 0.8 },
  'e5-small-v2-q': { lexicalWeight: 0.1, denseWeight: 0.9 },
};

/** `options` with the weights tuned for `model` (see {@link MODEL_FUSION}) where they give none. */
export function fusionForModel(model: string | undefined, options: FusionOptions = {}): FusionOptions {
  const tuned = model === undefined ? undefined : MODEL_FUSION[model];
  const free = (options.method ?? 'weighted') === 'weighted' && options.lexicalWeight === undefined && options.denseWeight === undefined;
  return tuned && free ? { ...options, ...tuned } : options;
}

/** Weights of RRF when not given: both lists count the same (the published form). */
const RRF_WEIGHT = 1;

/**
 * Fills in the defaults of `options`; the weights default per method (see {@link FusionOptions}).
 * @throws SearchError invalid_options for a weight, `k`, `depth` or `semanticMark` out of range.
 */
export function withFusionDefaults(options: FusionOptions = {}): ResolvedFusionOptions {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as FusionOptions;
  const method = given.method ?? fusionDefaults.method;
  const weight = method === 'rrf' ? RRF_WEIGHT : undefined;
  const o: ResolvedFusionOptions = {
    ...fusionDefaults,
    ...given,
    method,
    lexicalWeight: given.lexicalWeight ?? weight ?? fusionDefaults.lexicalWeight,
    denseWeight: given.denseWeight ?? weight ?? fusionDefaults.denseWeight,
  };
  const check = (ok: boolean, field: string, rule: string, value: unknown) => {
    if (!ok) throw new SearchError('invalid_options', `Fusion option ${field} must be ${rule}; got ${JSON.stringify(value)}.`);
  };
  check(o.method === 'weighted' || o.method === 'rrf', 'method', "'weighted' or 'rrf'", o.method);
  for (const f of ['lexicalWeight', 'denseWeight', 'k'] as const) check(Number.isFinite(o[f]) && o[f] >= 0, f, 'a number >= 0', o[f]);
  check(o.lexicalWeight + o.denseWeight > 0, 'lexicalWeight', 'above 0 when denseWeight is 0', o.lexicalWeight);
  check(Number.isInteger(o.depth) && o.depth > 0, 'depth', 'a positive integer', o.depth);
  check(Number.isInteger(o.semanticMark) && o.semanticMark >= 0, 'semanticMark', 'an integer >= 0', o.semanticMark);
  return o;
}

/** The dense ranking alone, as scores in [0, 1] (cosine mapped from [-1, 1]). */
export function denseOnly(dense: ReadonlyArray<[string, number]>, o: ResolvedFusionOptions): RankedTool[] {
  return dense.map(([id, cos], rank) => ({ id, score: (cos + 1) / 2, matched: rank < o.semanticMark ? ['semantic'] : [], parts: { lexical: 0, semantic: (cos + 1) / 2 } }));
}

/**
 * One fused ranking, best first; ties by id.
 *
 * `hasVector` says which tools the dense list could have ranked. While a catalog is still being
 * embedded, a tool without a vector is missing from the dense list through no fault of its own:
 * its lexical standing stands in for its dense one (the same normalised score, or the same rank
 * with RRF), so it competes on equal terms. Without that, every embedded tool outranked every
 * unembedded one — "list all droplets" answered with Box deletions while DigitalOcean's tools
 * waited for their vectors.
 */
export function fuse(lexical: readonly RankedTool[], dense: ReadonlyArray<[string, number]>, o: ResolvedFusionOptions, hasVector?: (id: string) => boolean): RankedTool[] {
  const acc = new Map<string, { score: number; matched: string[]; lexical: number; semantic: number }>();
  const add = (id: string, s: number, matched: readonly string[], from: 'lexical' | 'semantic') => {
    let a = acc.get(id);
    if (!a) acc.set(id, (a = { score: 0, matched: [], lexical: 0, semantic: 0 }));
    a.score += s;
    a[from] += s;
    a.matched.push(...matched);
  };
  const lex = lexical.slice(0, o.depth);
  const den = dense.slice(0, o.depth);
  if (o.method === 'rrf') {
    lex.forEach((r, rank) => add(r.id, (o.lexicalWeight + (hasVector && !hasVector(r.id) ? o.denseWeight : 0)) / (o.k + rank + 1), r.matched ?? [], 'lexical'));
    den.forEach(([id], rank) => add(id, o.denseWeight / (o.k + rank + 1), rank < o.semanticMark ? ['semantic'] : [], 'semantic'));
  } else {
    const lexTop = lex[0]?.score || 1;
    // Cosines can be negative: then scale from the list's floor, so no tool loses by being listed.
    const floor = den.length ? Math.min(0, ...den.map(([, c]) => c)) : 0;
    const denTop = (den[0]?.[1] ?? 1) - floor || 1;
    lex.forEach((r) => add(r.id, ((o.lexicalWeight + (hasVector && !hasVector(r.id) ? o.denseWeight : 0)) * r.score) / lexTop, r.matched ?? [], 'lexical'));
    den.forEach(([id, c], rank) => add(id, (o.denseWeight * (c - floor)) / denTop, rank < o.semanticMark ? ['semantic'] : [], 'semantic'));
  }
  return [...acc.entries()]
    .map(([id, a]) => ({ id, score: a.score, matched: a.matched, parts: { lexical: a.lexical, semantic: a.semantic } }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
