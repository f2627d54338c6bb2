/**
 * Retrieval quality of the tool search: recall@1/5/10 and nDCG@10 on MetaTool (corpus: its 199
 * tools) and BFCL (corpus: bfcl-functions.jsonl), against a plain baseline in the same run
 * (MiniSearch over name + description, default tokenizer, no boosts, no fuzzy or prefix), plus
 * ablations of the analyzer's features; then dense (all-MiniLM-L6-v2 through the local
 * OpenAI-compatible embeddings server, or TOOLHUB_EMBEDDINGS_URL) and hybrid rankings, and
 * learning from use on a replay split (the runs of one set of queries teach, a disjoint set is
 * scored). Prints Markdown tables and writes bench/results/search-retrieval.json. Vectors are
 * cached in bench/results/cache/ (a first run embeds ~2,000 tools and ~8,700 queries: minutes).
 *
 *   node scripts/build.mjs bench/search retrieval.bench.ts && node dist/bench/search/retrieval.bench.js \
 *     [--metatool N] [--bfcl N] [--sets metatool,bfcl] [--half even|odd] [--no-ablations] [--no-dense]
 *     [--split validation|evaluation] [--models all-MiniLM-L6-v2,all-MiniLM-L6-v2-toolhub] [--sweep] [--no-learning]
 *
 * --metatool N: MetaTool queries at an even stride (default 2000 of 20,614; 0 = all);
 * --bfcl N: BFCL queries likewise (default 0 = all 2,351);
 * --half: only the even or odd queries of each set's sample (the fusion default was picked on the
 * even ones; the odd ones are held out).
 * --split: the queries of one split of splits.ts (validation: where settings are tuned;
 * evaluation: scored only; neither was trained on); replaces --half and the samples.
 * --models: the local models to compare, run in process (ONNX export or a jar-published model,
 * scripts/services.sh embeddings-model: all-MiniLM-L6-v2[-toolhub], bge-small-en-v1.5[-q], e5-small-v2-q), instead of the embeddings server; --sweep adds the weighted fusion at lexical
 * weights 0.1–0.6 (to tune on the validation split); --no-learning skips the learning replay.
 * --precisions: with --models, which ONNX exports embed (default: OnnxEmbeddings' defaults, int8
 * queries and float tool texts): `float` (both model.onnx), `int8` (queries model.int8.onnx, tool
 * texts model.onnx), `int8-all` (both model.int8.onnx); vectors cached per export.
 */
import { SearchMode } from '@toolhub/contracts';
import { type FusionOptions, HybridSearch, OnnxEmbeddings, type OnnxEmbeddingsOptions, OpenAiEmbeddings, type SearchIndexOptions, ToolSearchIndex, type VectorStore } from '@toolhub/search';
import MiniSearch from 'minisearch';

import { loadBfcl, loadMetaTool, readJsonl, type RetrievalSet, strideSample, writeResult } from './data';
import { benchEmbeddings, benchModelDir, CachedEmbedder, cacheNameOf, FileVectorStore, storeAs } from './embeddings';
import { distinct, RetrievalMeter, type RetrievalScores, table } from './metrics';
import { bfclSplits, metaToolSplits, type Split } from './splits';

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
    const names = hits.map((h) => set.goldOf.get(h.id)!);
    meter.add(distinct(names), q.gold, names);
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
  ['leave out common words (commonTermShare 0.3)', { commonTermShare: 0.3 }],
];

/**
 * Fusion settings compared; the first is the default (weighted 0.3/0.7, picked on the even queries
 * of both sets: see fusion.ts), the others are round numbers, not tuned per set.
 */
const fusions: Array<[string, FusionOptions]> = [
  // {}: the model's default, 0.3/0.7, or its MODEL_FUSION weights (the tuned model: 0.2/0.8).
  ['hybrid (weighted, default: 0.3/0.7; tuned model 0.2/0.8)', {}],
  ['hybrid (RRF k=60, the default before 2026-11-26)', { method: 'rrf' }],
  ['hybrid (RRF k=60, dense ×2)', { method: 'rrf', denseWeight: 2 }],
  ['hybrid (weighted 0.5/0.5)', { method: 'weighted', lexicalWeight: 0.5, denseWeight: 0.5 }],
];

