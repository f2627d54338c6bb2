/**
 * Real tools and realistic traffic for the registry benchmark: 5,000 tools from the public
 * catalogs in ../shared/data (LiveMCPBench with schemas and Chinese descriptions, then the ToolSDK
 * registry), as adapters would present them (names and providers under ToolHub's rules); a search
 * workload drawn from those tools and from MetaTool's natural-language queries; and tool.called
 * events whose tools follow a Zipf law, as real usage does.
 */

import { Importance, type SearchToolsRequest, type ToolCalled, toToolName, type ToolInfo } from '@toolhub/contracts';
import { seededRandom } from '@toolhub/test-harness';

// Shared data access of the benchmarks (same files, same results folder).
export { DATA_DIR, readJsonl, REPO_ROOT, writeResult } from '../search/data';
export { percentiles, table } from '../search/metrics';
import { readJsonl } from '../search/data';

/** `@toolsdk.ai/aws-ses-mcp` → `toolsdk-ai-aws-ses-mcp`: a valid provider name (≤ 32 characters). */
function providerName(server: string): string {
  const p = toToolName(server).replace(/_/g, '-').slice(0, 32).replace(/-+$/, '');
  return p === '' ? 'unknown' : p;
}

interface CatalogRow {
  server: string;
  category?: string;
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/**
 * `count` real tools: every LiveMCPBench tool, then ToolSDK registry tools in file order. Names
 * are `toToolName` of the published name; a repeat within one provider gets `_2`, `_3`, ...
 */
export function loadCatalog(count: number): ToolInfo[] {
  const seen = new Set<string>();
  const tools: ToolInfo[] = [];
  const rows = [...readJsonl<CatalogRow>('catalogs/livemcpbench.jsonl'), ...readJsonl<CatalogRow>('catalogs/toolsdk-registry.jsonl')];
  for (const r of rows) {
    if (tools.length >= count) break;
    const provider = providerName(r.server);
    const base = toToolName(r.name) || 'tool';
    let name = base;
    for (let n = 2; seen.has(`${provider}:${name}`); n++) name = `${base.slice(0, 60)}_${n}`;
    seen.add(`${provider}:${name}`);
    tools.push({
      id: `${provider}:${name}`,
      provider,
      name,
      path: r.category ? toToolName(r.category) : '',
      description: r.description ?? '',
      inputSchema: r.inputSchema ?? { type: 'object', properties: {} },
      outputDescription: '',
      examples: [],
      importance: Importance.IMPORTANCE_NORMAL,
      version: '',
      tags: [],
      defaultTimeoutMs: 0,
    });
  }
  if (tools.length < count) throw new Error(`The catalogs hold only ${tools.length} tools; asked for ${count}.`);
  return tools;
}

/** Tools grouped by provider, as each adapter announces its catalog. */
export function byProvider(tools: readonly ToolInfo[]): Map<string, ToolInfo[]> {
  const groups = new Map<string, ToolInfo[]>();
  for (const t of tools) {
    const g = groups.get(t.provider);
    if (g) g.push(t);
    else groups.set(t.provider, [t]);
  }
  return groups;
}

/** `n` items at an even stride over `items` (deterministic). */
function stride<T>(items: readonly T[], n: number): T[] {
  if (n <= 0) return [];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n) % items.length]!);
}

export type SearchKind = 'tool name words' | 'description words' | 'natural language' | 'chinese' | 'multi-query (2-3)';

/**
 * `total` search requests (limit 10): tool names as words (25%), the first words of a
 * description (25%), MetaTool natural-language questions (25%), Chinese phrases from LiveMCPBench
 * descriptions (5%), and calls with 2–3 of those queries (the rest).
 */
export function searchWorkload(tools: readonly ToolInfo[], total: number): Array<{ kind: SearchKind; request: SearchToolsRequest }> {
  const share = (f: number) => Math.round(total * f);
  const req = (queries: string[]): SearchToolsRequest => ({ queries, provider: '', path: '', limit: 10, mode: 0, explain: false });
  const names = stride(tools, share(0.25)).map((t) => t.name.replace(/_/g, ' '));
  const english = tools.filter((t) => /^[\x20-\x7e]{20,}/.test(t.description));
  const descriptions = stride(english, share(0.25)).map((t) => t.description.split(/\s+/).slice(0, 6).join(' '));
  const questions = stride(
    readJsonl<{ query: string }>('retrieval/metatool/queries.jsonl').map((q) => q.query),
    share(0.25),
  );
  const chinese = stride(
    tools.map((t) => /[\p{Script=Han}]{2,}[^，。,.]{0,10}/u.exec(t.description)?.[0]).filter((q): q is string => q !== undefined),
    share(0.05),
  );
  const out: Array<{ kind: SearchKind; request: SearchToolsRequest }> = [
    ...names.map((q) => ({ kind: 'tool name words' as const, request: req([q]) })),
    ...descriptions.map((q) => ({ kind: 'description words' as const, request: req([q]) })),
    ...questions.map((q) => ({ kind: 'natural language' as const, request: req([q]) })),
    ...chinese.map((q) => ({ kind: 'chinese' as const, request: req([q]) })),
  ];
  for (let i = 0; out.length < total; i++) {
    const queries = [names[i % names.length]!, questions[(i * 7) % questions.length]!];
    if (i % 2 === 0) queries.push(descriptions[(i * 13) % descriptions.length]!);
    out.push({ kind: 'multi-query (2-3)', request: req(queries) });
  }
  // Interleave kinds, so no kind runs only while the machine is busy with something else.
  return out.map((w, i) => ({ w, k: (i * 7919) % out.length })).sort((a, b) => a.k - b.k).map((x) => x.w);
}

/**
 * `count` tool.called events over `tools`, the tool of each drawn from a Zipf law (exponent `s`,
 * rank 1 most called); 5% tool errors, 1% timeouts; latencies 5–500 ms, long-tailed.
 */
export function callEvents(tools: readonly ToolInfo[], count: number, runId: string, s = 1): ToolCalled[] {
  const random = seededRandom(42); // every run publishes the same events
  const weights = tools.map((_, i) => 1 / (i + 1) ** s);
  const cumulative: number[] = [];
  let sum = 0;
  for (const w of weights) cumulative.push((sum += w));
  const pick = (): ToolInfo => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return tools[lo]!;
  };
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const t = pick();
    const r = random();
    const status = r < 0.05 ? 'tool_error' : r < 0.06 ? 'timeout' : 'ok';
    return {
      eventId: `${runId}-${i}`,
      toolId: t.id,
      provider: t.provider,
      name: t.name,
      status,
      errorCode: 0,
      latencyMs: Math.round(5 + 495 * random() ** 3),
      attempts: 1,
      fallbackUsed: '',
      caller: `agent-${i % 16}`,
      timestampUnixMs: now - (count - i),
      searchId: '',
      claimGroup: '',
    };
  });
}
