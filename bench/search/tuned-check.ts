/**
 * The small, fast check that a model folder gives the dense recall recorded for it: MetaTool's
 * 199 tools and `CHECK_QUERIES` queries of its evaluation split at an even stride (splits.ts; no training
 * or tuning saw them), ranked by cosine alone. The test suite runs it on the shipped tuned model
 * and on the base model (test/search/tuned-model.int.test.ts); run by hand with --write, it records
 * both results in the tuned model's card (scripts/embeddings/tuned/all-MiniLM-L6-v2-toolhub.json).
 *
 *   node scripts/build.mjs bench/search tuned-check.ts && node dist/bench/search/tuned-check.js [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { embeddingText, OnnxEmbeddings, type OnnxPrecision } from '@toolhub/search';

import { loadMetaTool, REPO_ROOT, strideSample } from './data';
import { benchModelDir } from './embeddings';
import { RetrievalMeter, type RetrievalScores } from './metrics';
import { metaToolSplits } from './splits';

export const TUNED_MODEL = 'all-MiniLM-L6-v2-toolhub';
export const BASE_MODEL = 'all-MiniLM-L6-v2';
export const CHECK_QUERIES = 300;
/** The card written beside the shipped layers by train_tool_search.py. */
export const TUNED_CARD = join(REPO_ROOT, 'scripts/embeddings/tuned', `${TUNED_MODEL}.json`);

/** The card's key of a result: the model's name (float queries), `<model> int8 queries` for the int8 export. */
export function checkKey(model: string, queryPrecision: OnnxPrecision): string {
  return queryPrecision === 'float' ? model : `${model} int8 queries`;
}

/**
 * Dense-only recall of `model` (exported in `modelDir`) on the check queries, the queries embedded
 * by the export `queryPrecision` names and the tool texts by the float one, as ToolHub does.
 */
export async function denseCheck(modelDir: string, model: string, queryPrecision: OnnxPrecision = 'float'): Promise<RetrievalScores> {
  const set = loadMetaTool(0);
  const queries = strideSample(metaToolSplits().evaluation, CHECK_QUERIES);
  const embedder = new OnnxEmbeddings({ modelDir, model, batchSize: 32, queryPrecision, toolPrecision: 'float' });
  const tools = await embedder.embed(set.tools.map(embeddingText), { background: true });
  const vectors = await embedder.embed(queries.map((q) => q.query));
  const meter = new RetrievalMeter();
  queries.forEach((q, i) => {
    const v = vectors[i]!;
    const ranked = set.tools
      .map((t, j) => ({ name: set.goldOf.get(t.id)!, cos: tools[j]!.reduce((s, x, k) => s + x * v[k]!, 0) }))
      .sort((a, b) => b.cos - a.cos || a.name.localeCompare(b.name))
      .map((r) => r.name);
    meter.add(ranked, q.gold);
  });
  return meter.scores();
}

async function main(): Promise<void> {
  const result: Record<string, RetrievalScores> = {};
  for (const model of [TUNED_MODEL, BASE_MODEL]) result[model] = await denseCheck(benchModelDir(model), model);
  result[checkKey(TUNED_MODEL, 'int8')] = await denseCheck(benchModelDir(TUNED_MODEL), TUNED_MODEL, 'int8');
  console.log(JSON.stringify(result, null, 2));
  if (process.argv.includes('--write')) {
    const card = JSON.parse(readFileSync(TUNED_CARD, 'utf8')) as Record<string, unknown>;
    card['check'] = { what: `dense recall, MetaTool evaluation split, ${CHECK_QUERIES} queries at an even stride, 199 tools (bench/search/tuned-check.ts)`, queries: CHECK_QUERIES, results: result };
    writeFileSync(TUNED_CARD, `${JSON.stringify(card, null, 2)}\n`);
    console.log(`recorded in ${TUNED_CARD}`);
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
