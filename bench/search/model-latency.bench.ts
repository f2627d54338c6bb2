/**
 * Query-embedding latency of each in-process model: one query at a time (what a search waits
 * for on a cache miss), OnnxEmbeddings as ToolHub builds it (1 onnxruntime thread), on distinct
 * BFCL queries (no cache anywhere). Models alternate query by query, so machine load hits them
 * alike; CPU per query (process user+system time) moves least with load. Records the load average.
 * Writes bench/results/search-model-latency.json.
 *
 *   node scripts/build.mjs bench/search model-latency.bench.ts && node dist/bench/search/model-latency.bench.js \
 *     [--models all-MiniLM-L6-v2-toolhub,bge-small-en-v1.5-q,...] [--queries 300]
 */
import { loadavg } from 'node:os';

import { OnnxEmbeddings } from '@toolhub/search';

import { loadBfcl, writeResult } from './data';
import { benchModelDir } from './embeddings';
import { percentiles, table } from './metrics';

async function main(): Promise<void> {
  const at = (name: string) => process.argv.indexOf(`--${name}`);
  const models = at('models') >= 0 ? process.argv[at('models') + 1]!.split(',') : ['all-MiniLM-L6-v2-toolhub', 'bge-small-en-v1.5-q', 'bge-small-en-v1.5', 'e5-small-v2-q'];
  const n = at('queries') >= 0 ? Number(process.argv[at('queries') + 1]) : 300;
  const queries = [...new Set(loadBfcl(0).queries.map((q) => q.query))].slice(0, n + 20);
  const embedders = models.map((model) => new OnnxEmbeddings({ modelDir: benchModelDir(model), model }));
  for (const e of embedders) await e.load();
  // Warm-up: the first runs allocate.
  for (const q of queries.slice(0, 20)) for (const e of embedders) await e.embed([q]);
  const wall = embedders.map(() => [] as number[]);
  const cpu = embedders.map(() => 0);
  const tokens = queries.slice(20).map((q) => q.length);
  const load0 = loadavg();
  for (const q of queries.slice(20)) {
    for (let m = 0; m < embedders.length; m++) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await embedders[m]!.embed([q]);
      wall[m]!.push(Number(process.hrtime.bigint() - t0));
      const c = process.cpuUsage(c0);
      cpu[m]! += c.user + c.system;
    }
  }
  const load1 = loadavg();
  const count = queries.length - 20;
  const rows = models.map((model, m) => ({ model, queries: count, ...percentiles(wall[m]!), cpuMsPerQuery: Math.round((cpu[m]! / count / 1000) * 1000) / 1000 }));
  console.log(table(['model', 'queries', 'CPU ms/query', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'], rows.map((r) => [r.model, r.queries, r.cpuMsPerQuery, r.p50, r.p95, r.p99, r.max])));
  const avgChars = Math.round(tokens.reduce((a, b) => a + b, 0) / tokens.length);
  console.log(`\nload average ${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after; queries average ${avgChars} characters`);
  console.log(`written to ${writeResult('search-model-latency', { date: new Date().toISOString(), node: process.version, loadBefore: load0, loadAfter: load1, rows })}`);
}

void main();