async function runHybrid(search: HybridSearch, set: RetrievalSet, queries: RetrievalSet['queries'], mode: SearchMode): Promise<RetrievalScores & { msPerQuery: number }> {
  const meter = new RetrievalMeter();
  const start = process.hrtime.bigint();
  for (const q of queries) {
    const res = await search.search({ queries: [q.query], limit: FETCH, mode });
    if (res.note && !res.note.startsWith('Semantic ranking covers')) throw new Error(`search degraded: ${res.note}`);
    const names = res.hits.map((h) => set.goldOf.get(h.id)!);
    meter.add(distinct(names), q.gold, names);
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ...meter.scores(), msPerQuery: Math.round((ms / queries.length) * 1000) / 1000 };
}

/**
 * The share of gold tools in the top 5 of either list (lexical, dense): what a fusion scores when its
 * top 5 draws only on the two lists' top 5s. Not a strict bound (two lists that disagree above an
 * item can fuse it into the top 5 from below both), but the measure of how much the lists together
 * hold; with R@20 of the hybrid, the most a reranker of its first 20 could reach (issue 33's BFCL aim).
 */
async function eitherTop5(index: ToolSearchIndex, dense: HybridSearch, set: RetrievalSet): Promise<number> {
  let found = 0;
  for (const q of set.queries) {
    const lexical = distinct(index.search({ queries: [q.query], limit: FETCH }).hits.map((h) => set.goldOf.get(h.id)!)).slice(0, 5);
    const semantic = distinct((await dense.search({ queries: [q.query], limit: FETCH, mode: SearchMode.SEARCH_MODE_SEMANTIC })).hits.map((h) => set.goldOf.get(h.id)!)).slice(0, 5);
    const either = new Set([...lexical, ...semantic]);
    found += q.gold.filter((g) => either.has(g)).length / q.gold.length;
  }
  return Math.round((found / Math.max(1, set.queries.length)) * 1000) / 1000;
}

/**
 * Learning from use, replayed: every `history` query is searched and its gold tool "runs" with
 * the search id; then `evaluation` (disjoint from history) is scored with and without the memory.
 */
async function runLearning(make: (learning: boolean) => HybridSearch, set: RetrievalSet, history: RetrievalSet['queries'], evaluation: RetrievalSet['queries']) {
  const idOfGold = new Map<string, string>();
  for (const [id, gold] of set.goldOf) if (!idOfGold.has(gold)) idOfGold.set(gold, id);
  const learner = make(true);
  await learner.syncVectors();
  let recorded = 0;
  for (const q of history) {
    const res = await learner.search({ queries: [q.query], limit: 10 });
    const id = idOfGold.get(q.gold[0]!);
    if (id && learner.recordRun(res.searchId, id, id.split(':')[0]!)) recorded++;
  }
  const plain = make(false);
  await plain.syncVectors();
  return {
    recorded,
    without: await runHybrid(plain, set, evaluation, SearchMode.SEARCH_MODE_HYBRID),
    with: await runHybrid(learner, set, evaluation, SearchMode.SEARCH_MODE_HYBRID),
  };
}

