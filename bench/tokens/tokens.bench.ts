/**
 * Token benchmark: what a prompt costs with every tool inlined, versus ToolHub's initial context
 * (meta-tools + preload set), and what each realistic task adds (tool_search and tool_info calls
 * and results, plus the discovered tool's definition) with its extra round trips.
 *
 *   npx tsx bench/tokens/tokens.bench.ts        → a table on stdout, JSON in bench/results/tokens.json
 *
 * Tokens are counted with js-tiktoken's o200k_base (GPT-4o / GPT-4.1 / o-series) on the exact
 * bytes the agent kit sends: the canonical JSON of the OpenAI Chat Completions `tools` array, and
 * the text of tool calls and results. The agent flow runs the real @toolhub/agent-kit executor and
 * loaded-tools manager against the catalog, with the real @toolhub/search index when loadable.
 */
import {
  AgentToolkit,
  exposedToolFromInfo,
  ExposedNameTable,
  META_TOOLS,
  renderTools,
  type ToolCall,
  type ToolHubApi,
} from '@toolhub/agent-kit';
import { type PreloadTool, PreloadFormat, RunStatus, ToolHubError, type ToolInfo } from '@toolhub/contracts';
import { buildPreloadSet } from '@toolhub/agent-kit';
import { repoRoot } from '@toolhub/test-harness';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type CatalogTool, loadCatalog } from './catalog';
import { type BenchSearch, createBenchSearch } from './search';
import { type BenchTask, PRELOAD_KEYS, TASKS } from './tasks';

const FORMAT = 'openai-chat';
const SIZES = [500, 2000];
const enc = new Tiktoken(o200kBase);
const count = (text: string): number => enc.encode(text).length;

/** The ToolHub API over the in-memory catalog: what a dispatcher with a registry would answer. */
function catalogApi(byId: Map<string, ToolInfo>, search: BenchSearch, preload: PreloadTool[]): ToolHubApi {
  return {
    listTools: async () => ({ categories: [], tools: [], hint: '', nextPageToken: '', total: 0 }),
    getToolInfo: async ({ provider = '', name = '' }) => {
      const tool = byId.get(`${provider}:${name}`);
      if (!tool) throw ToolHubError.notFound(`No tool ${provider}:${name}.`);
      return { tool };
    },
    runTool: async ({ provider, name }) => ({ status: RunStatus.RUN_STATUS_OK, content: [{ text: 'ok' }], fixes: [], attempts: 1, servedBy: `${provider}:${name}`, latencyMs: 0 }),
    searchTools: async (req) => search.search({ queries: req.queries ?? [], provider: req.provider ?? '', path: req.path ?? '', limit: req.limit ?? 0, mode: req.mode ?? 0, explain: req.explain ?? false }),
    getPreloadSet: async () => ({ tools: preload, fingerprint: '', rendered: '' }),
    listProviders: async () => ({ providers: [] }),
  };
}

interface TaskResult {
  id: string;
  task: string;
  needs: number;
  preloaded: number;
  found: boolean;
  /** Per need: the tool used, or null when the search never showed a fitting one. */
  tools: Array<string | null>;
  searchCalls: number;
  extraRoundTrips: number;
  searchTokens: number;
  infoTokens: number;
  /** Tokens of the discovered tools' definitions appended to the tool list (re-sent, usually cached, on later turns). */
  appendedDefinitionTokens: number;
  addedTokens: number;
  /** The meta-tool calls the agent made and the text it got back. */
  transcript: Array<{ call: ToolCall; result: string }>;
}

const callTokens = (call: ToolCall): number => count(call.name) + count(typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}));
const idsIn = (searchResult: string): string[] => [...searchResult.matchAll(/^(\S+:\S+) - /gm)].map((m) => m[1]!);

