/** Near-miss matching of strings: enum values that can be corrected, property names to suggest. */
import { distance } from 'fastest-levenshtein';

/** Lower case without `-`, `_`, spaces and dots: `Dark-Mode` and `dark_mode` compare equal. */
function loose(value: string): string {
  return value.toLowerCase().replace(/[-_\s.]/g, '');
}

function digits(value: string): string {
  return value.replace(/\D/g, '');
}

/** The result of matching one value against a list of candidates. */
export type NearMiss =
  | { kind: 'match'; value: string; how: 'case' | 'distance'; distance: number }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'none' };

/**
 * The one candidate `value` safely corrects to, if any:
 * 1. equal ignoring case and `-`/`_`/space/`.` separators, and only one candidate is; else
 * 2. edit distance ≤ 2 on the loose forms, with a unique closest candidate, where the allowed
 *    distance grows with length (≤ 1 from 3 characters, ≤ 2 from 8), short words (< 5) must keep
 *    their first letter (`csv` never becomes `tsv`, `get` never `set`), and the digits must be the
 *    same (`gpt-5` never becomes `gpt-4`, `mp3` never `mp4`).
 */
export function correctableTo(value: string, candidates: readonly string[]): NearMiss {
  const target = loose(value);
  const equal = candidates.filter((c) => loose(c) === target);
  if (equal.length === 1) return { kind: 'match', value: equal[0]!, how: 'case', distance: 0 };
  if (equal.length > 1) return { kind: 'ambiguous', candidates: equal };
  if (target.length === 0) return { kind: 'none' };
  let best = Infinity;
  let winners: string[] = [];
  for (const candidate of candidates) {
    const d = distance(target, loose(candidate));
    if (d < best) {
      best = d;
      winners = [candidate];
    } else if (d === best) {
      winners.push(candidate);
    }
  }
  const shorter = Math.min(target.length, ...winners.map((w) => loose(w).length));
  const allowed = shorter >= 8 ? 2 : shorter >= 3 ? 1 : 0;
  if (best > allowed) return { kind: 'none' };
  if (winners.length > 1) return { kind: 'ambiguous', candidates: winners };
  const winner = winners[0]!;
  if (digits(winner) !== digits(value)) return { kind: 'none' };
  // Short words have many real neighbours (get/set, csv/tsv): there, only a typo after the first letter.
  if (shorter < 5 && loose(winner)[0] !== target[0]) return { kind: 'none' };
  return { kind: 'match', value: winner, how: 'distance', distance: best };
}

/**
 * The candidate most likely meant by `value`, for a "did you mean" hint (never applied silently):
 * looser than {@link correctableTo}, up to a third of the length in edits.
 */
export function suggestionFor(value: string, candidates: readonly string[]): string | undefined {
  const target = loose(value);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const l = loose(candidate);
    const d = l === target ? 0 : l.includes(target) || target.includes(l) ? Math.abs(l.length - target.length) / 2 : distance(target, l);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(2, Math.ceil(target.length / 3)) ? best : undefined;
}
