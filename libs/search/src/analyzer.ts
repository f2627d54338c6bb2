/**
 * The analyzer: turns tool text and queries into index terms, the same way on both sides.
 *
 * - Identifiers are split into words and also kept whole: `getUserByID`, `get_user_by_id` and
 *   `get-user-by-id` all give `get`, `user`, `id` plus the whole name `get_user_by_id`, so a query
 *   can name a tool exactly or describe it in words.
 * - Latin words are lowercased, stripped of accents, stop words dropped, stemmed (Porter2:
 *   "issues" and "issue" meet) and folded to a synonym group (`fetch` → `get`).
 * - CJK (and Thai, Lao, Khmer, Myanmar) runs are segmented into words ({@link createCjkSegmenter});
 *   long Chinese or Japanese words also give their bigrams, so a query segmented differently
 *   from the description still meets it.
 */
import { type CjkSegmenter, CJK_RUN, cjkBigrams, createCjkSegmenter } from './cjk';
import { CHINESE_STOP_WORDS, ENGLISH_STOP_WORDS, SYNONYM_GROUPS } from './lexicon';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the package ships CommonJS without type declarations
const porter2 = require('wink-porter2-stemmer') as (word: string) => string;

/** Options of {@link createAnalyzer}. */
export interface AnalyzerOptions {
  /** Porter2 stemming of English words. @default true */
  stemming?: boolean;
  /** Fold the words of {@link SYNONYM_GROUPS} to one term. @default true */
  synonyms?: boolean;
  /** Word splitter for CJK runs. @default the runtime's best ({@link createCjkSegmenter}) */
  cjkSegmenter?: CjkSegmenter;
}

/** Text → index terms. */
export interface Analyzer {
  analyze(text: string): string[];
  /** Which CJK segmentation is in use. */
  readonly cjk: 'icu' | 'bigram' | 'custom';
}

/** Letters and digits, optionally joined by `_`, `.` or `-` into one identifier. */
const IDENTIFIER = /[\p{L}\p{N}]+(?:[_.-][\p{L}\p{N}]+)*/gu;
const JOINERS = /[_.-]+/;
const LOWER_UPPER = /([\p{Ll}\p{N}])(\p{Lu})/gu;
const UPPER_UPPER_LOWER = /(\p{Lu}+)(\p{Lu}\p{Ll})/gu;
const DIACRITICS = /\p{M}+/gu;
/** Anything outside printable ASCII (words never hold control characters). */
const NON_ASCII = /[^ -~]/;
const ASCII_WORD = /^[a-z]+$/;
/** A word with nothing to split: no joiner, no capital after its first letter. */
const SIMPLE_WORD = /^[\p{L}\p{N}][\p{Ll}\p{N}]*$/u;
const HAN_KANA = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+$/u;
/** Longest whole identifier kept as one term (tool names are at most 64 characters). */
const MAX_COMPOUND = 64;
/** Bound on the stem cache; the vocabulary of 10,000 tools is well below it. */
const MAX_CACHE = 100_000;

/** Splits one identifier into its words: `getUserByID` → get, User, By, ID; `a_b-c.d` → a, b, c, d. */
export function splitIdentifier(token: string): string[] {
  const words: string[] = [];
  for (const part of token.split(JOINERS)) {
    if (part === '') continue;
    for (const w of part.replace(LOWER_UPPER, '$1 $2').replace(UPPER_UPPER_LOWER, '$1 $2').split(' ')) if (w !== '') words.push(w);
  }
  return words;
}

/** Lowercase without accents: "Café" → "cafe". */
function fold(word: string): string {
  const lower = word.toLowerCase();
  // Only decompose when there is something to strip: NFKD is the slowest step of the analyzer.
  return NON_ASCII.test(lower) ? lower.normalize('NFKD').replace(DIACRITICS, '') : lower;
}

/**
 * Builds an analyzer. Terms of one analyzer are only comparable with terms of the same analyzer
 * options: index and queries must share it.
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const stemming = options.stemming ?? true;
  const useSynonyms = options.synonyms ?? true;
  const cjk = options.cjkSegmenter ? { segment: options.cjkSegmenter, kind: 'custom' as const } : createCjkSegmenter();
  const cache = new Map<string, string | null>();

  const stem = (w: string): string => (stemming && ASCII_WORD.test(w) && w.length > 3 ? porter2(w) : w);
  const synonyms = new Map<string, string>();
  if (useSynonyms) {
    for (const group of SYNONYM_GROUPS) {
      const head = stem(group[0]!);
      for (const member of group) synonyms.set(stem(member), head);
    }
  }

  /** One word → its term, or null for a stop word or a single letter. */
  const term = (raw: string): string | null => {
    const cached = cache.get(raw);
    if (cached !== undefined) return cached;
    const w = fold(raw);
    let out: string | null = null;
    if (w.length >= 2 && !ENGLISH_STOP_WORDS.has(w)) {
      const s = stem(w);
      out = synonyms.get(s) ?? s;
    }
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(raw, out);
    return out;
  };

  /** One identifier (`getUserByID`, `issues`) → its terms; cached, as catalogs repeat words a lot. */
  const identifierCache = new Map<string, readonly string[]>();
  const identifierTerms = (token: string): readonly string[] => {
    const cached = identifierCache.get(token);
    if (cached) return cached;
    const out: string[] = [];
    const words = SIMPLE_WORD.test(token) ? [token] : splitIdentifier(token);
    for (const w of words) {
      const t = term(w);
      if (t !== null) out.push(t);
    }
    // Keep compound identifiers whole, so an exact name ranks first: as written (`github`,
    // `getuserbyid`) and in tool-name form (`git_hub`, `get_user_by_id`).
    if (words.length > 1) {
      const snake = words.map(fold).join('_');
      const written = fold(token).replace(/[.-]+/g, '_');
      if (snake.length <= MAX_COMPOUND && /[a-z]{3}/.test(snake)) out.push(snake);
      if (written !== snake && written.length <= MAX_COMPOUND) out.push(written);
    }
    if (identifierCache.size >= MAX_CACHE) identifierCache.clear();
    identifierCache.set(token, out);
    return out;
  };

  const analyzeLatin = (text: string, out: string[]): void => {
    for (const m of text.matchAll(IDENTIFIER)) for (const t of identifierTerms(m[0])) out.push(t);
  };

  const analyzeCjk = (run: string, out: string[]): void => {
    for (const word of cjk.segment(run)) {
      if (word.length === 1 && CHINESE_STOP_WORDS.has(word)) continue;
      out.push(word);
      // A Han or kana character is close to a morpheme, so bigrams of long words are meaningful;
      // a Thai or Hangul character is not.
      if (HAN_KANA.test(word) && [...word].length >= 3) out.push(...cjkBigrams(word));
    }
  };

  return {
    cjk: cjk.kind,
    analyze(text: string): string[] {
      const out: string[] = [];
      let last = 0;
      for (const m of text.matchAll(CJK_RUN)) {
        if (m.index > last) analyzeLatin(text.slice(last, m.index), out);
        analyzeCjk(m[0], out);
        last = m.index + m[0].length;
      }
      if (last < text.length) analyzeLatin(last === 0 ? text : text.slice(last), out);
      return out;
    },
  };
}
