/**
 * The keyword index under ToolSearchIndex: per-field inverted lists scored with BM25+ into flat
 * typed arrays. It scores exactly as MiniSearch 7 does with the options ToolSearchIndex used
 * (field boosts, BM25+ with field lengths in distinct terms, prefix and fuzzy weights, scores
 * multiplied by the number of query words matched), but without a result object, match record
 * and full sort per matching tool: over 20,000 tools a sentence query touches most of the
 * catalog, and those allocations were most of a search's time. MiniSearch's radix tree
 * (`SearchableMap`) still finds the words a prefix or a typo expands to.
 */
import SearchableMap from 'minisearch/SearchableMap';

/** One term's postings in one field: which slots have it, how often (parallel arrays). */
interface Postings {
  readonly slots: number[];
  readonly freqs: number[];
  /** Entries whose slot is still alive (the BM25 document frequency of the term in the field). */
  live: number;
}

/** A term of the dictionary: its postings per field, and in how many live documents it occurs. */
interface TermEntry {
  readonly fields: Array<Postings | undefined>;
  docFreq: number;
}

/** BM25+ parameters: term-frequency saturation `k`, length normalisation `b`, floor `d`. */
export interface Bm25 {
  k: number;
  b: number;
  d: number;
}

/** How one query word is matched. */
export interface QueryTerm {
  term: string;
  /** Also match longer words it starts. */
  prefix: boolean;
  /** Also match words this many edits away (0: none). */
  fuzzy: number;
}

/** Scoring settings of {@link LexicalIndex.search}. */
export interface LexicalScoring {
  /** Weight of each field, in the order the index was created with. */
  boosts: readonly number[];
  bm25: Bm25;
  /** Weight of a prefix and of a fuzzy match relative to an exact one. */
  partial: { prefix: number; fuzzy: number };
}

/** The tools one search matched, unsorted; valid until the next search. */
export interface LexicalMatches {
  readonly count: number;
  /** Slot of each match (see {@link LexicalIndex.idOf}). */
  readonly slots: Int32Array;
  /** Score of each match (same order as `slots`). */
  readonly scores: Float64Array;
  /** Bit i set: the match came through field i (same order as `slots`). */
  readonly fields: Uint8Array;
}

/** Dead slots tolerated before the lists are compacted (relative to the live ones). */
const COMPACT_SHARE = 0.5;
const COMPACT_MIN = 256;

export class LexicalIndex {
  private readonly dict = new Map<string, TermEntry>();
  private readonly tree = new SearchableMap<TermEntry>();
  private readonly slotOf = new Map<string, number>();
  /** Slot → id ('' once removed). Slots are not reused until compaction renumbers them. */
  private ids: string[] = [];
  /** Slot → the term entries of each field (for removal); undefined once removed. */
  private docTerms: Array<TermEntry[][] | undefined> = [];
  /** Distinct terms per field and slot (BM25's field length). */
  private lengths: Float64Array;
  private readonly totalLength: Float64Array;
  private liveCount = 0;
  private deadCount = 0;
  // Scoring buffers, one entry per slot; `stamp` marks which slots the current search touched.
  private scores = new Float64Array(0);
  private stamp = new Int32Array(0);
  private lastTerm = new Int32Array(0);
  private matched = new Uint16Array(0);
  private fieldMask = new Uint8Array(0);
  private touched = new Int32Array(0);
  private outScores = new Float64Array(0);
  private outFields = new Uint8Array(0);
  private searchStamp = 0;

  constructor(private readonly fieldCount: number) {
    if (fieldCount < 1 || fieldCount > 8) throw new RangeError('LexicalIndex: 1 to 8 fields');
    this.lengths = new Float64Array(64 * fieldCount);
    this.totalLength = new Float64Array(fieldCount);
  }

  /** Number of documents indexed. */
  get size(): number {
    return this.liveCount;
  }

  /** The id of a slot returned by {@link search}. */
  idOf(slot: number): string {
    return this.ids[slot]!;
  }

  /** True when some document has this term (in any field). */
  has(term: string): boolean {
    return (this.dict.get(term)?.docFreq ?? 0) > 0;
  }

  /** How many documents have this term (in any field). */
  frequency(term: string): number {
    return this.dict.get(term)?.docFreq ?? 0;
  }

