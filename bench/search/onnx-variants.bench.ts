/**
 * A whole hybrid search over 20,000 tools on a query never seen before, with the query embedded in
 * process (OnnxEmbeddings) under several settings, alternated query by query so every variant sees
 * the same machine load: the float export vs the int8 one (scripts/embeddings/export_onnx.py),
 * onnxruntime threads 1 vs 2, and session options (memory arena, graph optimisation level). Reports
 * p50/p95/p99 of the search, the model run alone (embed) and CPU per search (all threads of the
 * process). Tool vectors as in hybrid-latency.bench.ts (seeded random; ranking cost does not depend
 * on their values). Writes bench/results/search-onnx-variants.json.
 *
 *   node scripts/build.mjs bench/search onnx-variants.bench.ts && node dist/bench/search/onnx-variants.bench.js \
 *     [--tools 20000] [--queries 600] [--variants float-1t,int8-1t,...]
 *
 * The model folder: TOOLHUB_EMBEDDINGS_MODEL_DIR, else scripts/services.sh embeddings-model's.
 */
import { SearchMode } from '@toolhub/contracts';
import { type Embedder, type EmbedOptions, embeddingKey, HybridSearch, OnnxEmbeddings, type OnnxEmbeddingsOptions, ToolSearchIndex, type VectorStore } from '@toolhub/search';
import { exportedModelDir } from '@toolhub/search/testing';
import { seededRandom } from '@toolhub/test-harness';

import { readJsonl, scaledCatalog, strideSample, writeResult } from './data';
import { percentiles, table } from './metrics';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const DIMS = 384;

type Variant = Omit<OnnxEmbeddingsOptions, 'modelDir'>;
const VARIANTS: Record<string, Variant> = {
  'float-1t': { queryPrecision: 'float', threads: 1 },
  'float-2t': { queryPrecision: 'float', threads: 2 },
  'int8-1t': { queryPrecision: 'int8', threads: 1 },
  'int8-2t': { queryPrecision: 'int8', threads: 2 },
  'int8-1t-noarena': { queryPrecision: 'int8', threads: 1, sessionOptions: { enableCpuMemArena: false, enableMemPattern: false } },
  'int8-1t-extended': { queryPrecision: 'int8', threads: 1, sessionOptions: { graphOptimizationLevel: 'extended' } },
  'float-1t-basic': { queryPrecision: 'float', threads: 1, sessionOptions: { graphOptimizationLevel: 'basic' } },
  // onnxruntime's pool threads spin after each op by default (CPU burnt between runs).
  'int8-2t-nospin': { queryPrecision: 'int8', threads: 2, sessionOptions: { extra: { session: { 'intra_op.allow_spinning': '0' } } } },
  'int8-1t-sequential': { queryPrecision: 'int8', threads: 1, sessionOptions: { executionMode: 'sequential', extra: { session: { 'intra_op.allow_spinning': '0' } } } },
};

/** Times each model run of the wrapped embedder (the search's share spent in the model). */
class TimedEmbedder implements Embedder {
  readonly model: string;
  last = 0;
  constructor(readonly inner: OnnxEmbeddings) {
    this.model = inner.model;
  }
  async embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]> {
    const t0 = process.hrtime.bigint();
    const out = await this.inner.embed(texts, options);
    this.last = Number(process.hrtime.bigint() - t0);
    return out;
  }
}

async function main(): Promise<void> {
  const modelDir = process.env['TOOLHUB_EMBEDDINGS_MODEL_DIR'] || exportedModelDir();
  const names = process.argv.includes('--variants') ? process.argv[process.argv.indexOf('--variants') + 1]!.split(',') : Object.keys(VARIANTS);
  for (const n of names) if (!VARIANTS[n]) throw new Error(`unknown variant ${n}; one of ${Object.keys(VARIANTS).join(', ')}`);
  const tools = scaledCatalog(arg('tools', 20_000));
  const random = seededRandom(7);
  const index = new ToolSearchIndex();
  index.upsert(tools);
  const probe = new OnnxEmbeddings({ modelDir });
  const stored = new Map<string, Float32Array>();
  for (const [, text] of index.embeddingTexts()) {
    const v = Float32Array.from({ length: DIMS }, () => random() - 0.5);
    const n = Math.hypot(...v);
    stored.set(embeddingKey(probe.model, text), v.map((x) => x / n));
  }
  const vectors: VectorStore = { loadVectors: async (_m, keys) => new Map(keys.map((k) => [k, stored.get(k)!])), saveVectors: async () => undefined };
  const runs = await Promise.all(
    names.map(async (name) => {
      const onnx = new OnnxEmbeddings({ modelDir, ...VARIANTS[name] });
      await onnx.load();
      const timed = new TimedEmbedder(onnx);
      const search = new HybridSearch(index, { embedder: timed, vectors, learning: false, queryTimeoutMs: 60_000 });
      const sync = await search.syncVectors();
      if (sync.embedded !== 0) throw new Error(`unexpected sync ${JSON.stringify(sync)}`);
      return { name, file: await onnx.modelFile(), timed, search, total: [] as number[], model: [] as number[], cpuUs: [] as number[] };
    }),
  );
  const count = arg('queries', 600);
  const queries = [
    ...strideSample(readJsonl<{ query: string }>('retrieval/metatool/queries.jsonl'), Math.round(count / 2)),
    ...strideSample(readJsonl<{ query: string }>('retrieval/bfcl/queries.jsonl'), Math.round(count / 2)),
  ].map((q) => q.query);
  // Warm-up (JIT, onnxruntime's first runs) on queries not measured.
  for (let i = 0; i < 30; i++) for (const r of runs) await r.search.search({ queries: [`warm-up query number ${i} for the ${r.name} variant`], mode: SearchMode.SEARCH_MODE_HYBRID, limit: 10 });
  for (const [qi, q] of queries.entries()) {
    // Rotate who goes first, so no variant always follows the same one.
    for (let k = 0; k < runs.length; k++) {
      const r = runs[(qi + k) % runs.length]!;
      const cpu0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const res = await r.search.search({ queries: [q], mode: SearchMode.SEARCH_MODE_HYBRID, limit: 10 });
      r.total.push(Number(process.hrtime.bigint() - t0));
      const cpu = process.cpuUsage(cpu0);
      r.cpuUs.push(cpu.user + cpu.system);
      r.model.push(r.timed.last);
      if (res.mode !== SearchMode.SEARCH_MODE_HYBRID) throw new Error(`degraded: ${res.note}`);
    }
  }
  const rows: Array<Array<string | number>> = [];
  const json: Record<string, unknown> = { tools: tools.length, queries: queries.length, modelDir };
  for (const r of runs) {
    const t = percentiles(r.total);
    const m = percentiles(r.model);
    const cpuMs = Math.round(r.cpuUs.reduce((a, b) => a + b, 0) / r.cpuUs.length) / 1000;
    rows.push([r.name, r.file.split('/').pop()!, r.total.length, cpuMs, t.p50, t.p95, t.p99, t.max, m.p50, m.p99]);
    json[r.name] = { options: VARIANTS[r.name], search: t, modelRun: m, cpuMsPerSearch: cpuMs };
    r.search.close();
  }
  console.log(table(['variant', 'file', 'searches', 'CPU ms/search', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'model run p50', 'model run p99'], rows));
  const file = writeResult('search-onnx-variants', { date: new Date().toISOString(), node: process.version, ...json });
  console.log(`\n${JSON.stringify(json)}\n\nwritten to ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
