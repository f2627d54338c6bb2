/**
 * Retrieval quality of the tool search: recall@1/5/10 and nDCG@10 on MetaTool (corpus: its 199
 * tools) and BFCL (corpus: bfcl-functions.jsonl), against a plain baseline in the same run
 * (MiniSearch over name + description, default tokenizer, no boosts, no fuzzy or prefix), plus
 * ablations of the analyzer's features. Prints Markdown tables and writes
 * bench/results/search-retrieval.json.
 *
 *   npx tsx bench/search/retrieval.bench.ts [--metatool N] [--bfcl N] [--no-ablations]
 *
 * --metatool N: MetaTool queries at an even stride (default 2000 of 20,614; 0 = all);
 * --bfcl N: BFCL queries likewise (default 0 = all 2,351).
 */
import { type SearchIndexOptions, ToolSearchIndex } from '@toolhub/search';
import MiniSearch from 'minisearch';

import { loadBfcl, loadMetaTool, type RetrievalSet, writeResult } from './data';
import { distinct, RetrievalMeter, type RetrievalScores, table } from './metrics';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Hits fetched per query: BFCL indexes several variants of one function, which collapse to one name. */
const FETCH = 50;

function runBaseline(set: RetrievalSet): RetrievalScores {
  const mini = new MiniSearch<{ id: string; name: string; description: string }>({ fields: ['name', 'description'] });
  mini.addAll(set.raw);
  const meter = new RetrievalMeter();
  for (const q of set.queries) {
    const ranked = distinct(mini.search(q.query).map((r) => set.goldOf.get(r.id as string)!));
    meter.add(ranked, q.gold);
  }
  return meter.scores();
}

function runIndex(set: RetrievalSet, options: SearchIndexOptions): RetrievalScores & { msPerQuery: number } {
  const index = new ToolSearchIndex(options);
  index.upsert(set.tools);
  const meter = new RetrievalMeter();
  const start = process.hrtime.bigint();
  for (const q of set.queries) {
    const { hits } = index.search({ queries: [q.query], limit: FETCH });
    meter.add(distinct(hits.map((h) => set.goldOf.get(h.id)!)), q.gold);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ...meter.scores(), msPerQuery: Math.round((ms / set.queries.length) * 1000) / 1000 };
}

const variants: Array<[string, SearchIndexOptions]> = [
  ['toolhub (default)', {}],
  ['no synonyms', { synonyms: false }],
  ['no stemming', { stemming: false }],
  ['no fuzzy/prefix', { fuzzy: false, prefixMinLength: 0 }],
  ['equal field weights', { weights: { name: 1, category: 1, description: 1, params: 1 } }],
  ['keep common words', { commonTermShare: 1 }],
];

function main(): void {
  const ablations = !process.argv.includes('--no-ablations');
  const sets = [loadMetaTool(arg('metatool', 2000)), loadBfcl(arg('bfcl', 0))];
  const rows: Array<Array<string | number>> = [];
  const json: Record<string, unknown> = {};
  for (const set of sets) {
    const results: Record<string, RetrievalScores> = { 'baseline (BM25 name+description)': runBaseline(set) };
    for (const [label, options] of ablations ? variants : variants.slice(0, 1)) results[label] = runIndex(set, options);
    for (const [label, s] of Object.entries(results)) rows.push([set.name, label, s.queries, s.r1, s.r5, s.r10, s.ndcg10, 'msPerQuery' in s ? String(s.msPerQuery) : '']);
    json[set.name] = { tools: set.tools.length, queries: set.queries.length, results };
  }
  console.log(table(['set', 'system', 'queries', 'R@1', 'R@5', 'R@10', 'nDCG@10', 'ms/query'], rows));
  const file = writeResult('search-retrieval', { date: new Date().toISOString(), node: process.version, sets: json });
  console.log(`\n${JSON.stringify(json)}\n\nwritten to ${file}`);
}

main();
