/**
 * Hybrid tool search: the lexical index fused with a dense (sentence-embedding) ranking, learning
 * from which tool ran after which search, and an answer in every case — when the embeddings
 * endpoint is down, slow or wrong, the search is lexical and the reply says so in `note`.
 */
import { randomBytes } from 'node:crypto';

import { SearchMode, type SearchToolsResponse } from '@toolhub/contracts';

import { DenseIndex } from './dense-index';
import { type Embedder, isEmbeddingsError } from './embeddings/embedder';
import { embeddingKey } from './embeddings/key';
import { QueryFirstGate } from './embeddings/query-first-gate';
import { denseOnly, type FusionOptions, fuse, fusionForModel, type ResolvedFusionOptions, withFusionDefaults } from './fusion';
import { checkRequest, type ToolSearchRequest } from './request';
import type { RankHooks, ToolSearchIndex } from './tool-search-index';
import { type LearnedObservation, type LearningRun, UsageMemory, type UsageMemoryOptions, type UsageMemorySettings, type WeightedUse } from './usage-memory';

/** Where vectors are kept between restarts, keyed by model and text hash (the registry's store). */
export interface VectorStore {
  /** The stored vectors of these keys (missing keys are absent from the map). */
  loadVectors(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>>;
  saveVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void>;
}

/** Which mode searches get and why: for GetStatus, the start banner, metrics and the CLI. */
export interface SearchStatusReport {
  /** The mode a search that names none asks for: hybrid with an embeddings endpoint, lexical without. */
  defaultMode: SearchMode;
  /** The mode such a search is answered in now (lexical while no tool has a vector or the endpoint fails). */
  effectiveMode: SearchMode;
  /** Model name of the endpoint ('' without one). */
  model: string;
  tools: number;
  /** Tools with a vector (the rest are found by keywords only). */
  embedded: number;
  /** Why the effective mode is what it is, and what to do about it, in one sentence or two. */
  note: string;
  /** The endpoint's last failure, while it lasts ('' once a call succeeds). */
  lastError: string;
  /** When missing tools are embedded again (epoch ms; 0 when no retry is scheduled). */
  nextRetryUnixMs: number;
}

/** Log lines of the hybrid search (pino-compatible). */
export interface SearchLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Options of {@link HybridSearch}. */
export interface HybridSearchOptions {
  /** The embeddings endpoint; without one every search is lexical. */
  embedder?: Embedder;
  /** Vectors survive restarts here; without it, they are kept in memory only. */
  vectors?: VectorStore;
  logger?: SearchLogger;
  /**
   * How each query's lexical and dense rankings are fused. @default weighted, 0.3 lexical + 0.7
   * dense (see fusionDefaults), or the weights tuned for the embedder's model (MODEL_FUSION)
   */
  fusion?: FusionOptions;
  /** Deadline of the query-embedding call of a search, in ms (no retry: the agent is waiting). @default 2000 */
  queryTimeoutMs?: number;
  /** Tools embedded per request while indexing (small, so a query never waits long behind one). @default 16 */
  embedBatch?: number;
  /**
   * Tools left without a vector (endpoint down, a batch timed out) are embedded again in the
   * background after this delay, doubled after each failed attempt up to `retryMaxMs`; a success
   * resets it. @default 1000
   */
  retryMinMs?: number;
  /** Longest pause between two attempts at embedding the missing tools. @default 15000 */
  retryMaxMs?: number;
  /** Learning from use; `false` turns it off. @default {} (on) */
  learning?: UsageMemoryOptions | false;
  /** Query vectors cached (agents repeat queries). @default 2000 */
  queryCacheSize?: number;
}

/** A search request with the ranking mode and explanation flag of `SearchToolsRequest`. */
/** The least time worth giving the query's embedding; with less left, the answer is by keywords. */
const MIN_QUERY_EMBED_MS = 20;

export interface HybridSearchRequest extends ToolSearchRequest {
  mode?: SearchMode;
  explain?: boolean;
  /**
   * When the caller stops waiting (epoch ms). Embedding the query gets at most half of the time
   * left, so a slow endpoint ends in an answer by keywords (with a note) rather than in the
   * caller's timeout. @default no deadline: `queryTimeoutMs` alone
   */
  deadlineUnixMs?: number;
}

/** What learning from use holds, for operators ({@link HybridSearch.learning}). */
export interface LearningReport {
  /** False when learning is switched off (`learning: false`); nothing else is set then. */
  enabled: boolean;
  /** The settings in force (bounds, half-life); absent when learning is off. */
  settings?: UsageMemorySettings;
  /** Pairs held (of the provider asked for, or of all). */
  total: number;
  /** The newest pairs, newest first, at most `limit`. */
  entries: WeightedUse[];
}

/** What one vector sync did. */
export interface VectorSyncReport {
  /** Tools whose vectors were computed by the endpoint. */
  embedded: number;
  /** Tools whose vectors came from the store (unchanged texts after a restart). */
  loaded: number;
  /** Tools whose vectors were already in memory. */
  kept: number;
  removed: number;
  /** Tools still without a vector (the endpoint failed). */
  missing: number;
}

const silent: SearchLogger = { info() {}, warn() {} };
/** A failing endpoint is logged at most this often (every search would log otherwise). */
const LOG_EVERY_MS = 30_000;

/** Lexical + dense search over a {@link ToolSearchIndex}. */
export class HybridSearch {
  private readonly fusion: ResolvedFusionOptions;
  private readonly log: SearchLogger;
  private dense: DenseIndex | undefined;
  private readonly queryCache = new Map<string, Float32Array>();
  private syncing: Promise<VectorSyncReport> | undefined;
  private syncAgain = false;
  private lastFailureLog = 0;
  private failuresSinceLog = 0;
  private readonly gate = new QueryFirstGate();
  /** The endpoint's last failure ('' after a success): the status says why search is lexical. */
  private lastError = '';
  private retryTimer: NodeJS.Timeout | undefined;
  private retryAtMs = 0;
  private retryDelayMs = 0;
  private closed = false;
  /** The last query embedding failed (searches are answered by keywords until one succeeds). */
  private queryFailing = false;
  /** Learning from use; undefined when switched off. */
  readonly usage: UsageMemory | undefined;

