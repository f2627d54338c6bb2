/**
 * Learning from use: which tool an agent ran after which query. A search is remembered for a while
 * under its search id; when a run comes back with that id, each of the search's queries is kept as
 * an observation of the tool. A later query close to an observed one (cosine of their embeddings,
 * or the same words without embeddings) lifts the observed tool — bounded, decaying with age, at
 * most `maxPerProvider` observations per provider (one busy provider cannot crowd out the rest).
 */
import { randomBytes } from 'node:crypto';

import { DenseIndex } from './dense-index';

/** Options of {@link UsageMemory}. */
export interface UsageMemoryOptions {
  /** Largest lift: a tool's score is multiplied by at most 1 + maxBoost. @default 0.5 */
  maxBoost?: number;
  /** Queries at least this similar (cosine) count as the same need. @default 0.75 */
  similarity?: number;
  /** Half-life of an observation's weight, in ms. @default 7 days */
  halfLifeMs?: number;
  /** Observations kept per provider (oldest dropped first). @default 2000 */
  maxPerProvider?: number;
  /** Searches remembered for runs to refer to. @default 10000 */
  maxSearches?: number;
  /** How long a search id can be referred to, in ms. @default 1 hour */
  searchTtlMs?: number;
  /** Clock, injectable for tests. @default Date.now */
  now?: () => number;
}

/** One learned pair, as operators see it. */
export interface LearnedUse {
  toolId: string;
  provider: string;
  query: string;
  atUnixMs: number;
}

/**
 * A learned pair as it travels between registry replicas and into the store: with an id, so the
 * same observation arriving twice (a redelivered run, a broadcast and the store) counts once, and
 * the query's vector when the search had one.
 */
export interface LearnedObservation extends LearnedUse {
  id: string;
  vector?: Float32Array;
}

/** A run that may teach a remembered search (see {@link UsageMemory.learnRun}). */
export interface LearningRun {
  toolId: string;
  provider: string;
  /** When it ran. @default now */
  atUnixMs?: number;
  /**
   * Identifies the run (the `tool.called` event id): its observations get ids derived from it, so
   * learning the same run again adds nothing. Without one, each call adds new observations.
   */
  runId?: string;
}

/** A learned pair with what it counts for now. */
export interface WeightedUse extends LearnedUse {
  /** 1 when new, halved every `halfLifeMs`. */
  weight: number;
}

/** The bounds and settings of a {@link UsageMemory} (for operators). */
export type UsageMemorySettings = Readonly<Omit<Required<UsageMemoryOptions>, 'now'>>;

interface Observation extends LearnedUse {
  /** The observation's id, also its key in the vector index. */
  key: string;
  words: string;
}

interface RememberedSearch {
  queries: string[];
  vectors: Array<Float32Array | undefined>;
  at: number;
}

const norm = (q: string): string => q.toLowerCase().split(/\W+/u).filter(Boolean).sort().join(' ');

/** The memory of searches and the runs that followed them. */
export class UsageMemory {
  private readonly o: Required<UsageMemoryOptions>;
  private readonly searches = new Map<string, RememberedSearch>();
  private readonly byProvider = new Map<string, Observation[]>();
  private readonly byWords = new Map<string, Set<Observation>>();
  private readonly byKey = new Map<string, Observation>();
  private vectors: DenseIndex | undefined;
  private seq = 0;
  /** Ids of observations without a run id: unique to this memory, so another replica's never collide. */
  private readonly idPrefix = `o${randomBytes(6).toString('base64url')}-`;

  constructor(options: UsageMemoryOptions = {}) {
    this.o = {
      maxBoost: options.maxBoost ?? 0.5,
      similarity: options.similarity ?? 0.75,
      halfLifeMs: options.halfLifeMs ?? 7 * 24 * 3600_000,
      maxPerProvider: options.maxPerProvider ?? 2000,
      maxSearches: options.maxSearches ?? 10_000,
      searchTtlMs: options.searchTtlMs ?? 3600_000,
      now: options.now ?? Date.now,
    };
  }

  get maxBoost(): number {
    return this.o.maxBoost;
  }

  /** Number of observations kept. */
  get size(): number {
    return this.byKey.size;
  }

  /** The settings in force, defaults filled in. */
  get settings(): UsageMemorySettings {
    const { now: _now, ...settings } = this.o;
    return settings;
  }

  /** Observations kept of `provider`, or of all providers. */
  count(provider?: string): number {
    return provider ? (this.byProvider.get(provider)?.length ?? 0) : this.byKey.size;
  }

  /** Remembers a search so a run can refer to it by `searchId`. */
  rememberSearch(searchId: string, queries: readonly string[], vectors: ReadonlyArray<Float32Array | undefined>): void {
    this.searches.delete(searchId);
    this.searches.set(searchId, { queries: [...queries], vectors: [...vectors], at: this.o.now() });
    // Maps iterate in insertion order: the first entries are the oldest.
    for (const [id] of this.searches) {
      if (this.searches.size <= this.o.maxSearches) break;
      this.searches.delete(id);
    }
  }

