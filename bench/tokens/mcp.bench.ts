/**
 * Tokens over MCP: what an MCP host's first `tools/list` costs through ToolHub's MCP door, for 500
 * and 2,000 tools of the catalog, in the default view (meta-tools + preload set) and the flat view
 * (every tool as provider__name), against the list an aggregator such as mcp-hub serves (every
 * tool of every server with its full schema, `server__tool`; computed here from the same
 * catalog, not measured through mcp-hub). Then one scripted agent session over MCP per task
 * (tool_search → tool_info, which adds the tool to tools/list → a typed call of it) with the
 * JSON-RPC round trips it took.
 *
 *   node scripts/build.mjs bench/tokens mcp.bench.ts && node dist/bench/tokens/mcp.bench.js
 *
 * Runs the real door (@toolhub/mcp-door, Streamable HTTP on a loopback port) and the official SDK
 * client, over an in-memory backend that answers as a dispatcher would from the catalog.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { exposedToolFromInfo, ExposedNameTable, renderTools } from '@toolhub/agent-kit';
import { LOCAL_PRINCIPAL } from '@toolhub/auth';
import { type ListToolsResponse, PreloadFormat, RunStatus, ToolHubError, type ToolInfo } from '@toolhub/contracts';
import { type DoorBackend, McpDoor } from '@toolhub/mcp-door';
import { buildPreloadSet } from '@toolhub/registry-core';
import { repoRoot } from '@toolhub/test-harness';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type CatalogTool, loadCatalog } from './catalog';
import { type BenchSearch, createBenchSearch } from './search';
import { PRELOAD_KEYS, TASKS } from './tasks';

const enc = new Tiktoken(o200kBase);
const count = (text: string): number => enc.encode(text).length;
const SIZES = [500, 2000];

/** A dispatcher's answers from an in-memory catalog. */
function catalogBackend(tools: ToolInfo[], search: BenchSearch, preload: ReturnType<typeof buildPreloadSet>): DoorBackend {
  const byId = new Map(tools.map((t) => [t.id, t]));
  const providers = [...new Set(tools.map((t) => t.provider))];
  const empty: ListToolsResponse = { categories: [], tools: [], hint: '', nextPageToken: '', total: 0 };
  return {
    listTools: async (req) => {
      if (req.provider === '') return { ...empty, categories: providers.map((p) => ({ path: '', name: p, toolCount: tools.filter((t) => t.provider === p).length })) };
      const list = tools.filter((t) => t.provider === req.provider).map((t) => ({ id: t.id, name: t.name, path: t.path, summary: t.description.slice(0, 160) }));
      return { ...empty, tools: list, total: list.length } as ListToolsResponse;
    },
    getToolInfo: async ({ provider, name }) => {
      const tool = byId.get(`${provider}:${name}`);
      if (!tool) throw ToolHubError.notFound(`No tool ${provider}:${name}.`);
      return { tool };
    },
    searchTools: async (req) => search.search({ ...req }),
    getPreloadSet: async () => preload,
    runTool: async (req) => ({ status: RunStatus.RUN_STATUS_OK, content: [{ text: 'ok' }], fixes: [], attempts: 1, servedBy: `${req.provider}:${req.name}`, latencyMs: 0 }) as never,
    listProvidersFor: async () => ({ providers: [] }),
  };
}

/** The raw `tools` array of the first tools/list of a new session, as the host receives it. */
async function firstToolsList(url: string): Promise<string> {
  const client = new Client({ name: 'tokens-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const res = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'first', method: 'tools/list' }),
  });
  const body = await res.text();
  const data = body.startsWith('{') ? body : body.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
  await client.close();
  return JSON.stringify((JSON.parse(data) as { result: { tools: unknown[] } }).result.tools);
}

async function main(): Promise<void> {
  const catalog: CatalogTool[] = loadCatalog();
  const byKey = new Map(catalog.map((t) => [t.key, t.info]));
  const preloadInfos = PRELOAD_KEYS.map((k) => byKey.get(k)).filter((t): t is ToolInfo => t !== undefined);
  const preload = buildPreloadSet(preloadInfos, PreloadFormat.PRELOAD_FORMAT_OPENAI_CHAT);
  const rows: Array<{ tools: number; defaultView: number; flatView: number; aggregator: number }> = [];
  for (const n of SIZES) {
    const tools = catalog.slice(0, n).map((t) => t.info);
    const search = await createBenchSearch(tools);
    const backend = catalogBackend(tools, search, preload);
    const measure = async (view: 'default' | 'flat') => {
      const door = await McpDoor.start(backend, { port: 0, view });
      try {
        return count(await firstToolsList(door.address));
      } finally {
        await door.close();
      }
    };
    const names = new ExposedNameTable();
    const aggregator = count(renderTools(tools.map((t) => exposedToolFromInfo(t, names)), 'mcp').json);
    rows.push({ tools: n, defaultView: await measure('default'), flatView: await measure('flat'), aggregator });
  }

  // One scripted session per task over MCP: search, look up (list_changed), typed call.
  const all = catalog.map((t) => t.info);
  const search = await createBenchSearch(all);
  const door = await McpDoor.start(catalogBackend(all, search, preload), { port: 0 });
  const sessions: Array<{ task: string; tool: string | null; roundTrips: number; listChanged: boolean; typedCallOk: boolean }> = [];
  for (const task of TASKS) {
    const client = new Client({ name: 'tokens-bench-agent', version: '1.0.0' });
    let changed = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed = true;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(door.address)));
    let roundTrips = 1; // the first tools/list
    await client.listTools();
    const queries = task.queries;
    const hits = await client.callTool({ name: 'tool_search', arguments: { queries: queries.slice(0, 5) } });
    roundTrips++;
    const first = /^(\S+:\S+) - /m.exec(((hits.content as Array<{ text?: string }>)[0]?.text ?? ''))?.[1] ?? null;
    let typedCallOk = false;
    if (first) {
      await client.callTool({ name: 'tool_info', arguments: { name: first } });
      roundTrips++;
      const listed = (await client.listTools()).tools;
      roundTrips++;
      const exposed = listed.find((t) => t.name === `${first.split(':')[0]}__${first.split(':')[1]}`) ?? listed.at(-1);
      if (exposed) {
        const res = await client.callTool({ name: exposed.name, arguments: {} });
        roundTrips++;
        typedCallOk = !res.isError;
      }
    }
    sessions.push({ task: task.id, tool: first, roundTrips, listChanged: changed, typedCallOk });
    await client.close();
  }
  await door.close();

  console.log('MCP tools/list tokens (o200k_base) of a new session:');
  console.log('| tools | ToolHub default view | ToolHub flat view | every tool listed (aggregator, e.g. mcp-hub) |');
  console.log('|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.tools} | ${r.defaultView} | ${r.flatView} | ${r.aggregator} |`);
  const ok = sessions.filter((s) => s.listChanged && s.typedCallOk).length;
  console.log(`\nscripted sessions over MCP: ${ok}/${sessions.length} saw list_changed and called the looked-up tool typed; round trips per session (tools/list, tool_search, tool_info, tools/list, typed call): ${sessions.map((s) => s.roundTrips).join(', ')}`);
  const dir = join(repoRoot(__dirname), 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tokens-mcp.json'), `${JSON.stringify({ benchmark: 'tokens-mcp', date: new Date().toISOString(), principal: LOCAL_PRINCIPAL.id, rows, sessions }, null, 2)}\n`);
  console.log('JSON: bench/results/tokens-mcp.json');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