  /** @throws SearchError invalid_options for fusion options out of range (see {@link withFusionDefaults}). */
  constructor(
    readonly index: ToolSearchIndex,
    private readonly options: HybridSearchOptions = {},
  ) {
    this.fusion = withFusionDefaults(fusionForModel(options.embedder?.model, options.fusion));
    this.log = options.logger ?? silent;
    this.usage = options.learning === false ? undefined : new UsageMemory(options.learning ?? {});
  }

  /** The mode a request without one gets: hybrid with an embeddings endpoint, lexical without. */
  get defaultMode(): SearchMode {
    return this.options.embedder ? SearchMode.SEARCH_MODE_HYBRID : SearchMode.SEARCH_MODE_LEXICAL;
  }

  /** Tools that have a vector. */
  get embeddedCount(): number {
    return this.dense?.size ?? 0;
  }

  /** Which mode a search gets now, and why (see {@link SearchStatusReport}). */
  status(): SearchStatusReport {
    const embedder = this.options.embedder;
    const tools = this.index.size;
    const embedded = this.embeddedCount;
    const base = { defaultMode: this.defaultMode, model: embedder?.model ?? '', tools, embedded, lastError: this.lastError, nextRetryUnixMs: this.retryTimer ? this.retryAtMs : 0 };
    const lexical = SearchMode.SEARCH_MODE_LEXICAL;
    if (!embedder) {
      return { ...base, effectiveMode: lexical, note: 'Lexical (keywords): no embeddings endpoint is configured. Set TOOLHUB_EMBEDDINGS_URL to an OpenAI-compatible /v1 endpoint for hybrid search (README: "Hybrid search").' };
    }
    const retry = this.retryTimer ? ` Retrying in ${Math.max(0, Math.ceil((this.retryAtMs - Date.now()) / 1000))} s; no restart needed.` : '';
    const failing = this.lastError ? ` The embeddings endpoint fails: ${this.lastError}` : '';
    if (embedded === 0) {
      const why = tools === 0 ? 'no tool is indexed yet' : this.lastError ? 'no tool is embedded yet' : 'the tools are being embedded';
      return { ...base, effectiveMode: lexical, note: `Lexical until tools have vectors (${why}).${failing}${retry}` };
    }
    const share = tools === 0 ? 1 : embedded / tools;
    const cover = embedded >= tools ? `all ${tools} tools embedded` : `${embedded} of ${tools} tools embedded (${Math.floor(share * 100)}%); the others are found by keywords until they are`;
    if (this.queryFailing) return { ...base, effectiveMode: lexical, note: `Lexical: the last query could not be embedded (${this.lastError}); ${cover}, and search is hybrid again once the endpoint answers.${retry}` };
    return { ...base, effectiveMode: this.defaultMode, note: `Hybrid (keywords + ${embedder.model}): ${cover}.${failing}${retry}` };
  }