  /**
   * Indexes a document (replacing one with the same id): `fields[i]` holds the analysed terms of
   * field i, repeated as often as they occur.
   */
  set(id: string, fields: ReadonlyArray<readonly string[]>): void {
    this.remove(id);
    const slot = this.ids.length;
    this.ids.push(id);
    this.slotOf.set(id, slot);
    this.ensureLengths(slot + 1);
    const perField: TermEntry[][] = [];
    const seen = new Set<TermEntry>();
    for (let f = 0; f < this.fieldCount; f++) {
      const counts = new Map<string, number>();
      for (const t of fields[f] ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
      const entries: TermEntry[] = [];
      for (const [term, freq] of counts) {
        let entry = this.dict.get(term);
        if (!entry) {
          entry = { fields: new Array<Postings | undefined>(this.fieldCount).fill(undefined), docFreq: 0 };
          this.dict.set(term, entry);
          this.tree.set(term, entry);
        }
        let p = entry.fields[f];
        if (!p) entry.fields[f] = p = { slots: [], freqs: [], live: 0 };
        p.slots.push(slot);
        p.freqs.push(freq);
        p.live++;
        if (!seen.has(entry)) {
          seen.add(entry);
          entry.docFreq++;
        }
        entries.push(entry);
      }
      perField.push(entries);
      this.lengths[slot * this.fieldCount + f] = counts.size;
      this.totalLength[f]! += counts.size;
    }
    this.docTerms[slot] = perField;
    this.liveCount++;
  }

  /** Forgets a document; unknown ids are ignored. */
  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const perField = this.docTerms[slot]!;
    const seen = new Set<TermEntry>();
    for (let f = 0; f < this.fieldCount; f++) {
      for (const entry of perField[f]!) {
        entry.fields[f]!.live--;
        if (!seen.has(entry)) {
          seen.add(entry);
          entry.docFreq--;
        }
      }
      this.totalLength[f]! -= this.lengths[slot * this.fieldCount + f]!;
    }
    this.slotOf.delete(id);
    this.ids[slot] = '';
    this.docTerms[slot] = undefined;
    this.liveCount--;
    this.deadCount++;
    if (this.deadCount > COMPACT_MIN && this.deadCount > COMPACT_SHARE * this.liveCount) this.compact();
  }