async function main(): Promise<void> {
  const ablations = !process.argv.includes('--no-ablations');
  const dense = !process.argv.includes('--no-dense');
  const half = process.argv.includes('--half') ? process.argv[process.argv.indexOf('--half') + 1] : undefined;
  if (half !== undefined && half !== 'even' && half !== 'odd') throw new Error(`--half takes even or odd, not ${half}`);
  // --sets metatool,bfcl (default both): a run on one set when the other's vectors are not cached yet.
  const only = process.argv.includes('--sets') ? process.argv[process.argv.indexOf('--sets') + 1]!.toLowerCase().split(',') : ['metatool', 'bfcl'];
  const loaders: Array<[string, () => RetrievalSet]> = [['metatool', () => loadMetaTool(arg('metatool', 2000))], ['bfcl', () => loadBfcl(arg('bfcl', 0))]];
  const split = process.argv.includes('--split') ? (process.argv[process.argv.indexOf('--split') + 1] as Split) : undefined;
  if (split !== undefined && split !== 'validation' && split !== 'evaluation') throw new Error(`--split takes validation or evaluation, not ${split}`);
  const splitOf: Record<string, () => Record<Split, Array<{ query: string; gold: string[] }>>> = { MetaTool: metaToolSplits, BFCL: bfclSplits };
  const sets = loaders
    .filter(([n]) => only.includes(n))
    .map(([, load]) => load())
    .map((set) => (split ? { ...set, queries: splitOf[set.name]!()[split] } : half ? { ...set, queries: set.queries.filter((_, i) => i % 2 === (half === 'even' ? 0 : 1)) } : set));
  const models = process.argv.includes('--models') ? process.argv[process.argv.indexOf('--models') + 1]!.split(',') : undefined;
  const sweep = process.argv.includes('--sweep');
  const learningReplay = !process.argv.includes('--no-learning');
  const rows: Array<Array<string | number>> = [];
  const learnRows: Array<Array<string | number>> = [];
  const ceilingRows: Array<Array<string | number>> = [];
  const json: Record<string, unknown> = {};
  const endpoint = dense && !models ? await benchEmbeddings() : undefined;
  try {
    const store = new FileVectorStore();
    const embedders: Array<{ embedder: CachedEmbedder; label: string; toolStore: VectorStore }> = [];
    if (endpoint) embedders.push({ embedder: new CachedEmbedder(new OpenAiEmbeddings({ url: endpoint.url, batchSize: 64, timeoutMs: 600_000 }), store), label: '', toolStore: store });
    const precisionOptions: Record<string, Pick<OnnxEmbeddingsOptions, 'queryPrecision' | 'toolPrecision'>> = {
      default: {},
      float: { queryPrecision: 'float', toolPrecision: 'float' },
      int8: { queryPrecision: 'int8', toolPrecision: 'float' },
      'int8-all': { queryPrecision: 'int8', toolPrecision: 'int8' },
    };
    const precisions = process.argv.includes('--precisions') ? process.argv[process.argv.indexOf('--precisions') + 1]!.split(',') : ['default'];
    for (const p of precisions) if (!precisionOptions[p]) throw new Error(`--precisions takes ${Object.keys(precisionOptions).join(', ')}, not ${p}`);
    for (const model of dense ? (models ?? []) : []) {
      for (const p of precisions) {
        const onnx = new OnnxEmbeddings({ modelDir: benchModelDir(model), model, batchSize: 32, threads: 2, ...precisionOptions[p] });
        const card = await onnx.load();
        const cacheAs = { queries: cacheNameOf(model, await onnx.modelFile(false)), tools: cacheNameOf(model, await onnx.modelFile(true)) };
        const label = precisions.length > 1 || p !== 'default' ? `${model} [queries ${cacheAs.queries}, tools ${cacheAs.tools}]` : model;
        embedders.push({ embedder: new CachedEmbedder(onnx, store, cacheAs, card.queryPrefix !== card.documentPrefix), label, toolStore: storeAs(store, cacheAs.tools) });
      }
    }
    for (const set of sets) {
      const results: Record<string, RetrievalScores> = { 'baseline (BM25 name+description)': runBaseline(set) };
      for (const [label, options] of ablations ? variants : variants.slice(0, 1)) results[label] = runIndex(set, options);
      const learning: Record<string, unknown> = {};
      const ceilings: Record<string, number> = {};
      for (const { embedder, label: name, toolStore } of embedders) {
        const tag = embedders.length > 1 || name !== embedder.model ? `${name || embedder.model}: ` : '';
        const index = new ToolSearchIndex();
        index.upsert(set.tools);
        const make = (fusion: FusionOptions, learn = false) => new HybridSearch(index, { embedder, vectors: toolStore, fusion, learning: learn ? {} : false, queryTimeoutMs: 600_000 });
        const t0 = performance.now();
        const first = make({});
        const sync = await first.syncVectors();
        console.error(`${set.name}: tool vectors ${JSON.stringify(sync)} in ${Math.round(performance.now() - t0)} ms`);
        // Queries in large batches first (cached), so the searches below do not embed one by one.
        for (let i = 0; i < set.queries.length; i += 512) await embedder.embed(set.queries.slice(i, i + 512).map((q) => q.query));
        results[`${tag}dense (${embedder.model})`] = await runHybrid(first, set, set.queries, SearchMode.SEARCH_MODE_SEMANTIC);
        ceilings[`${tag}${embedder.model}`] = await eitherTop5(index, first, set);
        const swept: Array<[string, FusionOptions]> = sweep ? [0.1, 0.2, 0.3, 0.4, 0.5, 0.6].map((w) => [`hybrid (weighted ${w}/${Math.round((1 - w) * 10) / 10})`, { method: 'weighted', lexicalWeight: w, denseWeight: 1 - w }]) : [];
        for (const [label, fusion] of [...fusions, ...swept]) {
          const h = make(fusion);
          await h.syncVectors();
          results[`${tag}${label}`] = await runHybrid(h, set, set.queries, SearchMode.SEARCH_MODE_HYBRID);
        }
        if (!learningReplay) continue;
        const split = replaySplit(set);
        for (let i = 0; i < split.history.length; i += 512) await embedder.embed(split.history.slice(i, i + 512).map((q) => q.query));
        const l = await runLearning((learn) => make({}, learn), set, split.history, split.evaluation);
        learning[name || embedder.model] = { ...l, history: split.history.length, evaluation: split.evaluation.length, how: split.how };
        for (const [label, s] of [[`${tag}hybrid`, l.without], [`${tag}hybrid + learning from use`, l.with]] as const) {
          learnRows.push([set.name, label, split.how, l.recorded, s.queries, s.r1, s.r5, s.r10, s.ndcg10]);
        }
      }
      for (const [label, s] of Object.entries(results)) rows.push([set.name, label, s.queries, s.r1, s.r5, s.r10, s.r20, s.ndcg10, s.r5hits ?? '', 'msPerQuery' in s ? String(s.msPerQuery) : '']);
      json[set.name] = { tools: set.tools.length, queries: set.queries.length, results, learning, eitherTop5: ceilings };
      for (const [model, share] of Object.entries(ceilings)) ceilingRows.push([set.name, model, share]);
    }
    console.log(table(['set', 'system', 'queries', 'R@1', 'R@5', 'R@10', 'R@20', 'nDCG@10', 'R@5 of 5 hits', 'ms/query'], rows));
    if (ceilingRows.length) console.log(`\nGold in the top 5 of either list (lexical, dense):\n\n${table(['set', 'model', 'share of gold'], ceilingRows)}`);
    if (learnRows.length) console.log(`\nLearning from use (replay):\n\n${table(['set', 'system', 'split', 'runs recorded', 'scored queries', 'R@1', 'R@5', 'R@10', 'nDCG@10'], learnRows)}`);
    for (const { embedder } of embedders) console.error(`${embedder.model}: embedding calls this run: ${embedder.calls} (${embedder.texts} texts, ${Math.round(embedder.ms)} ms); the rest came from bench/results/cache/`);
    const file = writeResult(split ? `search-retrieval-${split}` : 'search-retrieval', { date: new Date().toISOString(), node: process.version, models: embedders.map((e) => e.label || e.embedder.model), split, sets: json });
    console.log(`\n${JSON.stringify(json)}\n\nwritten to ${file}`);
  } finally {
    endpoint?.stop();
  }
}

