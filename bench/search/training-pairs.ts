/**
 * Writes the query → tool pairs a tool-search model is fine-tuned on (scripts/embeddings/
 * train_tool_search.py): the **train** split of splits.ts only, each pair the query and the text
 * ToolHub embeds for its gold tool (`embeddingText`, so the model learns on what it will see).
 * A query with several gold tools gives one pair per tool; a BFCL name with variants (providers
 * `bfcl`, `bfcl-2`, ...) gives one pair per distinct text, at most `MAX_VARIANTS`. With
 * `toolDisjoint` (BFCL), a training query is left out when one of its gold tools is a gold tool of
 * a validation or evaluation query, so those sets measure tools the model never saw. MetaTool
 * cannot be split so (every query asks for one of its 199 tools): its held-out queries are new
 * phrasings of trained tools.
 *
 *   node scripts/build.mjs bench/search training-pairs.ts && node dist/bench/search/training-pairs.js OUT_DIR
 *
 * Writes OUT_DIR/train.jsonl (`{query, tool, toolId, set}`) and OUT_DIR/summary.json (counts, and
 * how many evaluation queries have a gold tool that also occurs in training).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { embeddingText } from '@toolhub/search';

import { loadBfcl, loadMetaTool, type RetrievalSet } from './data';
import { bfclSplits, metaToolSplits, type Split, type SplitQuery } from './splits';

/** Texts per gold name (BFCL names repeat across its categories with other descriptions). */
const MAX_VARIANTS = 2;

interface Pair {
  query: string;
  tool: string;
  toolId: string;
  set: string;
}

function pairs(set: RetrievalSet, splits: Record<Split, SplitQuery[]>, toolDisjoint: boolean): { pairs: Pair[]; summary: Record<string, number> } {
  const textsOf = new Map<string, Array<{ id: string; text: string }>>();
  for (const t of set.tools) {
    const gold = set.goldOf.get(t.id)!;
    const have = textsOf.get(gold) ?? [];
    const text = embeddingText(t);
    if (have.length < MAX_VARIANTS && !have.some((h) => h.text === text)) have.push({ id: t.id, text });
    textsOf.set(gold, have);
  }
  const heldOutGold = new Set([...splits.validation, ...splits.evaluation].flatMap((q) => q.gold));
  let leftOut = 0;
  const out: Pair[] = [];
  const trainedGold = new Set<string>();
  for (const q of splits.train) {
    if (toolDisjoint && q.gold.some((g) => heldOutGold.has(g))) {
      leftOut++;
      continue;
    }
    for (const g of q.gold) {
      for (const t of textsOf.get(g) ?? []) out.push({ query: q.query, tool: t.text, toolId: t.id, set: set.name });
      if (textsOf.has(g)) trainedGold.add(g);
    }
  }
  const seen = (qs: SplitQuery[]) => qs.filter((q) => q.gold.some((g) => trainedGold.has(g))).length;
  return {
    pairs: out,
    summary: {
      trainQueries: splits.train.length - leftOut,
      trainQueriesLeftOutForAHeldOutTool: leftOut,
      validationQueries: splits.validation.length,
      evaluationQueries: splits.evaluation.length,
      pairs: out.length,
      toolsInTraining: trainedGold.size,
      toolsInCatalog: textsOf.size,
      evaluationQueriesWithATrainedGoldTool: seen(splits.evaluation),
      validationQueriesWithATrainedGoldTool: seen(splits.validation),
    },
  };
}

function main(): void {
  const dir = resolve(process.argv[2] ?? 'tmp/train-search');
  mkdirSync(dir, { recursive: true });
  const meta = pairs(loadMetaTool(0), metaToolSplits(), false);
  const bfcl = pairs(loadBfcl(0), bfclSplits(), true);
  writeFileSync(join(dir, 'train.jsonl'), [...meta.pairs, ...bfcl.pairs].map((p) => JSON.stringify(p)).join('\n') + '\n');
  const summary = { MetaTool: meta.summary, BFCL: bfcl.summary };
  writeFileSync(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary, null, 2));
}

main();
