/**
 * Tool texts embedded in process while agents search: how the size of a tool batch trades
 * embedding throughput against how long a query waits. onnxruntime-node runs each batch
 * synchronously on the main thread, so a query that arrives during a batch waits for all of it.
 * For each batch size (OnnxEmbeddings `batchSize`, float model, as ToolHub embeds tool texts), real
 * tool texts (bench/search's mixed catalog, `embeddingText`) are embedded in chunks of that size
 * while a query (int8, one text, as a search does) is started every 25 ms; reported: tool texts per
 * second of wall time, CPU per tool text, the batch run's time, and the queries' latency during it.
 * Batch sizes alternate round by round, so machine load hits them alike. Records the load average.
 * Writes bench/results/search-tool-batch.json.
 *
 *   node scripts/build.mjs bench/search tool-batch.bench.ts && node dist/bench/search/tool-batch.bench.js \
 *     [--batches 16,8,4,1] [--tools 256] [--rounds 3]
 */
import { loadavg } from 'node:os';

import { embeddingText, OnnxEmbeddings } from '@toolhub/search';

import { loadBfcl, loadMixedCatalog, writeResult } from './data';
import { benchModelDir } from './embeddings';
import { percentiles, table } from './metrics';

const MODEL = 'all-MiniLM-L6-v2-toolhub';
const QUERY_EVERY_MS = 25;

interface Sample {
  runsNs: number[];
  queriesNs: number[];
  texts: number;
  wallNs: number;
  cpuUs: number;
}

async function main(): Promise<void> {
  const at = (name: string) => process.argv.indexOf(`--${name}`);
  const batches = at('batches') >= 0 ? process.argv[at('batches') + 1]!.split(',').map(Number) : [16, 8, 4, 1];
  const toolCount = at('tools') >= 0 ? Number(process.argv[at('tools') + 1]) : 256;
  const rounds = at('rounds') >= 0 ? Number(process.argv[at('rounds') + 1]) : 3;
  const texts = loadMixedCatalog(toolCount).map(embeddingText);
  const queries = [...new Set(loadBfcl(0).queries.map((q) => q.query))];
  const embedders = new Map(batches.map((b) => [b, new OnnxEmbeddings({ modelDir: benchModelDir(MODEL), model: MODEL, batchSize: b })]));
  for (const e of embedders.values()) {
    await e.load();
    await e.embed(texts.slice(0, 16), { background: true }); // loads the float session, first-run allocations
  }
  const samples = new Map(batches.map((b) => [b, { runsNs: [], queriesNs: [], texts: 0, wallNs: 0, cpuUs: 0 } as Sample]));
  let next = 0;
  const load0 = loadavg();
  for (let round = 0; round < rounds; round++) {
    for (const b of round % 2 ? [...batches].reverse() : batches) {
      const e = embedders.get(b)!;
      const s = samples.get(b)!;
      let embedding = true;
      const pending: Promise<void>[] = [];
      const timer = setInterval(() => {
        if (!embedding) return;
        const q = queries[next++ % queries.length]!;
        const t0 = process.hrtime.bigint();
        pending.push(e.embed([q]).then(() => void s.queriesNs.push(Number(process.hrtime.bigint() - t0))));
      }, QUERY_EVERY_MS);
      const c0 = process.cpuUsage();
      const w0 = process.hrtime.bigint();
      for (let i = 0; i < texts.length; i += b) {
        const t0 = process.hrtime.bigint();
        await e.embed(texts.slice(i, i + b), { background: true });
        s.runsNs.push(Number(process.hrtime.bigint() - t0));
      }
      s.wallNs += Number(process.hrtime.bigint() - w0);
      const c = process.cpuUsage(c0);
      s.cpuUs += c.user + c.system; // includes the queries'; the same query rate for every size
      s.texts += texts.length;
      embedding = false;
      clearInterval(timer);
      await Promise.all(pending);
    }
  }
  const rows = batches.map((b) => {
    const s = samples.get(b)!;
    const run = percentiles(s.runsNs);
    const q = percentiles(s.queriesNs);
    return { batch: b, textsPerSec: Math.round(s.texts / (s.wallNs / 1e9)), cpuMsPerText: Math.round(s.cpuUs / s.texts) / 1000, run, queries: s.queriesNs.length, query: q };
  });
  const load1 = loadavg();
  console.log(
    table(
      ['tool batch', 'tool texts/s', 'CPU ms per tool text', 'batch run p50 / max ms', 'queries', 'query during embedding p50 / p95 / p99 / max ms'],
      rows.map((r) => [r.batch, r.textsPerSec, r.cpuMsPerText, `${r.run.p50} / ${r.run.max}`, r.queries, `${r.query.p50} / ${r.query.p95} / ${r.query.p99} / ${r.query.max}`]),
    ),
  );
  console.log(`\n${texts.length} tool texts x ${rounds} rounds per size; load average ${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after`);
  console.log(`written to ${writeResult('search-tool-batch', { model: MODEL, tools: texts.length, rounds, queryEveryMs: QUERY_EVERY_MS, loadBefore: load0, loadAfter: load1, rows })}`);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
