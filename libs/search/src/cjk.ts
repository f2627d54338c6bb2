/**
 * Word segmentation of Chinese, Japanese and Korean text, and of the other scripts written
 * without spaces between words (Thai, Lao, Khmer, Myanmar): a whitespace tokenizer would index a
 * whole sentence of them as one "word". Node's ICU
 * (`Intl.Segmenter`, full ICU since Node 13) segments by dictionary; where it is missing (a
 * small-ICU build) the text falls back to overlapping character bigrams, the classic CJK
 * indexing unit that needs no dictionary.
 */

/**
 * Matches one run of CJK characters (Han, Hiragana, Katakana, Hangul) or of Thai, Lao, Khmer or
 * Myanmar, which ICU segments with its dictionaries as well. "CJK" below stands for all of them.
 */
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;

/** True when `text` contains at least one CJK character (in the sense of {@link CJK_RUN}). */
export function hasCjk(text: string): boolean {
  CJK_RUN.lastIndex = 0;
  const found = CJK_RUN.test(text);
  CJK_RUN.lastIndex = 0;
  return found;
}

/** Splits a CJK run into words. */
export type CjkSegmenter = (run: string) => string[];

/** Overlapping bigrams: "搜索结果" → 搜索, 索结, 结果. A single character stays as it is. */
export function cjkBigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/**
 * The best segmenter this runtime offers: ICU word segmentation when it knows Chinese words
 * (probed once: "搜索结果" must come back as more than single characters), bigrams otherwise.
 */
export function createCjkSegmenter(): { segment: CjkSegmenter; kind: 'icu' | 'bigram' } {
  if (typeof Intl.Segmenter === 'function') {
    try {
      const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
      const probe = [...segmenter.segment('搜索结果')].map((s) => s.segment);
      if (probe.some((w) => w.length > 1)) {
        const segment: CjkSegmenter = (run) => {
          const words: string[] = [];
          for (const s of segmenter.segment(run)) if (s.isWordLike) words.push(s.segment);
          return words;
        };
        return { segment, kind: 'icu' };
      }
    } catch {
      // A runtime without the 'zh' locale data throws here; bigrams need no data.
    }
  }
  return { segment: cjkBigrams, kind: 'bigram' };
}
