/**
 * The tool search index behind SearchTools: ranked keyword search over every provider's tools,
 * kept current by upserts and removals (no rebuild): BM25+ with field boosts, prefix and fuzzy
 * matching, scored over typed arrays by LexicalIndex (see lexical-index.ts for why not MiniSearch's
 * own search).
 */
import { closestMatches, isWithinPath, type SearchHit, SearchMode, type SearchToolsResponse, ToolHubError, type ToolInfo, toolId } from '@toolhub/contracts';

import { type Analyzer, createAnalyzer } from './analyzer';
import { hasCjk } from './cjk';
import { IMPORTANCE_PRIOR, SEARCH_FIELDS, toDocument, type ToolEntry, toEntry } from './documents';
import { LexicalIndex, type LexicalMatches, type LexicalScoring, type QueryTerm } from './lexical-index';
import { type ResolvedSearchIndexOptions, type SearchIndexOptions, withSearchDefaults } from './options';
import { checkRequest, type CheckedRequest, type ToolSearchRequest } from './request';
import { CatalogOutline, categorySuggestion, closeSuggestions } from './suggestions';

/** What an update changed. */
export interface IndexChange {
  added: number;
  updated: number;
  /** Tools whose version was the same as the indexed one; nothing was re-indexed. */
  unchanged: number;
  removed: number;
}

/**
 * One query's ranking before priors, best first: what a fusion step (see {@link RankHooks})
 * receives from the lexical index and returns.
 */
export interface RankedTool {
  id: string;
  /** Higher is better; only the order and ratios within one query matter. */
  score: number;
  /** What the tool matched on (`name`, `category`, `description`, `parameters`, `semantic`). */
  matched?: readonly string[];
  /** Of a fused ranking: what the lexical and the dense list each gave the score (explain only). */
  parts?: { lexical: number; semantic: number };
}

/** How {@link ToolSearchIndex.searchWith} changes the lexical ranking. */
export interface RankHooks {
  /**
   * Replaces one query's lexical ranking (e.g. fused with a dense one). `accept` says whether an id
   * passes the request's provider and path filters. The result must be sorted best first.
   */
  fuse?(queryIndex: number, lexical: RankedTool[], accept: (id: string) => boolean): RankedTool[];
  /** Extra score multiplier of a tool (e.g. learned from use), at most `maxBoost`. */
  boost?(id: string): number;
  /** Largest value `boost` returns. @default 1 */
  maxBoost?: number;
  /** Fill each hit's `matchedOn`. */
  explain?: boolean;
  /** How many of a query's best lexical results `fuse` reads; 0 skips the lexical ranking (semantic only). @default 100 */
  lexicalDepth?: number;
}

/** Field names as shown to agents in `matchedOn`, in SEARCH_FIELDS order. */
const FIELD_LABELS: readonly string[] = SEARCH_FIELDS.map((f) => (f === 'params' ? 'parameters' : f));
/** Order of the labels in `matchedOn`. */
const LABEL_ORDER = ['name', 'category', 'description', 'parameters', 'semantic', 'usage'];

/** Most distinct terms of one query that are searched (a pasted paragraph should not cost more). */
const MAX_QUERY_TERMS = 48;
/** Queries with more terms than this get no prefix or fuzzy matching (see the constructor). */
const PARTIAL_MAX_TERMS = 8;
/** Longer words get no fuzzy matching: the cost of an edit-distance search grows with the length. */
const FUZZY_MAX_LENGTH = 24;
/** Share of a tool's other matching queries added to its best one: a tool that answers several queries outranks one that answers one of them about as well. */
const OTHER_QUERIES_WEIGHT = 0.5;
/** Catalogs smaller than this keep their common query words (see commonTermShare). */
const COMMON_TERMS_MIN_TOOLS = 50;

const NO_MATCHES: LexicalMatches = { count: 0, slots: new Int32Array(0), scores: new Float64Array(0), fields: new Uint8Array(0) };

