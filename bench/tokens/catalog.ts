/**
 * Loads the public tool catalogs of ../shared/data/catalogs (never copied into the repo) and the
 * local adapter's own tools, as ToolInfo records with ToolHub ids (`<provider>:<name>`).
 *
 * - local: the tools of @toolhub/local-tools (what the local adapter serves), full schemas.
 * - livemcpbench: 527 tools of 70 real MCP servers, full inputSchema; provider = server slug.
 * - docker-mcp-registry: 755 tools of Docker's MCP registry; schemas built from its `arguments`
 *   list (most entries list none, so these definitions are small: that makes the inline baseline
 *   cheaper, i.e. ToolHub's savings are understated, not inflated).
 * - bfcl: the Berkeley Function Calling Leaderboard functions, one provider `bfcl`; the catalog
 *   repeats names (1,951 rows, 1,287 names), the first definition of a name is kept. BFCL's
 *   Python-flavoured types (dict, float, tuple, any) are mapped to JSON Schema.
 */
import { contentHash, Importance, importanceFromName, PATH_SEGMENT_PATTERN, toToolName, type ToolInfo } from '@toolhub/contracts';
import { createLocalTools } from '@toolhub/local-tools';
import { repoRoot } from '@toolhub/test-harness';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The catalogs folder, relative to the repository root. */
export const CATALOG_DIR = join(repoRoot(__dirname), '..', 'shared', 'data', 'catalogs');

export type Source = 'local' | 'livemcpbench' | 'docker-mcp-registry' | 'bfcl';

export interface CatalogTool {
  source: Source;
  /** `<server>/<native name>` as the catalog spells it (`local/<name>`, `bfcl/<name>`): how tasks name gold tools. */
  key: string;
  info: ToolInfo;
}

type Json = Record<string, unknown>;

function readJsonl(file: string): Json[] {
  return readFileSync(join(CATALOG_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
}

/** A provider name (^[a-z][a-z0-9_-]{0,31}$) for a server; unique, with a hash suffix where slugs collide. */
function providerNamer(): (server: string) => string {
  const bySlug = new Map<string, string>();
  const byServer = new Map<string, string>();
  return (server) => {
    const known = byServer.get(server);
    if (known) return known;
    let slug = server
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/^[^a-z]+/, '')
      .slice(0, 32)
      .replace(/-+$/, '');
    if (slug === '' || (bySlug.has(slug) && bySlug.get(slug) !== server)) slug = `${(slug || 's').slice(0, 25).replace(/-+$/, '')}-${contentHash(server, 6)}`;
    bySlug.set(slug, server);
    byServer.set(server, slug);
    return slug;
  };
}

function pathOf(category: string): string {
  const segment = category
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return PATH_SEGMENT_PATTERN.test(segment) ? segment : '';
}

const BFCL_TYPES: Record<string, string> = { dict: 'object', float: 'number', tuple: 'array', list: 'array', int: 'integer', bool: 'boolean', str: 'string' };

/** BFCL's schema dialect → JSON Schema (types renamed; `any` dropped, which JSON Schema means by no type). */
function bfclSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(bfclSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'type' && typeof v === 'string') {
      if (v !== 'any') out.type = BFCL_TYPES[v] ?? v;
    } else if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, bfclSchema(s)]));
    } else {
      out[k] = bfclSchema(v);
    }
  }
  return out;
}

function toolInfo(provider: string, name: string, path: string, description: string, inputSchema: Json, importance = Importance.IMPORTANCE_NORMAL): ToolInfo {
  const info: ToolInfo = {
    id: `${provider}:${name}`,
    provider,
    name,
    path,
    description,
    inputSchema,
    outputDescription: '',
    examples: [],
    importance,
    version: '',
    tags: [],
    defaultTimeoutMs: 0,
  };
  return { ...info, version: contentHash(info) };
}

/** Every tool, in a fixed order: local, livemcpbench, docker-mcp-registry, bfcl. */
export function loadCatalog(): CatalogTool[] {
  const out: CatalogTool[] = [];
  const ids = new Set<string>();
  const add = (source: Source, key: string, info: ToolInfo): void => {
    if (info.name === '' || ids.has(info.id)) return; // a repeated (or unusable) name: keep the first
    ids.add(info.id);
    out.push({ source, key, info });
  };
  const provider = providerNamer();

  for (const t of createLocalTools({ root: tmpdir() })) {
    add('local', `local/${t.name}`, toolInfo('local', t.name, t.path, t.description, t.inputSchema as Json, importanceFromName(t.importance)));
  }
  for (const r of readJsonl('livemcpbench.jsonl')) {
    const server = String(r.server);
    add('livemcpbench', `${server}/${String(r.name)}`, toolInfo(provider(server), toToolName(String(r.name)), pathOf(String(r.category ?? '')), String(r.description ?? ''), (r.inputSchema as Json) ?? { type: 'object' }));
  }
  for (const r of readJsonl('docker-mcp-registry.jsonl')) {
    const server = String(r.server);
    const args = (r.arguments as Array<{ name: string; type?: string; desc?: string }>) ?? [];
    const properties = Object.fromEntries(args.map((a) => [a.name, { type: a.type ?? 'string', ...(a.desc ? { description: a.desc } : {}) }]));
    add('docker-mcp-registry', `${server}/${String(r.name)}`, toolInfo(provider(server), toToolName(String(r.name)), '', String(r.description ?? ''), { type: 'object', properties }));
  }
  for (const r of readJsonl('bfcl-functions.jsonl')) {
    const native = String(r.name);
    const dot = native.indexOf('.');
    add('bfcl', `bfcl/${native}`, toolInfo('bfcl', toToolName(native), dot > 0 ? pathOf(native.slice(0, dot)) : '', String(r.description ?? ''), bfclSchema(r.parameters) as Json));
  }
  return out;
}
