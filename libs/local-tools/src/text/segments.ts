/**
 * Counting graphemes, words and sentences in linear time. `Intl.Segmenter` over one long string is
 * quadratic in Node 20's V8/ICU (80,000 characters: 2–14 s, by script), so the text is segmented
 * in windows: every segment but the last of a window is final (segmentation rules look only a few
 * characters ahead), and the next window starts where that last segment did. A segment longer
 * than a window (a run with no boundary) is counted once and skipped past, which can differ from
 * whole-text segmentation only inside such pathological runs.
 */

/** Code units per window: small enough that ICU's per-window cost stays flat. */
export const SEGMENT_WINDOW = 512;

type Granularity = 'grapheme' | 'word' | 'sentence';

/**
 * Counts the segments of `text` that `keep` accepts.
 * @throws RangeError for an invalid locale (from Intl.Segmenter)
 */
export function countSegments(text: string, segmenter: Intl.Segmenter, keep: (s: Intl.SegmentData) => boolean = () => true, window = SEGMENT_WINDOW): number {
  let n = 0;
  let pos = 0;
  // True while the previous window ended inside a segment that was already counted.
  let continuing = false;
  while (pos < text.length) {
    let end = Math.min(text.length, pos + window);
    // Never cut a surrogate pair in two.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    const segments = [...segmenter.segment(text.slice(pos, end))];
    const last = end === text.length;
    if (!last && segments.length <= 1) {
      // One segment fills the window: count it once, then skip on.
      if (!continuing && segments[0] !== undefined && keep(segments[0])) n++;
      continuing = true;
      pos = end;
      continue;
    }
    const final = last ? segments : segments.slice(0, -1);
    final.forEach((s, i) => {
      if (i === 0 && continuing) return;
      if (keep(s)) n++;
    });
    continuing = false;
    if (last) break;
    pos += (segments[segments.length - 1] as Intl.SegmentData).index;
  }
  return n;
}

/** A segmenter for `locale`; `granularity` as in Intl.Segmenter. @throws RangeError for a bad locale */
export function makeSegmenter(locale: string | undefined, granularity: Granularity): Intl.Segmenter {
  return new Intl.Segmenter(locale, { granularity });
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