/**
 * Ranked keyword search over tools of many providers.
 *
 * ```ts
 * const index = new ToolSearchIndex();
 * index.replaceProvider('github', githubTools);
 * index.search({ queries: ['open an issue'], limit: 5 }); // { hits: [...], suggestions: [] }
 * ```
 *
 * Not thread-safe in the worker sense, but every method is synchronous, so in one Node process a
 * search never sees half an update.
 */
export class ToolSearchIndex {
  /** The options in force, defaults filled in. */
  readonly options: ResolvedSearchIndexOptions;
  private readonly analyzer: Analyzer;
  /** Analyzed {@link SearchIndexOptions.queryStopWords}. */
  private readonly queryStopTerms: ReadonlySet<string>;
  private readonly lexical = new LexicalIndex(SEARCH_FIELDS.length);
  private readonly scoring: LexicalScoring;
  private readonly entries = new Map<string, ToolEntry>();
  private readonly byProvider = new Map<string, Set<string>>();
  private usage = new Map<string, number>();
  /** Highest over lowest score multiplier a tool can get from importance and usage. */
  private maxPriorRatio: number;
  /** Names and categories of the whole catalog for suggestions; dropped on every change. */
  private outline: CatalogOutline | undefined;

  /** @throws SearchError invalid_options when an option is out of range. */
  constructor(options: SearchIndexOptions = {}) {
    this.options = withSearchDefaults(options);
    const o = this.options;
    this.maxPriorRatio = this.priorRatio();
    this.analyzer = createAnalyzer({ stemming: o.stemming, synonyms: o.synonyms });
    this.queryStopTerms = new Set(o.queryStopWords.flatMap((w) => this.analyzer.analyze(w)));
    this.scoring = { boosts: SEARCH_FIELDS.map((f) => o.weights[f]), bm25: { ...o.bm25 }, partial: { ...o.partialWeights } };
  }

  /**
   * How each query word is matched. Prefix and fuzzy matching only expand words the catalog does
   * not have (a known word is not a typo, and expanding it adds noise and time), and only in short
   * (keyword) queries: sentences are carried by their other words, and expansion is the costliest
   * step. Edit distance grows with length: short words have too many one-edit neighbours.
   */
  private queryTermSpecs(terms: readonly string[]): QueryTerm[] {
    const o = this.options;
    const short = terms.length <= PARTIAL_MAX_TERMS;
    return terms.map((term) => {
      const unknown = short && !this.lexical.has(term);
      const cjk = hasCjk(term);
      const prefix = unknown && o.prefixMinLength > 0 && term.length >= (cjk ? 2 : o.prefixMinLength);
      const fuzzy = unknown && o.fuzzy && term.length >= 4 && term.length <= FUZZY_MAX_LENGTH && !cjk ? (term.length >= 8 ? 2 : 1) : 0;
      return { term, prefix, fuzzy };
    });
  }

  /** Number of tools indexed. */
  get size(): number {
    return this.entries.size;
  }

  /** True when the tool with this id is indexed. */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Adds tools, or re-indexes them when their id is already there. A tool whose non-empty
   * `version` equals the indexed one is skipped. Missing ids are derived as `<provider>:<name>`.
   */
  upsert(tools: Iterable<ToolInfo>): IndexChange {
    const change: IndexChange = { added: 0, updated: 0, unchanged: 0, removed: 0 };
    for (const tool of tools) {
      const info = tool.id ? tool : { ...tool, id: toolId(tool.provider, tool.name) };
      const existing = this.entries.get(info.id);
      if (existing && existing.version !== '' && existing.version === info.version) {
        change.unchanged++;
        continue;
      }
      const doc = toDocument(info);
      this.lexical.set(info.id, SEARCH_FIELDS.map((f) => this.analyzer.analyze(doc[f])));
      if (existing) change.updated++;
      else change.added++;
      const entry = toEntry(info);
      this.entries.set(entry.id, entry);
      this.outline = undefined;
      let ids = this.byProvider.get(entry.provider);
      if (!ids) this.byProvider.set(entry.provider, (ids = new Set()));
      ids.add(entry.id);
    }
    return change;
  }

