/**
 * Hybrid search latency over 20,000 tools: lexical, semantic and hybrid ranking p50/p99 with the
 * query vector already at hand (the ranking itself: analysis, BM25, exact cosine over every tool,
 * fusion), the query-embedding call to the local all-MiniLM-L6-v2 server reported apart, and a
 * whole hybrid search on a query not seen before with the embeddings from that server vs computed
 * in process (OnnxEmbeddings on the model's ONNX export, scripts/services.sh embeddings-model; queries
 * by its int8 file, the default; float vs int8, threads and session options: onnx-variants.bench.ts).
 * Tools: the 11,243 real tools of ../shared/data/catalogs, then copies under other provider names
 * up to 20,000. Tool vectors are seeded random unit vectors: the cost of exact cosine does not
 * depend on the values, and embedding 20,000 tools on this machine would take hours. Writes
 * bench/results/search-hybrid-latency.json.
 *
 *   node scripts/build.mjs bench/search hybrid-latency.bench.ts && node dist/bench/search/hybrid-latency.bench.js [--tools 20000] [--queries 300]
 */
import { SearchMode } from '@toolhub/contracts';
import { type Embedder, embeddingKey, HybridSearch, OnnxEmbeddings, OpenAiEmbeddings, ToolSearchIndex, type VectorStore } from '@toolhub/search';
import { exportedModelDir } from '@toolhub/search/testing';
import { seededRandom } from '@toolhub/test-harness';

import { readJsonl, scaledCatalog, strideSample, writeResult } from './data';
import { benchEmbeddings } from './embeddings';
import { percentiles, table } from './metrics';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const DIMS = 384;

async function main(): Promise<void> {
  const tools = scaledCatalog(arg('tools', 20_000));
  const random = seededRandom(7);
  const endpoint = await benchEmbeddings();
  try {
    const embedder: Embedder = new OpenAiEmbeddings({ url: endpoint.url });
    const index = new ToolSearchIndex();
    index.upsert(tools);
    // Random unit vectors stored under each tool's real key, so the sync loads instead of embedding.
    const stored = new Map<string, Float32Array>();
    for (const [, text] of index.embeddingTexts()) {
      const v = Float32Array.from({ length: DIMS }, () => random() - 0.5);
      const n = Math.hypot(...v);
      stored.set(embeddingKey(embedder.model, text), v.map((x) => x / n));
    }
    const vectors: VectorStore = { loadVectors: async (_m, keys) => new Map(keys.map((k) => [k, stored.get(k)!])), saveVectors: async () => undefined };
    const search = new HybridSearch(index, { embedder, vectors, learning: false, queryTimeoutMs: 60_000 });
    const sync = await search.syncVectors();
    const queries = [
      ...strideSample(readJsonl<{ query: string }>('retrieval/metatool/queries.jsonl'), Math.round(arg('queries', 300) / 2)),
      ...strideSample(readJsonl<{ query: string }>('retrieval/bfcl/queries.jsonl'), Math.round(arg('queries', 300) / 2)),
    ].map((q) => q.query);

    // 1. The query-embedding call, one query per request as a search makes it (also warms the cache).
    const embedNs: number[] = [];
    for (const q of queries) {
      const t0 = process.hrtime.bigint();
      await search.search({ queries: [q], mode: SearchMode.SEARCH_MODE_SEMANTIC, limit: 10 });
      embedNs.push(Number(process.hrtime.bigint() - t0));
    }
    // 2. The ranking with the query vector cached: three rounds, the first one discarded (JIT warm-up).
    const rows: Array<Array<string | number>> = [];
    const json: Record<string, unknown> = { tools: tools.length, vectors: sync, queries: queries.length, dims: DIMS };
    const warmEmbedWithRank = percentiles(embedNs);
    for (const [label, mode] of [
      ['lexical', SearchMode.SEARCH_MODE_LEXICAL],
      ['semantic (exact cosine)', SearchMode.SEARCH_MODE_SEMANTIC],
      ['hybrid (weighted fusion, default)', SearchMode.SEARCH_MODE_HYBRID],
    ] as const) {
      let samples: number[] = [];
      for (let round = 0; round < 3; round++) {
        samples = [];
        for (const q of queries) {
          const t0 = process.hrtime.bigint();
          const res = await search.search({ queries: [q], mode, limit: 10 });
          samples.push(Number(process.hrtime.bigint() - t0));
          if (res.mode !== mode) throw new Error(`degraded: ${res.note}`);
        }
      }
      const p = percentiles(samples);
      rows.push([`${label} ranking`, samples.length, p.p50, p.p95, p.p99, p.max]);
      json[label] = p;
    }
    rows.push(['query embedding call + semantic ranking (first time a query is seen)', embedNs.length, warmEmbedWithRank.p50, warmEmbedWithRank.p95, warmEmbedWithRank.p99, warmEmbedWithRank.max]);
    json['query embedding call + semantic ranking'] = warmEmbedWithRank;
    // 3. A whole hybrid search the first time its query is seen (query embedding + ranking), the
    //    embeddings from the local server vs in process (ONNX export of the same model), alternated
    //    query by query so both see the same machine load.
    const onnx = new OnnxEmbeddings({ modelDir: process.env['TOOLHUB_EMBEDDINGS_MODEL_DIR'] || exportedModelDir() });
    await onnx.load();
    const fresh = (e: Embedder) => new HybridSearch(index, { embedder: e, vectors, learning: false, queryTimeoutMs: 60_000 });
    const viaServer = fresh(new OpenAiEmbeddings({ url: endpoint.url }));
    const inProcess = fresh(onnx);
    await Promise.all([viaServer.syncVectors(), inProcess.syncVectors()]);
    for (let i = 0; i < 20; i++) await inProcess.search({ queries: [`warm-up query number ${i}`], mode: SearchMode.SEARCH_MODE_HYBRID, limit: 10 });
    const endToEnd = { server: [] as number[], inProcess: [] as number[] };
    for (const q of queries) {
      for (const [key, s2] of [['server', viaServer], ['inProcess', inProcess]] as const) {
        const t0 = process.hrtime.bigint();
        const res = await s2.search({ queries: [q], mode: SearchMode.SEARCH_MODE_HYBRID, limit: 10 });
        endToEnd[key].push(Number(process.hrtime.bigint() - t0));
        if (res.mode !== SearchMode.SEARCH_MODE_HYBRID) throw new Error(`degraded: ${res.note}`);
      }
    }
    for (const [label, key] of [
      ['hybrid search end to end, query not cached: embeddings from the local server', 'server'],
      ['hybrid search end to end, query not cached: embeddings in process (ONNX, int8 queries by default)', 'inProcess'],
    ] as const) {
      const p = percentiles(endToEnd[key]);
      rows.push([label, endToEnd[key].length, p.p50, p.p95, p.p99, p.max]);
      json[label] = p;
    }
    viaServer.close();
    inProcess.close();
    console.log(table(['what', 'samples', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'], rows));
    const file = writeResult('search-hybrid-latency', { date: new Date().toISOString(), node: process.version, ...json });
    console.log(`\n${JSON.stringify(json)}\n\nwritten to ${file}`);
  } finally {
    endpoint.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