  /**
   * Records that `toolId` ran after the search `searchId`. False when the search is unknown or
   * too old (another replica answered it, or the registry restarted since).
   */
  recordRun(searchId: string, toolId: string, provider: string, at = this.o.now()): boolean {
    return this.learnRun(searchId, { toolId, provider, atUnixMs: at }) !== undefined;
  }

  /**
   * Teaches the search `searchId` that `run` followed it: one observation per query of the search.
   * Returns the observations added — empty when the run (by `runId`) was learned before — or
   * undefined when the search is unknown here or too old.
   */
  learnRun(searchId: string, run: LearningRun): LearnedObservation[] | undefined {
    const search = this.searches.get(searchId);
    const at = run.atUnixMs ?? this.o.now();
    if (!search || at - search.at > this.o.searchTtlMs) return undefined;
    const added: LearnedObservation[] = [];
    search.queries.forEach((query, i) => {
      const vector = search.vectors[i];
      const obs: LearnedObservation = { id: run.runId ? `${run.runId}#${i}` : `${this.idPrefix}${++this.seq}`, toolId: run.toolId, provider: run.provider, query, atUnixMs: at };
      if (vector) obs.vector = vector;
      if (this.add(obs)) added.push(obs);
    });
    return added;
  }

  /** Adds one observation directly (replaying a log). */
  observe(use: LearnedUse, vector: Float32Array | undefined): void {
    this.add({ ...use, id: `${this.idPrefix}${++this.seq}`, vector });
  }

  /**
   * Adds an observation learned elsewhere (another replica, the store) unless one with its id is
   * held: the same observation twice counts once. False when it was held already.
   */
  add(obs: LearnedObservation): boolean {
    if (this.byKey.has(obs.id)) return false;
    const o: Observation = { toolId: obs.toolId, provider: obs.provider, query: obs.query, atUnixMs: obs.atUnixMs, key: obs.id, words: norm(obs.query) };
    this.byKey.set(o.key, o);
    let list = this.byProvider.get(o.provider);
    if (!list) this.byProvider.set(o.provider, (list = []));
    // Oldest first, so the oldest is dropped: observations from the store or another replica may
    // arrive after newer ones (usually it is the end: one step).
    let at = list.length;
    while (at > 0 && list[at - 1]!.atUnixMs > o.atUnixMs) at--;
    list.splice(at, 0, o);
    let same = this.byWords.get(o.words);
    if (!same) this.byWords.set(o.words, (same = new Set()));
    same.add(o);
    const vector = obs.vector;
    if (vector) {
      this.vectors ??= new DenseIndex(vector.length);
      if (vector.length === this.vectors.dimensions) this.vectors.set(o.key, o.key, vector);
    }
    if (list.length > this.o.maxPerProvider) this.forget(list.shift()!);
    return true;
  }

  /**
   * Score multipliers (1 to 1 + maxBoost) of the tools observed for queries like these, or an
   * empty map when none were. With vectors: observations within `similarity`; without: the same words.
   */
  boosts(queries: readonly string[], vectors: ReadonlyArray<Float32Array | undefined>): Map<string, number> {
    const weight = new Map<string, number>();
    const now = this.o.now();
    const add = (obs: Observation, sim: number) => weight.set(obs.toolId, (weight.get(obs.toolId) ?? 0) + sim * this.decay(obs, now));
    queries.forEach((q, i) => {
      const v = vectors[i];
      if (v && this.vectors && v.length === this.vectors.dimensions) {
        const t = this.o.similarity;
        for (const [key, cos] of this.vectors.nearest(v, 64)) {
          if (cos < t) break;
          add(this.byKey.get(key)!, (cos - t) / (1 - t));
        }
      } else {
        for (const obs of this.byWords.get(norm(q)) ?? []) add(obs, 1);
      }
    });
    // Saturating: a few close observations give most of the lift, many cannot exceed maxBoost.
    return new Map([...weight].map(([id, w]) => [id, 1 + this.o.maxBoost * (1 - Math.exp(-w))]));
  }

  /** The most recent learned pairs, newest first, with their current weight (for operators). */
  recent(limit = 50, provider?: string): WeightedUse[] {
    const lists = provider ? [this.byProvider.get(provider) ?? []] : [...this.byProvider.values()];
    const now = this.o.now();
    return lists
      .flat()
      .sort((a, b) => b.atUnixMs - a.atUnixMs)
      .slice(0, limit)
      .map((obs) => ({ toolId: obs.toolId, provider: obs.provider, query: obs.query, atUnixMs: obs.atUnixMs, weight: this.decay(obs, now) }));
  }

  /** Forgets everything learned (searches and observations). */
  clear(): void {
    this.searches.clear();
    this.byProvider.clear();
    this.byWords.clear();
    this.byKey.clear();
    this.vectors = undefined;
  }

  /** 0.5^(age / half-life); a run stamped in the future (clock skew) counts as new. */
  private decay(obs: Observation, now: number): number {
    return Math.pow(0.5, Math.max(0, now - obs.atUnixMs) / this.o.halfLifeMs);
  }

  private forget(obs: Observation): void {
    this.byKey.delete(obs.key);
    this.vectors?.delete(obs.key);
    const same = this.byWords.get(obs.words);
    same?.delete(obs);
    if (same?.size === 0) this.byWords.delete(obs.words);
  }
}