/**
 * Disjoint history and evaluation queries. MetaTool: the scored queries are the usual sample and
 * the history is the query after each of them in the file (not in the sample). BFCL: all queries
 * are scored otherwise, so the even ones are history and the odd ones are scored.
 */
function replaySplit(set: RetrievalSet): { history: RetrievalSet['queries']; evaluation: RetrievalSet['queries']; how: string } {
  if (set.name === 'MetaTool') {
    const all = readJsonl<{ query: string; gold: string[] }>('retrieval/metatool/queries.jsonl').map((q) => ({ query: q.query, gold: q.gold.map((g) => g.toLowerCase()) }));
    const scored = new Set(set.queries.map((q) => q.query));
    const n = set.queries.length;
    const picked = strideSample(all.map((q, i) => ({ q, i })), n).map(({ i }) => all[i + 1]).filter((q): q is (typeof all)[number] => q !== undefined && !scored.has(q.query));
    return { history: picked, evaluation: set.queries, how: 'next query in file' };
  }
  const history = set.queries.filter((_, i) => i % 2 === 0);
  const historyText = new Set(history.map((q) => q.query));
  return { history, evaluation: set.queries.filter((q, i) => i % 2 === 1 && !historyText.has(q.query)), how: 'even → history, odd → scored' };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