  /** Stops the background retries (the registry's close). */
  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /**
   * Brings the vectors in line with the index: tools whose text changed (or that are new) get a
   * vector from the store, else from the endpoint; removed tools lose theirs. Unchanged tools
   * cost nothing, so a restart with a warm store embeds nothing. Calls overlapping a running sync
   * make it run once more. Never throws: a failing endpoint leaves tools `missing` (logged).
   */
  syncVectors(): Promise<VectorSyncReport> {
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      const total: VectorSyncReport = { embedded: 0, loaded: 0, kept: 0, removed: 0, missing: 0 };
      try {
        do {
          this.syncAgain = false;
          const r = await this.syncOnce();
          for (const k of Object.keys(total) as Array<keyof VectorSyncReport>) total[k] = k === 'missing' ? r[k] : total[k] + r[k];
        } while (this.syncAgain);
      } finally {
        this.syncing = undefined;
      }
      this.scheduleRetry(total.missing > 0);
      if (total.embedded > 0 || total.loaded > 0) this.log.info({ embedded: this.embeddedCount, tools: this.index.size }, `search: ${this.status().note}`);
      return total;
    })();
    return this.syncing;
  }

  /**
   * Self-healing: while tools lack a vector, another sync runs after a backoff (1 s, 2 s, ... up
   * to `retryMaxMs`), so an endpoint that starts late or a batch that timed out is caught up
   * without a catalog change or a restart. A complete sync resets the backoff.
   */
  private scheduleRetry(missing: boolean): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (!missing || this.closed) {
      this.retryDelayMs = 0;
      return;
    }
    const min = Math.max(1, this.options.retryMinMs ?? 1000);
    this.retryDelayMs = Math.min(this.retryDelayMs ? this.retryDelayMs * 2 : min, Math.max(min, this.options.retryMaxMs ?? 15_000));
    this.retryAtMs = Date.now() + this.retryDelayMs;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.syncVectors();
    }, this.retryDelayMs);
    this.retryTimer.unref?.();
  }

  private async syncOnce(): Promise<VectorSyncReport> {
    const report: VectorSyncReport = { embedded: 0, loaded: 0, kept: 0, removed: 0, missing: 0 };
    const embedder = this.options.embedder;
    if (!embedder) return report;
    const wanted = new Map<string, { text: string; key: string }>();
    for (const [id, text] of this.index.embeddingTexts()) wanted.set(id, { text, key: embeddingKey(embedder.model, text) });
    for (const id of this.dense?.idList() ?? []) {
      if (!wanted.has(id)) {
        this.dense!.delete(id);
        report.removed++;
      }
    }
    // Tools by key: tools with the same text share one vector.
    const todo = new Map<string, { text: string; ids: string[] }>();
    for (const [id, w] of wanted) {
      if (this.dense?.keyOf(id) === w.key) {
        report.kept++;
        continue;
      }
      const t = todo.get(w.key);
      if (t) t.ids.push(id);
      else todo.set(w.key, { text: w.text, ids: [id] });
    }
    if (todo.size === 0) return report;
    const keys = [...todo.keys()];
    if (this.options.vectors) {
      for (let i = 0; i < keys.length; i += 1000) {
        try {
          const found = await this.options.vectors.loadVectors(embedder.model, keys.slice(i, i + 1000));
          for (const [key, v] of found) {
            const t = todo.get(key);
            if (!t || !this.put(t.ids, key, v)) continue;
            report.loaded += t.ids.length;
            todo.delete(key);
          }
        } catch (err) {
          this.log.warn({ err }, 'stored tool vectors could not be read; embedding them again');
        }
      }
    }
    const rest = [...todo.entries()];
    const batch = Math.max(1, this.options.embedBatch ?? 16);
    for (let i = 0; i < rest.length; i += batch) {
      const chunk = rest.slice(i, i + batch);
      let vectors: Float32Array[];
      try {
        // Queries first: no tool batch starts while an agent's query is being embedded.
        await this.gate.idle();
        if (this.closed) return report;
        vectors = await embedder.embed(chunk.map(([, t]) => t.text), { background: true });
        this.lastError = '';
      } catch (err) {
        this.lastError = errText(err) ?? 'unknown error';
        report.missing = rest.slice(i).reduce((n, [, t]) => n + t.ids.length, 0);
        this.log.warn({ err: errText(err), missing: report.missing }, 'embedding tools failed; they are found lexically and embedded again in the background');
        break;
      }
      const fresh = new Map<string, Float32Array>();
      chunk.forEach(([key, t], j) => {
        if (this.put(t.ids, key, vectors[j]!)) {
          fresh.set(key, vectors[j]!);
          report.embedded += t.ids.length;
        }
      });
      try {
        await this.options.vectors?.saveVectors(embedder.model, fresh);
      } catch (err) {
        this.log.warn({ err }, 'tool vectors could not be stored; they will be embedded again after a restart');
      }
    }
    if (report.embedded || report.loaded || report.removed) this.log.info({ ...report, model: embedder.model }, 'tool vectors synced');
    return report;
  }

  /** Sets the vector of `ids`; false (and a log line) when its length does not match the index. */
  private put(ids: readonly string[], key: string, v: Float32Array): boolean {
    this.dense ??= new DenseIndex(v.length);
    if (v.length !== this.dense.dimensions) {
      this.log.warn({ expected: this.dense.dimensions, got: v.length }, 'a tool vector has the wrong number of dimensions; ignored');
      return false;
    }
    for (const id of ids) this.dense.set(id, key, v);
    return true;
  }

  /**
   * Answers a search in the requested mode (default: {@link defaultMode}). Semantic and hybrid
   * searches that cannot get query vectors — no endpoint, an error, a timeout, vectors of the wrong
   * length — are answered lexically with a `note`, never with an error.
   * @throws ToolHubError invalid_argument for a bad request (as {@link ToolSearchIndex.search}).
   */
  async search(request: HybridSearchRequest): Promise<SearchToolsResponse> {
    const checked = checkRequest(request, this.index.options);
    const wanted = request.mode || this.defaultMode;
    const queries = checked.queries.map(([, q]) => q);
    let mode = SearchMode.SEARCH_MODE_LEXICAL;
    let note = '';
    let vectors: Array<Float32Array | undefined> = [];
    if (wanted !== SearchMode.SEARCH_MODE_LEXICAL) {
      const got = await this.queryVectors(queries, request.deadlineUnixMs);
      if (typeof got === 'string') note = got;
      else {
        vectors = got;
        mode = wanted;
        const total = this.index.size;
        if (this.embeddedCount < total) note = `Semantic ranking covers ${this.embeddedCount} of ${total} tools (the rest are still being embedded); they are found by keywords.`;
      }
    }
    const byIndex = new Map(checked.queries.map(([i], n) => [i, vectors[n]]));
    const boosts = this.usage && this.usage.size > 0 ? this.usage.boosts(queries, vectors) : undefined;
    const hooks: RankHooks = { explain: request.explain === true };
    if (boosts && boosts.size > 0) {
      hooks.boost = (id) => boosts.get(id) ?? 1;
      hooks.maxBoost = 1 + (this.usage?.maxBoost ?? 0);
    }
    if (mode !== SearchMode.SEARCH_MODE_LEXICAL) {
      const semanticOnly = mode === SearchMode.SEARCH_MODE_SEMANTIC;
      // Semantic only: the lexical ranking is not read, so it is not computed.
      hooks.lexicalDepth = semanticOnly ? 0 : this.fusion.depth;
      hooks.fuse = (i, lexical, accept) => {
        const v = byIndex.get(i);
        if (!v || !this.dense) return semanticOnly ? [] : lexical;
        const index = this.dense;
        const dense = index.nearest(v, this.fusion.depth, accept);
        return semanticOnly ? denseOnly(dense, this.fusion) : fuse(lexical, dense, this.fusion, (id) => index.keyOf(id) !== undefined);
      };
    }
    const res = this.index.searchWith(request, hooks);
    const searchId = randomBytes(9).toString('base64url');
    this.usage?.rememberSearch(searchId, queries, vectors.length ? vectors : queries.map(() => undefined));
    return { ...res, searchId, mode, note: [res.note, note].filter(Boolean).join(' ') };
  }

  /**
   * Records that `toolId` ran after search `searchId` (from a `tool.called` event). False when the
   * search is unknown here (too old, another replica answered it) or learning is off.
   */
  recordRun(searchId: string, toolId: string, provider: string, atUnixMs?: number): boolean {
    return this.usage?.recordRun(searchId, toolId, provider, atUnixMs) ?? false;
  }

  /**
   * Teaches search `searchId` that `run` followed it (see {@link UsageMemory.learnRun}): the
   * observations added (empty when the run was learned before), or undefined when the search is
   * unknown here (too old, another replica answered it) or learning is off.
   */
  learnRun(searchId: string, run: LearningRun): LearnedObservation[] | undefined {
    return this.usage?.learnRun(searchId, run);
  }

  /** What was learned, newest first, with each pair's current weight (for operators). */
  learned(limit?: number, provider?: string): WeightedUse[] {
    return this.usage?.recent(limit, provider) ?? [];
  }

  /**
   * Whether learning is on, its settings, how many pairs it holds and the newest `limit` of them
   * (of `provider` when given). What this process holds: the registry adds what other replicas
   * learn and what its store kept (see @toolhub/registry-core's shared learning).
   */
  learning(limit?: number, provider?: string): LearningReport {
    if (!this.usage) return { enabled: false, total: 0, entries: [] };
    return { enabled: true, settings: this.usage.settings, total: this.usage.count(provider), entries: this.usage.recent(limit, provider) };
  }

  /** Query vectors, or the note to answer with when there are none. */
  private async queryVectors(queries: readonly string[], deadlineUnixMs?: number): Promise<Array<Float32Array | undefined> | string> {
    const embedder = this.options.embedder;
    if (!embedder) return 'Semantic search is not configured on this registry (no embeddings endpoint); answered by keywords.';
    if (!this.dense || this.dense.size === 0) return 'Semantic search is not ready (no tool is embedded yet); answered by keywords.';
    const missing = [...new Set(queries.filter((q) => !this.queryCache.has(q)))];
    if (missing.length > 0) {
      // Half of what the caller has left at most: ranking and the reply need the rest.
      const left = deadlineUnixMs === undefined ? Infinity : Math.floor((deadlineUnixMs - Date.now()) / 2);
      const timeoutMs = Math.min(this.options.queryTimeoutMs ?? 2000, left);
      if (timeoutMs < MIN_QUERY_EMBED_MS) return this.failed('too little of the request\'s time was left to embed the query', undefined);
      const done = this.gate.query();
      try {
        const got = await embedder.embed(missing, { timeoutMs, retries: 0 }).finally(done);
        this.lastError = '';
        this.queryFailing = false;
        const dims = this.dense.dimensions;
        const wrong = got.find((v) => v.length !== dims);
        if (wrong) return this.failed(`the embeddings endpoint returned vectors of ${wrong.length} dimensions where ${dims} are expected`, undefined);
        missing.forEach((q, i) => this.cacheQuery(q, got[i]!));
      } catch (err) {
        this.lastError = errText(err) ?? 'unknown error';
        this.queryFailing = true;
        const why = !isEmbeddingsError(err)
          ? 'embedding the query failed'
          : err.code === 'timeout'
            ? 'the embeddings endpoint is too slow'
            : err.code === 'bad_response'
              ? `the embeddings endpoint answered unusable vectors: ${err.message.replace(/^.*? answered /, '').replace(/\.$/, '')}`
              : 'the embeddings endpoint is unavailable';
        return this.failed(why, err);
      }
    }
    return queries.map((q) => this.queryCache.get(q));
  }

  private cacheQuery(q: string, v: Float32Array): void {
    this.queryCache.set(q, v);
    const max = this.options.queryCacheSize ?? 2000;
    if (this.queryCache.size > max) this.queryCache.delete(this.queryCache.keys().next().value!);
  }

  private failed(why: string, err: unknown): string {
    this.failuresSinceLog++;
    const now = Date.now();
    if (now - this.lastFailureLog >= LOG_EVERY_MS) {
      this.log.warn({ err: errText(err), failures: this.failuresSinceLog }, `semantic search degraded to keywords: ${why}`);
      this.lastFailureLog = now;
      this.failuresSinceLog = 0;
    }
    return `Semantic search is unavailable (${why}); answered by keywords.`;
  }
}

function errText(err: unknown): string | undefined {
  return err === undefined ? undefined : err instanceof Error ? err.message : String(err);
}