async function runTask(task: BenchTask, api: ToolHubApi, preload: PreloadTool[], idOf: Map<string, string>): Promise<TaskResult> {
  const kit = await AgentToolkit.create(api, { countTokens: count, measureFormat: FORMAT });
  const preloadIds = new Set(preload.map((p) => p.id));
  // A key can be missing when the catalog repeats a name (the first definition is kept); a need
  // with no tool left at all is a mistake in tasks.ts.
  const groups = task.needs.map((g) => {
    const ids = g.flatMap((key) => idOf.get(key) ?? []);
    if (ids.length === 0) throw new Error(`Task ${task.id}: none of ${g.join(', ')} is in the catalog`);
    return ids;
  });
  const chosen: Array<string | null> = groups.map((g) => g.find((id) => preloadIds.has(id)) ?? null);
  const preloaded = chosen.filter((c) => c !== null).length;
  const transcript: TaskResult['transcript'] = [];
  let searchCalls = 0;
  let searchTokens = 0;
  for (const queries of [task.queries, task.retry]) {
    if (chosen.every((c) => c !== null)) break;
    const call = { name: 'tool_search', arguments: JSON.stringify({ queries }) };
    const res = await kit.execute(call);
    if (res.isError) throw new Error(`tool_search failed: ${res.content}`);
    searchCalls++;
    searchTokens += callTokens(call) + count(res.content);
    transcript.push({ call, result: res.content });
    const seen = idsIn(res.content);
    groups.forEach((g, i) => {
      if (chosen[i] === null) chosen[i] = seen.find((id) => g.includes(id)) ?? null;
    });
  }
  let infoTokens = 0;
  const discovered = [...new Set(chosen.filter((c): c is string => c !== null && !preloadIds.has(c)))];
  for (const id of discovered) {
    const call = { name: 'tool_info', arguments: JSON.stringify({ name: id }) };
    const res = await kit.execute(call);
    if (res.isError) throw new Error(`tool_info failed: ${res.content}`);
    infoTokens += callTokens(call) + count(res.content);
    transcript.push({ call, result: res.content });
  }
  // The discovered tool is now a function of its own: the run goes straight to it, as inline would.
  for (const name of kit.loaded.discovered.map((d) => d.tool.name)) {
    const run = await kit.execute({ name, arguments: {} });
    if (run.isError) throw new Error(`direct call of ${name} failed: ${run.content}`);
  }
  const appendedDefinitionTokens = kit.loaded.usedTokens;
  // Parallel tool_info calls of one turn are one round trip.
  const extraRoundTrips = searchCalls + (discovered.length > 0 ? 1 : 0);
  return {
    id: task.id,
    task: task.task,
    needs: groups.length,
    preloaded,
    found: chosen.every((c) => c !== null),
    tools: chosen,
    searchCalls,
    extraRoundTrips,
    searchTokens,
    infoTokens,
    appendedDefinitionTokens,
    addedTokens: searchTokens + infoTokens + appendedDefinitionTokens,
    transcript,
  };
}

function inlineTokens(tools: readonly CatalogTool[]): number {
  const names = new ExposedNameTable();
  return count(renderTools(tools.map((t) => exposedToolFromInfo(t.info, names)), FORMAT).json);
}

const pct = (part: number, whole: number): string => `${((1 - part / whole) * 100).toFixed(1)}%`;
const table = (rows: Array<Array<string | number>>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => (typeof c === 'number' ? String(c).padStart(widths[i]!) : String(c).padEnd(widths[i]!))).join('  ')).join('\n');
};

