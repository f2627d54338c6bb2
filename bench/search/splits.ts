/**
 * The one definition of which retrieval-set queries may train a model, tune a setting, or score
 * the result, so the training data (training-pairs.ts), the fusion sweep and the retrieval bench
 * can never overlap. Positions are those of the bench's samples:
 *
 * - MetaTool: the bench's 4,000-query stride sample of the 20,614 (`strideSample(all, 4000)`);
 *   its odd-numbered half is **evaluation**, its even-numbered half **validation** (the fusion
 *   weights and the stop-list were chosen there before); every query outside the sample is
 *   **train** unless its text (case and spacing folded) is also an evaluation or validation query.
 * - BFCL: all 2,351 queries; odd-numbered positions are **evaluation** (as before), positions
 *   2 mod 4 **validation**, positions 0 mod 4 **train** (minus texts that are also held out).
 */
import { readJsonl, strideSample } from './data';

export type Split = 'train' | 'validation' | 'evaluation';

export interface SplitQuery {
  query: string;
  gold: string[];
}

/** The stride sample the MetaTool halves are cut from. */
export const METATOOL_SAMPLE = 4000;

const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

function split<T extends SplitQuery>(all: T[], heldOut: Map<number, Split>): Record<Split, T[]> {
  const out: Record<Split, T[]> = { train: [], validation: [], evaluation: [] };
  const heldText = new Set<string>();
  for (const [i, s] of heldOut) {
    out[s].push(all[i]!);
    heldText.add(fold(all[i]!.query));
  }
  for (let i = 0; i < all.length; i++) if (!heldOut.has(i) && !heldText.has(fold(all[i]!.query))) out.train.push(all[i]!);
  return out;
}

/** MetaTool's queries by split (gold names lower-cased, as loadMetaTool has them). */
export function metaToolSplits(): Record<Split, SplitQuery[]> {
  const all = readJsonl<SplitQuery>('retrieval/metatool/queries.jsonl').map((q) => ({ query: q.query, gold: q.gold.map((g) => g.toLowerCase()) }));
  const positions = strideSample(all.map((_, i) => i), METATOOL_SAMPLE);
  return split(all, new Map(positions.map((i, k) => [i, k % 2 === 1 ? 'evaluation' : 'validation'])));
}

/** BFCL's queries by split. */
export function bfclSplits(): Record<Split, SplitQuery[]> {
  const all = readJsonl<SplitQuery>('retrieval/bfcl/queries.jsonl');
  const held = new Map<number, Split>();
  for (let i = 0; i < all.length; i++) if (i % 4 !== 0) held.set(i, i % 2 === 1 ? 'evaluation' : 'validation');
  return split(all, held);
}
