/**
 * Loads the shared public tool data (../shared/data, beside the repository; never copied into it)
 * as ToolInfo, the way adapters would present it: names normalised to the tool-name rule,
 * providers from server names, category paths from catalog categories.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { Importance, toToolName, type ToolInfo } from '@toolhub/contracts';
import { repoRoot } from '@toolhub/test-harness';

/** The repository root, whether this runs from bench/search or from its build in dist/bench/search. */
export const REPO_ROOT = repoRoot(__dirname);
/** The shared data folder: $TOOLHUB_DATA_DIR, or ../shared/data relative to the repository. */
export const DATA_DIR = process.env.TOOLHUB_DATA_DIR ?? resolve(REPO_ROOT, '../shared/data');
/** Where benchmark results are written (git-ignored). */
export const RESULTS_DIR = join(REPO_ROOT, 'bench/results');

/** Reads a JSON Lines file of the shared data. */
export function readJsonl<T>(relative: string): T[] {
  const file = join(DATA_DIR, relative);
  if (!existsSync(file)) throw new Error(`Missing ${file}: the benchmarks need the shared data beside the repository (or TOOLHUB_DATA_DIR).`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Writes `bench/results/<name>.json`. */
export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** A provider name from a server name: `@toolsdk.ai/aws-ses-mcp` → `toolsdk-ai-aws-ses-mcp` (at most 32 characters). */
export function providerName(server: string): string {
  const p = toToolName(server).replace(/_/g, '-').slice(0, 32).replace(/-+$/, '');
  return p === '' ? 'unknown' : p;
}

/** A category path from a catalog category: `File Access` → `file_access`. */
export function categoryPath(category: string | undefined): string {
  return category ? toToolName(category) : '';
}

/** Builds ToolInfo objects; repeated provider+name pairs get `_2`, `_3`, ... */
export class ToolFactory {
  private readonly seen = new Set<string>();
  readonly tools: ToolInfo[] = [];

  add(t: { provider: string; name: string; path?: string; description: string; inputSchema?: Record<string, unknown>; tags?: string[] }): ToolInfo {
    const base = toToolName(t.name) || 'tool';
    let name = base;
    for (let n = 2; this.seen.has(`${t.provider}:${name}`); n++) name = `${base.slice(0, 60)}_${n}`;
    this.seen.add(`${t.provider}:${name}`);
    const info: ToolInfo = {
      id: `${t.provider}:${name}`,
      provider: t.provider,
      name,
      path: t.path ?? '',
      description: t.description ?? '',
      inputSchema: t.inputSchema,
      outputDescription: '',
      examples: [],
      importance: Importance.IMPORTANCE_NORMAL,
      version: '',
      tags: t.tags ?? [],
      defaultTimeoutMs: 0,
    };
    this.tools.push(info);
    return info;
  }
}

interface LiveRow { server: string; category: string; name: string; description: string; inputSchema?: Record<string, unknown> }
interface DockerRow { server: string; name: string; description: string; arguments?: Array<{ name: string; type?: string; desc?: string }> }
interface ToolsdkRow { server: string; category: string; name: string; description: string }
interface BfclRow { name: string; description: string; parameters?: Record<string, unknown> }

/** A JSON Schema from Docker registry `arguments[]`. */
function argumentsSchema(args: DockerRow['arguments']): Record<string, unknown> | undefined {
  if (!args || args.length === 0) return undefined;
  return { type: 'object', properties: Object.fromEntries(args.map((a) => [a.name, { type: a.type ?? 'string', description: a.desc ?? '' }])) };
}

/**
 * `count` real tools mixed from every catalog, in a fixed order: all LiveMCPBench tools (schemas,
 * Chinese descriptions), Docker MCP registry, BFCL functions (schemas), then ToolSDK registry
 * tools (name and description) up to `count`.
 */
export function loadMixedCatalog(count = 5000): ToolInfo[] {
  const f = new ToolFactory();
  for (const r of readJsonl<LiveRow>('catalogs/livemcpbench.jsonl')) {
    f.add({ provider: providerName(r.server), name: r.name, path: categoryPath(r.category), description: r.description, inputSchema: r.inputSchema });
  }
  for (const r of readJsonl<DockerRow>('catalogs/docker-mcp-registry.jsonl')) {
    f.add({ provider: providerName(r.server), name: r.name, description: r.description, inputSchema: argumentsSchema(r.arguments) });
  }
  for (const r of readJsonl<BfclRow>('catalogs/bfcl-functions.jsonl')) {
    f.add({ provider: 'bfcl', name: r.name, path: r.name.includes('.') ? categoryPath(r.name.split('.')[0]) : '', description: r.description, inputSchema: r.parameters });
  }
  for (const r of readJsonl<ToolsdkRow>('catalogs/toolsdk-registry.jsonl')) {
    if (f.tools.length >= count) break;
    f.add({ provider: providerName(r.server), name: r.name, path: categoryPath(r.category), description: r.description });
  }
  return f.tools.slice(0, count);
}

/** A retrieval set: a corpus, queries with gold tool names, and how a hit maps to a gold name. */
export interface RetrievalSet {
  name: string;
  tools: ToolInfo[];
  /** Raw tool records, for the baseline (name + description as published). */
  raw: Array<{ id: string; name: string; description: string }>;
  queries: Array<{ query: string; gold: string[] }>;
  /** Gold name of an indexed tool id. */
  goldOf: Map<string, string>;
}

/** MetaTool: 199 tools; `sample` queries taken at an even stride from the 20,614 (0 = all). */
export function loadMetaTool(sample: number): RetrievalSet {
  const f = new ToolFactory();
  const goldOf = new Map<string, string>();
  const raw: RetrievalSet['raw'] = [];
  for (const r of readJsonl<{ name: string; description: string }>('retrieval/metatool/tools.jsonl')) {
    const t = f.add({ provider: 'metatool', name: r.name, description: r.description });
    goldOf.set(t.id, r.name.toLowerCase());
    raw.push({ id: t.id, name: r.name, description: r.description });
  }
  const all = readJsonl<{ query: string; gold: string[] }>('retrieval/metatool/queries.jsonl').map((q) => ({ query: q.query, gold: q.gold.map((g) => g.toLowerCase()) }));
  return { name: 'MetaTool', tools: f.tools, raw, queries: strideSample(all, sample), goldOf };
}

/**
 * BFCL: 1,951 functions (1,287 names; a name's variants are indexed as separate tools of
 * providers `bfcl`, `bfcl-2`, ...) and 2,351 queries; `sample` as for MetaTool.
 */
export function loadBfcl(sample: number): RetrievalSet {
  const f = new ToolFactory();
  const goldOf = new Map<string, string>();
  const raw: RetrievalSet['raw'] = [];
  const variants = new Map<string, number>();
  for (const r of readJsonl<BfclRow>('catalogs/bfcl-functions.jsonl')) {
    const n = (variants.get(r.name) ?? 0) + 1;
    variants.set(r.name, n);
    const t = f.add({ provider: n === 1 ? 'bfcl' : `bfcl-${n}`, name: r.name, path: r.name.includes('.') ? categoryPath(r.name.split('.')[0]) : '', description: r.description, inputSchema: r.parameters });
    goldOf.set(t.id, r.name);
    raw.push({ id: t.id, name: r.name, description: r.description });
  }
  const all = readJsonl<{ query: string; gold: string[] }>('retrieval/bfcl/queries.jsonl');
  return { name: 'BFCL', tools: f.tools, raw, queries: strideSample(all, sample), goldOf };
}

/** `n` items at an even stride (deterministic, spread over the whole file); all when n is 0 or too big. */
export function strideSample<T>(items: T[], n: number): T[] {
  if (n <= 0 || n >= items.length) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/** {@link loadMixedCatalog}'s real tools, then copies under other provider names up to `count` (latency at scale). */
export function scaledCatalog(count: number): ToolInfo[] {
  const real = loadMixedCatalog(count);
  const out = [...real];
  for (let copy = 2; out.length < count; copy++) {
    for (const t of real) {
      if (out.length >= count) break;
      const provider = `${t.provider.slice(0, 50)}x${copy}`;
      out.push({ ...t, provider, id: `${provider}:${t.name}` });
    }
  }
  return out;
}