async function main(): Promise<void> {
  const catalog = loadCatalog();
  const bySource = catalog.reduce<Record<string, number>>((acc, t) => ({ ...acc, [t.source]: (acc[t.source] ?? 0) + 1 }), {});
  const byId = new Map(catalog.map((t) => [t.info.id, t.info]));
  const idOf = new Map(catalog.map((t) => [t.key, t.info.id]));
  const search = await createBenchSearch(catalog.map((t) => t.info));
  const preloadInfos = PRELOAD_KEYS.map((key) => {
    const info = byId.get(idOf.get(key) ?? '');
    if (!info) throw new Error(`preload tool ${key} is not in the catalog`);
    return info;
  });
  // The registry's own preload set (compact form: one-line description, key parameters).
  const served = buildPreloadSet(preloadInfos, PreloadFormat.PRELOAD_FORMAT_OPENAI_CHAT);
  const preload = served.tools;
  const api = catalogApi(byId, search, preload);

  const kit = await AgentToolkit.create(api); // fetches the preload set like an agent does
  const metaTokens = count(renderTools(META_TOOLS, FORMAT).json);
  const initialTokens = count(kit.prefix(FORMAT).json);
  const prefixFingerprint = kit.prefix(FORMAT).fingerprint;
  const sameBytesAsRegistry = kit.prefix(FORMAT).json === served.rendered;

  const sizes = [...SIZES.filter((n) => n < catalog.length), catalog.length].map((n) => {
    const inline = inlineTokens(catalog.slice(0, n));
    return { tools: n, inlineTokens: inline, toolhubInitialTokens: initialTokens, reduction: 1 - initialTokens / inline };
  });

  const tasks: TaskResult[] = [];
  for (const task of TASKS) tasks.push(await runTask(task, api, preload, idOf));
  const avg = (f: (t: TaskResult) => number): number => tasks.reduce((s, t) => s + f(t), 0) / tasks.length;
  const all = sizes.at(-1)!;
  const sessionToolhub = initialTokens + tasks.reduce((s, t) => s + t.addedTokens, 0);

  const summary = {
    avgExtraRoundTrips: avg((t) => t.extraRoundTrips),
    foundRate: avg((t) => (t.found ? 1 : 0)),
    avgAddedTokens: avg((t) => t.addedTokens),
    avgAddedTokensExcludingDefinitions: avg((t) => t.searchTokens + t.infoTokens),
    sessionAllTasks: { toolhubTokens: sessionToolhub, inlineTokens: all.inlineTokens, tools: all.tools },
  };

  console.log(`ToolHub token benchmark — tokenizer o200k_base (js-tiktoken), format ${FORMAT}, search: ${search.name}`);
  console.log(`catalog: ${catalog.length} tools (${Object.entries(bySource).map(([s, n]) => `${s} ${n}`).join(', ')})`);
  console.log(
    `initial context: meta-tools ${metaTokens} + preload set (${preloadInfos.length} tools) ${initialTokens - metaTokens} = ${initialTokens} tokens, ` +
      `fingerprint ${prefixFingerprint}; byte-identical to the registry's rendered preload set: ${sameBytesAsRegistry ? 'yes' : 'NO'}\n`,
  );
  console.log(table([['tools', 'all inlined', 'ToolHub initial', 'fewer tokens'], ...sizes.map((s) => [s.tools, s.inlineTokens, s.toolhubInitialTokens, pct(s.toolhubInitialTokens, s.inlineTokens)])]));
  console.log(`\nper task, searching all ${catalog.length} tools:`);
  console.log(
    table([
      ['task', 'found', 'preloaded', 'searches', 'extra RTs', 'search tok', 'info tok', 'appended def tok', 'added tok', 'tools used'],
      ...tasks.map((t) => [t.id, t.found ? 'yes' : 'NO', `${t.preloaded}/${t.needs}`, t.searchCalls, t.extraRoundTrips, t.searchTokens, t.infoTokens, t.appendedDefinitionTokens, t.addedTokens, t.tools.map((x) => x ?? '-').join(' ')]),
    ]),
  );
  console.log(
    `\naverage: ${summary.avgExtraRoundTrips.toFixed(2)} extra round trips, ${Math.round(summary.avgAddedTokens)} tokens added per task ` +
      `(${Math.round(summary.avgAddedTokensExcludingDefinitions)} without the appended definitions); found ${tasks.filter((t) => t.found).length}/${tasks.length}`,
  );
  console.log(
    `all ${tasks.length} tasks in one session: ToolHub ${sessionToolhub} tokens (initial + everything added) vs ${all.inlineTokens} for ${all.tools} inlined tools on the first request alone (${pct(sessionToolhub, all.inlineTokens)} fewer)`,
  );

  const result = {
    benchmark: 'tokens',
    date: new Date().toISOString(),
    tokenizer: 'o200k_base (js-tiktoken)',
    format: FORMAT,
    search: search.name,
    catalog: { tools: catalog.length, bySource },
    initialContext: {
      metaTools: metaTokens,
      preload: initialTokens - metaTokens,
      total: initialTokens,
      preloadTools: preloadInfos.map((p) => p.id),
      fingerprint: prefixFingerprint,
      sameBytesAsRegistry,
    },
    sizes,
    tasks,
    summary,
  };
  const dir = join(repoRoot(__dirname), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tokens.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nJSON: bench/results/tokens.json`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