  /**
   * Scores every document against the query words (OR): for each word and each word it expands
   * to, for each field, weight × boost × BM25+; a document's sum is multiplied by how many of
   * the query words it matched. `accept` filters documents by id (it does not change scores).
   */
  search(terms: readonly QueryTerm[], scoring: LexicalScoring, accept?: (id: string) => boolean): LexicalMatches {
    const n = this.ids.length;
    this.ensureBuffers(n);
    const stampNow = ++this.searchStamp;
    const { scores, stamp, lastTerm, matched, fieldMask, touched, ids, lengths, fieldCount } = this;
    let touchedCount = 0;
    const docs = this.liveCount;
    const avg = Array.from(this.totalLength, (t) => (docs > 0 ? t / docs : 0));
    const { k, b, d } = scoring.bm25;
    terms.forEach((q, termIndex) => {
      for (const [entry, weight] of this.expand(q, scoring)) {
        for (let f = 0; f < fieldCount; f++) {
          const p = entry.fields[f];
          if (!p || p.live === 0) continue;
          const boost = scoring.boosts[f] ?? 1;
          if (boost === 0) continue;
          const idf = Math.log(1 + (docs - p.live + 0.5) / (p.live + 0.5));
          const scale = weight * boost * idf;
          const norm = avg[f]! > 0 ? b / avg[f]! : 0;
          const slots = p.slots;
          const freqs = p.freqs;
          for (let i = 0; i < slots.length; i++) {
            const slot = slots[i]!;
            if (ids[slot] === '') continue;
            const tf = freqs[i]!;
            const s = scale * (d + (tf * (k + 1)) / (tf + k * (1 - b + norm * lengths[slot * fieldCount + f]!)));
            if (stamp[slot] !== stampNow) {
              stamp[slot] = stampNow;
              scores[slot] = s;
              matched[slot] = 1;
              lastTerm[slot] = termIndex;
              fieldMask[slot] = 1 << f;
              touched[touchedCount++] = slot;
            } else {
              scores[slot]! += s;
              fieldMask[slot]! |= 1 << f;
              if (lastTerm[slot] !== termIndex) {
                lastTerm[slot] = termIndex;
                matched[slot]!++;
              }
            }
          }
        }
      }
    });
    let count = 0;
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i]!;
      if (accept && !accept(ids[slot]!)) continue;
      touched[count] = slot;
      this.outScores[count] = scores[slot]! * matched[slot]!;
      this.outFields[count] = fieldMask[slot]!;
      count++;
    }
    return { count, slots: touched, scores: this.outScores, fields: this.outFields };
  }

  /** The dictionary entries a query word matches, with the weight of each (as MiniSearch weighs them). */
  private expand(q: QueryTerm, scoring: LexicalScoring): Array<[TermEntry, number]> {
    const out: Array<[TermEntry, number]> = [];
    const exact = this.dict.get(q.term);
    if (exact) out.push([exact, 1]);
    if (!q.prefix && q.fuzzy <= 0) return out;
    const prefixed = new Set<string>();
    if (q.prefix) {
      for (const [term, entry] of this.tree.atPrefix(q.term)) {
        const distance = term.length - q.term.length;
        if (distance === 0) continue;
        prefixed.add(term);
        out.push([entry, (scoring.partial.prefix * term.length) / (term.length + 0.3 * distance)]);
      }
    }
    if (q.fuzzy > 0) {
      for (const [term, [entry, distance]] of this.tree.fuzzyGet(q.term, q.fuzzy)) {
        // A word reached both ways counts as a prefix match, as in MiniSearch.
        if (distance === 0 || prefixed.has(term)) continue;
        out.push([entry, (scoring.partial.fuzzy * term.length) / (term.length + distance)]);
      }
    }
    return out;
  }

  private ensureLengths(slots: number): void {
    if (this.lengths.length >= slots * this.fieldCount) return;
    const grown = new Float64Array(Math.max(slots, (this.lengths.length / this.fieldCount) * 2) * this.fieldCount);
    grown.set(this.lengths);
    this.lengths = grown;
  }

  private ensureBuffers(slots: number): void {
    if (this.scores.length >= slots) return;
    const size = Math.max(slots, this.scores.length * 2, 64);
    this.scores = new Float64Array(size);
    this.stamp = new Int32Array(size);
    this.lastTerm = new Int32Array(size);
    this.matched = new Uint16Array(size);
    this.fieldMask = new Uint8Array(size);
    this.touched = new Int32Array(size);
    this.outScores = new Float64Array(size);
    this.outFields = new Uint8Array(size);
    this.searchStamp = 0;
  }

  /** Renumbers the live slots densely and drops dead postings, terms without documents included. */
  private compact(): void {
    const remap = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    const docTerms: Array<TermEntry[][] | undefined> = [];
    const lengths = new Float64Array(Math.max(64, this.liveCount) * this.fieldCount);
    this.ids.forEach((id, slot) => {
      if (id === '') return;
      const next = ids.length;
      remap[slot] = next;
      ids.push(id);
      docTerms.push(this.docTerms[slot]);
      this.slotOf.set(id, next);
      for (let f = 0; f < this.fieldCount; f++) lengths[next * this.fieldCount + f] = this.lengths[slot * this.fieldCount + f]!;
    });
    for (const [term, entry] of this.dict) {
      if (entry.docFreq === 0) {
        this.dict.delete(term);
        this.tree.delete(term);
        continue;
      }
      entry.fields.forEach((p, f) => {
        if (!p) return;
        if (p.live === 0) {
          entry.fields[f] = undefined;
          return;
        }
        const slots: number[] = [];
        const freqs: number[] = [];
        for (let i = 0; i < p.slots.length; i++) {
          const to = remap[p.slots[i]!]!;
          if (to < 0) continue;
          slots.push(to);
          freqs.push(p.freqs[i]!);
        }
        entry.fields[f] = { slots, freqs, live: slots.length };
      });
    }
    this.ids = ids;
    this.docTerms = docTerms;
    this.lengths = lengths;
    this.deadCount = 0;
    this.searchStamp = 0;
    this.stamp.fill(0);
  }
}
