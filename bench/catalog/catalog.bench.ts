/**
 * bench/catalog: how large catalogs sync and search. For providers of 1k / 5k / 10k / 20k tools
 * built from real definitions — every operation of the three vendor OpenAPI documents in
 * ../shared/data/openapi/real (through the cloud adapter's loader), then the public catalogs in
 * ../shared/data/catalogs (LiveMCPBench with schemas, BFCL, ToolSDK), cycled with a suffix — it
 * measures the time from the adapter's announcement to the registry's switch (paged sync), the
 * process RSS after the sync, and tool_search latency (p50/p99) over the synced catalog with
 * MetaTool queries. Modes: one process (in-process bus) and NATS (a private nats-server, when
 * installed). Prints a table and writes bench/results/catalog.json. Never fails on time.
 *
 * Run on built JS: node scripts/build.mjs bench/catalog catalog.bench.ts && node dist/bench/catalog/catalog.bench.js
 */
import { type AdapterDefinition, listCatalog, serveAdapter, textResult } from '@toolhub/adapter-sdk';
import { type Bus, InProcessBus, NatsBus } from '@toolhub/bus';
import { createCloudAdapter, parseCloudConfig } from '@toolhub/cloud-adapter';
import { Importance, toToolName, type ToolInfo } from '@toolhub/contracts';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { startNatsServer } from '@toolhub/test-harness';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { percentiles, table } from '../search/metrics';

// Run from the repository root (built JS lives in dist/, so paths are taken from the cwd).
const DATA_DIR = process.env.TOOLHUB_DATA_DIR ?? resolve(process.cwd(), '../shared/data');
const RESULTS = resolve(process.cwd(), 'bench/results');

function readJsonl<T>(relative: string): T[] {
  const file = join(DATA_DIR, relative);
  if (!existsSync(file)) throw new Error(`Missing ${file}: run from the repository root with ../shared/data beside it (or set TOOLHUB_DATA_DIR).`);
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T);
}

function writeResult(name: string, data: unknown): void {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, name), `${JSON.stringify(data, null, 2)}\n`);
}

const SIZES = (process.env.CATALOG_SIZES ?? '1000,5000,10000,20000').split(',').map(Number);
const SEARCHES = 2000;

interface Row {
  server?: string;
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  parameters?: Record<string, unknown>;
}

async function openApiTools(): Promise<ToolInfo[]> {
  const real = join(DATA_DIR, 'openapi', 'real');
  const config = parseCloudConfig({
    provider: 'cloud',
    documents: [
      { alias: 'twilio', source: join(real, 'twilio_api_v2010.yaml'), baseUrl: 'http://127.0.0.1:9' },
      { alias: 'box', source: join(real, 'box_openapi.json'), baseUrl: 'http://127.0.0.1:9' },
      { alias: 'digitalocean', source: join(real, 'digitalocean', 'DigitalOcean-public.v2.yaml'), baseUrl: 'http://127.0.0.1:9' },
    ],
  });
  const adapter = await createCloudAdapter(config, { env: {} });
  return adapter.catalog();
}

function catalogTools(): ToolInfo[] {
  const rows = [
    ...readJsonl<Row>('catalogs/livemcpbench.jsonl'),
    ...readJsonl<Row>('catalogs/bfcl-functions.jsonl'),
    ...readJsonl<Row>('catalogs/toolsdk-registry.jsonl'),
  ];
  return rows.map((r) => {
    const name = (toToolName(r.name) || 'tool').slice(0, 50);
    return {
      id: '',
      provider: 'bench',
      name,
      path: r.server ? toToolName(r.server).slice(0, 40) || 'misc' : 'bfcl',
      description: r.description ?? '',
      inputSchema: r.inputSchema ?? r.parameters ?? { type: 'object', properties: {} },
      outputDescription: '',
      examples: [],
      importance: Importance.IMPORTANCE_NORMAL,
      version: '',
      tags: [],
      defaultTimeoutMs: 0,
    };
  });
}

/** `count` tools of provider `bench`: real definitions first, then cycled with a numeric suffix. */
function buildCatalog(source: ToolInfo[], count: number): ToolInfo[] {
  const out: ToolInfo[] = [];
  const seen = new Set<string>();
  for (let round = 0; out.length < count; round++) {
    for (const t of source) {
      if (out.length >= count) break;
      let name = round === 0 ? t.name.slice(0, 56) : `${t.name.slice(0, 52)}_r${round}`;
      for (let n = 2; seen.has(name); n++) name = `${t.name.slice(0, 50)}_${n}_${round}`;
      seen.add(name);
      out.push({ ...t, id: `bench:${name}`, provider: 'bench', name, version: `${t.version || 'v'}-${round}` });
    }
  }
  return out;
}