  /** Removes tools by id; unknown ids are ignored. */
  remove(ids: Iterable<string>): IndexChange {
    const change: IndexChange = { added: 0, updated: 0, unchanged: 0, removed: 0 };
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      this.lexical.remove(id);
      this.entries.delete(id);
      this.outline = undefined;
      const providerIds = this.byProvider.get(entry.provider);
      providerIds?.delete(id);
      if (providerIds?.size === 0) this.byProvider.delete(entry.provider);
      change.removed++;
    }
    return change;
  }

  /**
   * Makes the provider's indexed tools exactly `tools`: upserts them and removes the provider's
   * other tools. Used when a provider announces its whole catalog.
   * @throws ToolHubError invalid_argument when a tool belongs to another provider.
   */
  replaceProvider(provider: string, tools: readonly ToolInfo[]): IndexChange {
    const stranger = tools.find((t) => t.provider !== provider);
    if (stranger) {
      throw ToolHubError.invalidArgument(`Tool ${JSON.stringify(stranger.id || stranger.name)} belongs to provider ${JSON.stringify(stranger.provider)}, not ${JSON.stringify(provider)}; a provider's catalog may only hold its own tools.`, [
        { field: 'tools.provider', message: `expected ${JSON.stringify(provider)}` },
      ]);
    }
    const keep = new Set(tools.map((t) => t.id || toolId(t.provider, t.name)));
    const gone = [...(this.byProvider.get(provider) ?? [])].filter((id) => !keep.has(id));
    const removed = this.remove(gone).removed;
    return { ...this.upsert(tools), removed };
  }

  /**
   * Sets how often each tool was called (e.g. from the registry's statistics), replacing earlier
   * counts. Frequently used tools win close calls; see `usageBoost`.
   */
  setUsage(calls: Iterable<readonly [id: string, calls: number]>): void {
    const counts = [...calls].filter(([, n]) => Number.isFinite(n) && n > 0);
    const max = Math.max(0, ...counts.map(([, n]) => n));
    this.usage = new Map(counts.map(([id, n]) => [id, 1 + (this.options.usageBoost * Math.log1p(n)) / Math.log1p(max)]));
    this.maxPriorRatio = this.priorRatio();
  }

  private priorRatio(): number {
    const priors = Object.values(IMPORTANCE_PRIOR);
    return (Math.max(...priors) * (1 + this.options.usageBoost)) / Math.min(...priors);
  }

  /**
   * Searches every query, merges the hits (a tool's score is its best query's score plus half
   * of its other queries'), and ranks them; scores are relative to the best hit (1). When nothing
   * matches, `suggestions` holds close tool ids and categories instead (see suggestions.ts).
   * @throws ToolHubError invalid_argument for no query, a bad limit, provider or path.
   */
  search(request: ToolSearchRequest): SearchToolsResponse {
    return this.searchWith(request);
  }

  /**
   * {@link search} with the lexical ranking of each query replaced or re-weighted by `hooks`
   * (the hybrid search fuses a dense ranking in here). Filters, priors, several queries and
   * suggestions work as in {@link search}.
   * @throws ToolHubError invalid_argument as {@link search}.
   */
  searchWith(request: ToolSearchRequest, hooks: RankHooks = {}): SearchToolsResponse {
    const req = checkRequest(request, this.options);
    const hits = this.rank(req, hooks);
    const answer = { searchId: '', mode: SearchMode.SEARCH_MODE_LEXICAL, note: req.note };
    if (hits.length > 0) return { hits, suggestions: [], ...answer };
    return { hits, suggestions: this.suggest(req), ...answer };
  }

  /** Each indexed tool's id and the text its vector is computed from (see embeddingText). */
  *embeddingTexts(): IterableIterator<[id: string, text: string]> {
    for (const e of this.entries.values()) yield [e.id, e.embeddingText];
  }

  private rank(req: CheckedRequest, hooks: RankHooks = {}): SearchHit[] {
    const filtered = req.provider !== '' || req.path !== '';
    const accept = (id: string): boolean => {
      const e = this.entries.get(id);
      return e !== undefined && (req.provider === '' || e.provider === req.provider) && isWithinPath(e.path, req.path);
    };
    const explain = hooks.explain === true;
    const matchedOn = new Map<string, Set<string>>();
    // Per hit, the fused score's parts for the query that ranked it best (explain only).
    const parts = new Map<string, { lexical: number; semantic: number; score: number }>();
    const maxBoost = Math.max(1, hooks.maxBoost ?? 1);
    const merged = new Map<string, { best: number; sum: number; queries: number[] }>();
    for (const [index, query] of req.queries) {
      const terms = this.queryTerms(query);
      if (terms.length === 0 && !hooks.fuse) continue;
      const depth = req.limit * (req.queries.length > 1 ? 3 : 1);
      const lexicalDepth = hooks.fuse ? (hooks.lexicalDepth ?? 100) : depth;
      const found = terms.length === 0 || lexicalDepth === 0 ? NO_MATCHES : this.lexical.search(this.queryTermSpecs(terms), this.scoring, filtered ? accept : undefined);
      // Priors (importance, usage) scale a tool's score, by at most maxPriorRatio from the lowest
      // to the highest: results whose raw score is that far below the limit-th can never reach
      // the top, so only the head of the list is ranked and merged. With several queries the head
      // is deeper, as a tool's other queries add to its score.
      const floor = 1 / (this.maxPriorRatio * maxBoost);
      let results = this.ranked(found, lexicalDepth, hooks.fuse ? 1 : floor, explain);
      if (hooks.fuse) results = hooks.fuse(index, results, accept);
      if (results.length === 0) continue;
      const kth = results[Math.min(results.length, depth) - 1]!.score;
      const cut = kth * floor;
      let top = 0;
      const head: Array<[string, number]> = [];
      for (const r of results) {
        if (r.score < cut) break;
        const id = r.id;
        const boost = hooks.boost?.(id) ?? 1;
        const s = r.score * this.entries.get(id)!.prior * (this.usage.get(id) ?? 1) * boost;
        head.push([id, s]);
        if (s > top) top = s;
        if (explain) {
          let m = matchedOn.get(id);
          if (!m) matchedOn.set(id, (m = new Set()));
          for (const f of r.matched ?? []) m.add(f);
          if (boost > 1.001) m.add('usage');
          const p = parts.get(id);
          if (r.parts && (!p || r.score > p.score)) parts.set(id, { ...r.parts, score: r.score });
        }
      }
      // Each query's best becomes 1, so a long query does not drown a short one.
      for (const [id, raw] of head) {
        const s = raw / top;
        const m = merged.get(id);
        if (!m) merged.set(id, { best: s, sum: s, queries: [index] });
        else {
          m.best = Math.max(m.best, s);
          m.sum += s;
          m.queries.push(index);
        }
      }
    }
    const ranked = [...merged.entries()]
      .map(([id, m]) => ({ id, score: m.best + OTHER_QUERIES_WEIGHT * (m.sum - m.best), queries: m.queries }))
      // Rounded before sorting so float noise never decides a tie: ties go by id.
      .map((h) => ({ ...h, score: Math.round(h.score * 1e9) / 1e9 }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, req.limit);
    const top = ranked[0]?.score ?? 1;
    return ranked.map((h) => {
      const e = this.entries.get(h.id)!;
      const p = parts.get(h.id);
      const round = (x: number) => Math.round(x * 1e4) / 1e4;
      return {
        id: e.id,
        provider: e.provider,
        name: e.name,
        path: e.path,
        summary: e.summary,
        score: round(h.score / top),
        queryIndexes: h.queries,
        matchedOn: explain ? labels(matchedOn.get(h.id)) : '',
        ...(p ? { lexicalScore: round(p.lexical), semanticScore: round(p.semantic) } : {}),
      };
    });
  }

  /**
   * The best `depth` matches sorted by score (ties in index order), plus every further match
   * scoring at least `floor` × the depth-th (those can still overtake it by their priors).
   */
  private ranked(found: LexicalMatches, depth: number, floor: number, explain: boolean): RankedTool[] {
    const { count, slots, scores, fields } = found;
    if (count === 0 || depth <= 0) return [];
    let threshold = -Infinity;
    if (count > depth) threshold = kthLargest(scores, count, depth) * floor;
    const order: number[] = [];
    for (let i = 0; i < count; i++) if (scores[i]! >= threshold) order.push(i);
    order.sort((a, b) => scores[b]! - scores[a]! || slots[a]! - slots[b]!);
    return order.map((i) => ({ id: this.lexical.idOf(slots[i]!), score: scores[i]!, matched: explain ? fieldsOf(fields[i]!) : undefined }));
  }

  /** The distinct terms of a query (at most MAX_QUERY_TERMS), without its common words when it has rarer ones. */
  private queryTerms(query: string): string[] {
    let terms = [...new Set(this.analyzer.analyze(query))].slice(0, MAX_QUERY_TERMS);
    // Misleading words go only when the query has others ("get" alone still finds get tools).
    if (this.queryStopTerms.size > 0 && terms.some((t) => !this.queryStopTerms.has(t))) terms = terms.filter((t) => !this.queryStopTerms.has(t));
    const share = this.options.commonTermShare;
    // A small catalog is searched fast anyway, and its word shares say little.
    if (share >= 1 || terms.length < 2 || this.entries.size < COMMON_TERMS_MIN_TOOLS) return terms;
    const common = share * this.entries.size;
    const frequency = (t: string): number => this.lexical.frequency(t);
    // Common words go only when a known rarer word carries the query (an unknown word may match nothing).
    if (!terms.some((t) => frequency(t) > 0 && frequency(t) <= common)) return terms;
    return terms.filter((t) => frequency(t) <= common);
  }

  private suggest(req: CheckedRequest): string[] {
    const limit = this.options.maxSuggestions;
    const queries = req.queries.map(([, q]) => q);
    if (req.provider !== '' && !this.byProvider.has(req.provider)) {
      // An unknown provider: the providers closest to it, what matches elsewhere, the other providers.
      const known = [...this.byProvider.keys()].sort();
      const close = closestMatches(req.provider, known, 2);
      const elsewhere = this.rank({ ...req, provider: '', path: '', limit }).map((h) => h.id);
      const ordered = [...close.map((p) => categorySuggestion(p, '')), ...elsewhere, ...known.map((p) => categorySuggestion(p, ''))];
      return [...new Set(ordered)].slice(0, limit);
    }
    if (req.provider !== '' || req.path !== '') {
      // The filters hid every match: the best matches outside them are the most useful hint.
      const elsewhere = this.rank({ ...req, provider: '', path: '', limit }).map((h) => h.id);
      if (elsewhere.length > 0) return elsewhere;
    }
    if (req.provider === '' && req.path === '') {
      this.outline ??= new CatalogOutline(this.entries.values());
      return closeSuggestions(queries, this.outline, limit);
    }
    const inProvider = req.provider === '' ? [...this.entries.values()] : [...(this.byProvider.get(req.provider) ?? [])].map((id) => this.entries.get(id)!);
    const inScope = inProvider.filter((e) => isWithinPath(e.path, req.path));
    return closeSuggestions(queries, new CatalogOutline(inScope.length > 0 ? inScope : inProvider), limit);
  }
}

/** The fields set in a LexicalIndex field mask, as `matchedOn` labels. */
function fieldsOf(mask: number): string[] {
  const out: string[] = [];
  for (let f = 0; f < FIELD_LABELS.length; f++) if (mask & (1 << f)) out.push(FIELD_LABELS[f]!);
  return out;
}

/** `matchedOn` text: the labels in a fixed order, comma-separated. */
function labels(set: ReadonlySet<string> | undefined): string {
  return set ? LABEL_ORDER.filter((l) => set.has(l)).join(',') : '';
}

/** The k-th largest of the first `count` values (1-based k ≤ count), by quickselect on a copy. */
function kthLargest(values: Float64Array, count: number, k: number): number {
  const a = values.slice(0, count);
  let lo = 0;
  let hi = count - 1;
  const want = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! > pivot) i++;
      while (a[j]! < pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (want <= j) hi = j;
    else if (want >= i) lo = i;
    else return a[want]!;
  }
  return a[want]!;
}
