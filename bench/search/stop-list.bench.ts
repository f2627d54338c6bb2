/**
 * Chooses the query stop-list (words that mislead across providers) by measurement, not by guess:
 * every frequent query word of the VALIDATION half (even-numbered queries of MetaTool and BFCL) is
 * left out of the queries that contain it, and kept in the list only if lexical recall@5 rises on
 * the sum of both sets without falling on either. The EVALUATION half (odd-numbered queries) is
 * scored once, before and after, with the chosen list; it never takes part in the choice.
 *
 *   npm run bench -- search/stop-list.bench [--candidates 150] [--metatool 4000]
 */
import { createAnalyzer, type SearchIndexOptions, ToolSearchIndex } from '@toolhub/search';

import { loadBfcl, loadMetaTool, type RetrievalSet, writeResult } from './data';
import { distinct, RetrievalMeter, table } from './metrics';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CANDIDATES = arg('candidates', 150);
const analyzer = createAnalyzer();
const WORD = /[\p{L}\p{N}]+(?:[_.-][\p{L}\p{N}]+)*/gu;

type Query = { query: string; gold: string[] };
const half = (qs: Query[], parity: 0 | 1) => qs.filter((_, i) => i % 2 === parity);

/** Recall@5 of one query's hits. */
function recall5(index: ToolSearchIndex, set: RetrievalSet, q: Query): number {
  const names = distinct(index.search({ queries: [q.query], limit: 50 }).hits.map((h) => set.goldOf.get(h.id)!));
  const g = new Set(q.gold);
  return names.slice(0, 5).filter((x) => g.has(x)).length / g.size;
}

/** The query without the words whose terms are all in `stop` (unchanged when nothing else would remain). */
function withoutWords(query: string, stop: ReadonlySet<string>): string {
  const kept = query.replace(WORD, (w) => {
    const terms = analyzer.analyze(w);
    return terms.length > 0 && terms.every((t) => stop.has(t)) ? ' ' : w;
  });
  return analyzer.analyze(kept).length > 0 ? kept : query;
}

function score(set: RetrievalSet, queries: Query[], options: SearchIndexOptions) {
  const index = new ToolSearchIndex(options);
  index.upsert(set.tools);
  const meter = new RetrievalMeter();
  for (const q of queries) meter.add(distinct(index.search({ queries: [q.query], limit: 50 }).hits.map((h) => set.goldOf.get(h.id)!)), q.gold);
  return meter.scores();
}

function main(): void {
  const sets = [loadMetaTool(arg('metatool', 4000)), loadBfcl(0)];
  // Baseline: no stop-list (the measurement decides what goes in).
  const base: SearchIndexOptions = { queryStopWords: [] };
  const val = sets.map((s) => ({ set: s, queries: half(s.queries, 0), index: (() => { const i = new ToolSearchIndex(base); i.upsert(s.tools); return i; })() }));
  const perQuery = val.map((v) => v.queries.map((q) => recall5(v.index, v.set, q)));
  // Candidates: the most frequent terms of the validation queries (by the number of queries holding them).
  const freq = new Map<string, number>();
  for (const v of val) for (const q of v.queries) for (const t of new Set(analyzer.analyze(q.query))) freq.set(t, (freq.get(t) ?? 0) + 1);
  const candidates = [...freq.entries()].sort((a, b) => b[1] - a[1]).slice(0, CANDIDATES).map(([t]) => t);
  for (const t of ['now', 'new', 'get']) if (!candidates.includes(t) && freq.has(t)) candidates.push(t);
  const rows: Array<{ term: string; queries: number; delta: number[]; folds: number[] }> = [];
  for (const term of candidates) {
    const stop = new Set([term]);
    // Net queries gained per fold (validation queries alternate between two folds), summed over the sets.
    const folds = [0, 0];
    const delta = val.map((v, s) => {
      let d = 0;
      v.queries.forEach((q, i) => {
        const changed = withoutWords(q.query, stop);
        if (changed === q.query) return;
        const gain = recall5(v.index, v.set, { query: changed, gold: q.gold }) - perQuery[s]![i]!;
        d += gain;
        folds[i % 2]! += gain;
      });
      return d / v.queries.length;
    });
    rows.push({ term, queries: freq.get(term) ?? 0, delta, folds });
  }
  rows.sort((a, b) => b.delta[0]! + b.delta[1]! - (a.delta[0]! + a.delta[1]!));
  // A word goes in only if leaving it out wins queries in BOTH folds of the validation half (a
  // single lucky query does not count) and loses on neither set.
  const chosen = rows.filter((r) => r.folds.every((g) => g >= 1) && r.delta.every((d) => d >= 0)).map((r) => r.term);
  const f = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(4);
  console.log(`validation: ${val.map((v) => `${v.set.name} ${v.queries.length} even queries`).join(', ')}; ${candidates.length} candidate terms\n`);
  console.log(table(['term', 'val. queries', 'ΔR@5 MetaTool', 'ΔR@5 BFCL', 'net queries fold A / B'], rows.slice(0, 25).map((r) => [r.term, r.queries, f(r.delta[0]!), f(r.delta[1]!), r.folds.map((g) => g.toFixed(1)).join(' / ')])));
  for (const t of ['now', 'new', 'get']) {
    const r = rows.find((x) => x.term === t);
    console.log(`  ${t}: ${r ? `${f(r.delta[0]!)} / ${f(r.delta[1]!)} (in ${r.queries} validation queries; folds ${r.folds.map((g) => g.toFixed(1)).join(' / ')})` : 'in no validation query'}`);
  }
  console.log(`\nchosen (≥ 1 net query won in each validation fold, ΔR@5 ≥ 0 on each set): ${JSON.stringify(chosen)}\n`);
  const evaluation = sets.map((s) => {
    const queries = half(s.queries, 1);
    const before = score(s, queries, base);
    const after = score(s, queries, { queryStopWords: chosen });
    const valBefore = score(s, half(s.queries, 0), base);
    const valAfter = score(s, half(s.queries, 0), { queryStopWords: chosen });
    return { set: s.name, queries: queries.length, before, after, validation: { before: valBefore, after: valAfter } };
  });
  console.log(table(['set', 'half', 'queries', 'R@1 before', 'R@1 after', 'R@5 before', 'R@5 after', 'nDCG@10 before', 'nDCG@10 after'],
    evaluation.flatMap((e) => [
      [e.set, 'validation (even)', e.validation.before.queries, e.validation.before.r1, e.validation.after.r1, e.validation.before.r5, e.validation.after.r5, e.validation.before.ndcg10, e.validation.after.ndcg10],
      [e.set, 'evaluation (odd)', e.queries, e.before.r1, e.after.r1, e.before.r5, e.after.r5, e.before.ndcg10, e.after.ndcg10],
    ])));
  console.log(`\nresults: ${writeResult('search-stop-list', { candidates: rows, chosen, evaluation })}`);
}

main();