function adapterOf(tools: ToolInfo[]): AdapterDefinition {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return {
    provider: 'bench',
    catalog: async () => tools,
    listTools: async (path, recursive) => listCatalog(tools, path, recursive),
    getToolInfo: async (name) => byName.get(name)!,
    runTool: async () => textResult('ok'),
  };
}

const mib = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

async function runOne(mode: string, makeBus: () => Promise<{ bus: Bus; close(): Promise<void> }>, tools: ToolInfo[], queries: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-catalog-'));
  const { bus, close } = await makeBus();
  const store = await EmbeddedRegistryStore.open({ dir });
  const registry = await Registry.start(bus, store);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const service = await serveAdapter(bus, adapterOf(tools), { instanceId: `bench-${tools.length}` });
  let status;
  for (;;) {
    status = registry.catalogStatus('bench')[0];
    if (status && status.state !== 'receiving') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const syncMs = performance.now() - started;
  global.gc?.();
  const rss = process.memoryUsage().rss;
  const samples: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const q = queries[i % queries.length]!;
    const t0 = process.hrtime.bigint();
    registry.search.search({ queries: [q], provider: '', path: '', limit: 10 } as never);
    samples.push(Number(process.hrtime.bigint() - t0));
  }
  const p = percentiles(samples);
  await service.close();
  await registry.close();
  await store.close();
  await close();
  rmSync(dir, { recursive: true, force: true });
  return {
    mode,
    tools: tools.length,
    synced: status.state === 'synced' ? status.toolCount : `FAILED: ${status.error}`,
    quarantined: status.quarantinedTotal,
    pages: status.pageCount,
    catalogMiB: mib(Number(0)), // filled below
    syncMs: Math.round(syncMs),
    rssMiB: mib(rss),
    rssGrowthMiB: mib(rss - rssBefore),
    searchP50Ms: p.p50,
    searchP99Ms: p.p99,
  };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const openapi = await openApiTools().catch((err: Error) => {
    console.error(`OpenAPI documents not loaded (${err.message}); using the catalogs only`);
    return [] as ToolInfo[];
  });
  const source = [...openapi, ...catalogTools()];
  console.error(`source: ${openapi.length} OpenAPI operations + ${source.length - openapi.length} catalog tools (${Math.round(performance.now() - t0)} ms to load)`);
  const queries = readJsonl<{ query: string }>('retrieval/metatool/queries.jsonl').slice(0, 500).map((q) => q.query);
  const results = [];
  let nats: Awaited<ReturnType<typeof startNatsServer>> | undefined;
  try {
    nats = await startNatsServer();
  } catch (err) {
    console.error(`nats-server not available (${(err as Error).message}); one-process mode only`);
  }
  for (const size of SIZES) {
    const tools = buildCatalog(source, size);
    const bytes = tools.reduce((n, t) => n + JSON.stringify(t).length, 0);
    const one = await runOne('one-process', async () => {
      const bus = new InProcessBus();
      return { bus, close: () => bus.close() };
    }, tools, queries);
    results.push({ ...one, catalogMiB: mib(bytes) });
    console.error(JSON.stringify(results.at(-1)));
    if (nats) {
      const url = nats.url;
      const n = await runOne('nats', async () => {
        const bus = await NatsBus.connect({ servers: url, name: 'bench-catalog' });
        return { bus, close: () => bus.close() };
      }, tools, queries);
      results.push({ ...n, catalogMiB: mib(bytes) });
      console.error(JSON.stringify(results.at(-1)));
    }
  }
  await nats?.stop();
  const header = ['mode', 'tools', 'synced', 'quarantined', 'pages', 'catalog MiB (JSON)', 'sync ms', 'RSS MiB', 'RSS growth MiB', 'search p50 ms', 'search p99 ms'];
  console.log(table(header, results.map((r) => [r.mode, r.tools, r.synced, r.quarantined, r.pages, r.catalogMiB, r.syncMs, r.rssMiB, r.rssGrowthMiB, r.searchP50Ms, r.searchP99Ms])));
  writeResult('catalog.json', { openapiOperations: openapi.length, searches: SEARCHES, results });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
