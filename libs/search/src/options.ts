/** Options of ToolSearchIndex, with their defaults in one place. */
import { QUERY_STOP_WORDS } from './lexicon';
import type { SearchField } from './documents';
import { SearchError } from './errors';

/** Relative weight of a match in each field. */
export type FieldWeights = Record<SearchField, number>;

/** Options of {@link ToolSearchIndex}. */
export interface SearchIndexOptions {
  /**
   * Weight of a match in each field; a name match outweighs a category (path, tags, provider)
   * match, which outweighs a description match, which outweighs a parameter match.
   * @default { name: 2, category: 1.5, description: 1, params: 0.7 }
   */
  weights?: Partial<FieldWeights>;
  /** Porter2 stemming of English words ("issues" finds "issue"). @default true */
  stemming?: boolean;
  /** Fold generic tool synonyms ("fetch" finds "get", "remove" finds "delete"). @default true */
  synonyms?: boolean;
  /**
   * Typo tolerance: query words of at least 4 characters match index words one edit away, words
   * of at least 8 two edits away. `false` turns it off. @default true
   */
  fuzzy?: boolean;
  /** Query words of at least this many characters also match longer words they start. 0 turns it off. @default 3 */
  prefixMinLength?: number;
  /** Weight of a fuzzy and of a prefix match relative to an exact one. @default { fuzzy: 0.45, prefix: 0.375 } */
  partialWeights?: { fuzzy: number; prefix: number };
  /**
   * BM25+ parameters: `k` term-frequency saturation, `b` length normalisation, `d` the floor a
   * matching term always adds. @default { k: 1.2, b: 0.7, d: 0.5 } (MiniSearch's)
   */
  bm25?: { k: number; b: number; d: number };
  /**
   * A query word found in more than this share of the tools is left out of the search when the
   * query has rarer words: such a word hardly moves the ranking (BM25 weighs it near zero), but
   * scoring it visits most of the index — the largest cost of a search over a big catalog. 1 keeps
   * every word. @default 0.3
   */
  commonTermShare?: number;
  /**
   * Query words left out of a query that has other words (tools keep them): words that mislead
   * across providers, chosen by measurement on the validation half of the retrieval sets (see
   * QUERY_STOP_WORDS). [] keeps every word. @default QUERY_STOP_WORDS
   */
  queryStopWords?: readonly string[];
  /** Hits returned when a request sets no limit. @default 10 */
  defaultLimit?: number;
  /** Largest limit honoured; larger ones are capped. @default 50 */
  maxLimit?: number;
  /** Most queries in one request. @default 16 */
  maxQueries?: number;
  /** Longest query searched, in characters: a longer one is searched on its prefix, with a note. @default 8000 */
  maxQueryLength?: number;
  /** Suggestions returned when nothing matches. @default 5 */
  maxSuggestions?: number;
  /**
   * How much call counts ({@link ToolSearchIndex.setUsage}) lift a tool: the most used tool's
   * score is multiplied by 1 + usageBoost, an unused one's by 1. @default 0.1
   */
  usageBoost?: number;
}

/** {@link SearchIndexOptions} with every default filled in. */
export type ResolvedSearchIndexOptions = Required<Omit<SearchIndexOptions, 'weights'>> & { weights: FieldWeights };

/** The defaults of {@link SearchIndexOptions}. */
export const searchIndexDefaults: ResolvedSearchIndexOptions = {
  queryStopWords: QUERY_STOP_WORDS,
  weights: { name: 2, category: 1.5, description: 1, params: 0.7 },
  stemming: true,
  synonyms: true,
  fuzzy: true,
  prefixMinLength: 3,
  partialWeights: { fuzzy: 0.45, prefix: 0.375 },
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  commonTermShare: 1,
  defaultLimit: 10,
  maxLimit: 50,
  maxQueries: 16,
  maxQueryLength: 8000,
  maxSuggestions: 5,
  usageBoost: 0.1,
};

function check(ok: boolean, field: string, rule: string, value: unknown): void {
  if (!ok) throw new SearchError('invalid_options', `Search index option ${field} must be ${rule}; got ${JSON.stringify(value)}.`);
}

/** Fills in defaults. @throws SearchError invalid_options naming the field that is out of range. */
export function withSearchDefaults(options: SearchIndexOptions = {}): ResolvedSearchIndexOptions {
  const d = searchIndexDefaults;
  const resolved: ResolvedSearchIndexOptions = {
    ...d,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    weights: { ...d.weights, ...options.weights },
    partialWeights: { ...d.partialWeights, ...options.partialWeights },
    bm25: { ...d.bm25, ...options.bm25 },
  };
  for (const [field, w] of Object.entries(resolved.weights)) check(Number.isFinite(w) && w >= 0, `weights.${field}`, 'a number >= 0', w);
  for (const [kind, w] of Object.entries(resolved.partialWeights)) check(Number.isFinite(w) && w >= 0, `partialWeights.${kind}`, 'a number >= 0', w);
  for (const [param, v] of Object.entries(resolved.bm25)) check(Number.isFinite(v) && v >= 0, `bm25.${param}`, 'a number >= 0', v);
  const positive = ['defaultLimit', 'maxLimit', 'maxQueries', 'maxQueryLength'] as const;
  for (const f of positive) check(Number.isInteger(resolved[f]) && resolved[f] > 0, f, 'a positive integer', resolved[f]);
  check(Number.isInteger(resolved.prefixMinLength) && resolved.prefixMinLength >= 0, 'prefixMinLength', 'an integer >= 0', resolved.prefixMinLength);
  check(Number.isInteger(resolved.maxSuggestions) && resolved.maxSuggestions >= 0, 'maxSuggestions', 'an integer >= 0', resolved.maxSuggestions);
  check(Number.isFinite(resolved.commonTermShare) && resolved.commonTermShare > 0 && resolved.commonTermShare <= 1, 'commonTermShare', 'a number in (0, 1]', resolved.commonTermShare);
  check(Number.isFinite(resolved.usageBoost) && resolved.usageBoost >= 0, 'usageBoost', 'a number >= 0', resolved.usageBoost);
  check(resolved.defaultLimit <= resolved.maxLimit, 'defaultLimit', `at most maxLimit (${resolved.maxLimit})`, resolved.defaultLimit);
  return resolved;
}
