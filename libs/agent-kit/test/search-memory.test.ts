/**
 * Learning from use through the agent path: the executor remembers which tool_search returned which
 * tool and sends that search id with the tool's next run, without the model ever seeing the id
 * (the meta-tool schemas stay as they were). Checked on the wire (a fake server records each
 * RunToolRequest) and end to end (a real registry learns from a run the kit made).
 */
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { type RunToolRequest, RunStatus, type SearchToolsRequest, type SearchToolsResponse } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { AgentKitError, AgentToolkit, SearchMemory, ToolHubAgentClient } from '../src';
import { type FakeServer, okRun, startFakeServer } from './support/fake-server';
import { waitFor } from '@toolhub/test-harness';

const hit = (provider: string, name: string, matchedOn = '') => ({ id: `${provider}:${name}`, provider, name, path: 'time', summary: `${name} does things.`, score: 1, queryIndexes: [0], matchedOn });

function searchAnswer(searchId: string, ...hits: ReturnType<typeof hit>[]): SearchToolsResponse {
  return { hits, suggestions: [], searchId, mode: 0, note: '' };
}

describe('the search id reaches RunTool', () => {
  let fake: FakeServer;
  let client: ToolHubAgentClient;
  let nextSearch: SearchToolsResponse;
  let runStatus: RunStatus;

  const runs = () => fake.calls.filter((c) => c.method === 'runTool').map((c) => c.request as RunToolRequest);
  const lastRun = () => runs().at(-1);
  const lastSearch = () => fake.calls.filter((c) => c.method === 'searchTools').at(-1)?.request as SearchToolsRequest;

  beforeAll(async () => {
    fake = await startFakeServer({
      searchTools: () => nextSearch,
      runTool: () => ({ ...okRun('done'), status: runStatus }),
    });
    client = await ToolHubAgentClient.connect(fake.address);
  });
  beforeEach(() => {
    fake.calls.length = 0;
    runStatus = RunStatus.RUN_STATUS_OK;
    nextSearch = searchAnswer('s1', hit('local', 'clock_now'), hit('web', 'time_lookup'));
  });
  afterAll(async () => {
    client.close();
    await fake.close();
  });

  it('sends the id of the search that found a tool with its run, through tool_run and by exposed name', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    const found = await kit.execute({ name: 'tool_search', arguments: { queries: ['time now'] } });
    expect(found.content).not.toContain('s1'); // the model never has to copy it
    await kit.execute({ name: 'tool_run', arguments: { provider: 'local', name: 'clock_now', arguments: {} } });
    expect(lastRun()).toMatchObject({ provider: 'local', name: 'clock_now', searchId: 's1' });
    await kit.execute({ name: 'web__time_lookup', arguments: '{}' });
    expect(lastRun()).toMatchObject({ provider: 'web', name: 'time_lookup', searchId: 's1' });
  });

  it('sends it with one successful run per tool, so repeated runs do not count as repeated searches', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    await kit.execute({ name: 'tool_search', arguments: { query: 'time' } });
    await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } });
    await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } });
    expect(runs().map((r) => r.searchId)).toEqual(['s1', '']);
  });

  it('keeps it across a failed run, so the corrected run still teaches the registry', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    await kit.execute({ name: 'tool_search', arguments: { query: 'time' } });
    runStatus = RunStatus.RUN_STATUS_TOOL_ERROR;
    expect((await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } })).isError).toBe(true);
    fake.handlers.runTool = () => {
      throw new Error('adapter crashed');
    };
    expect((await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } })).isError).toBe(true);
    fake.handlers.runTool = () => ({ ...okRun('done'), status: runStatus });
    runStatus = RunStatus.RUN_STATUS_OK;
    await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } });
    expect(runs().map((r) => r.searchId)).toEqual(['s1', 's1', 's1']);
  });

  it('uses the latest search that returned the tool, and none for a tool no search returned', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    await kit.execute({ name: 'tool_search', arguments: { query: 'time' } });
    nextSearch = searchAnswer('s2', hit('local', 'clock_now'));
    await kit.execute({ name: 'tool_search', arguments: { query: 'clock' } });
    await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } });
    await kit.execute({ name: 'tool_run', arguments: { name: 'web:time_lookup', arguments: {} } });
    await kit.execute({ name: 'tool_run', arguments: { name: 'local:file_read', arguments: {} } });
    expect(runs().map((r) => r.searchId)).toEqual(['s2', 's1', '']);
  });

  it('keeps each agent apart: one toolkit never sends another toolkit\'s search id', async () => {
    const a = await AgentToolkit.create(client, { preload: [] });
    const b = await AgentToolkit.create(client, { preload: [] });
    await a.execute({ name: 'tool_search', arguments: { query: 'time' } });
    await b.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } });
    expect(lastRun()?.searchId).toBe('');
  });

  it('sends nothing when rememberSearches is false', async () => {
    const kit = await AgentToolkit.create(client, { preload: [], rememberSearches: false });
    await kit.execute({ name: 'tool_search', arguments: { query: 'time' } });
    await kit.execute({ name: 'tool_run', arguments: { name: 'local:clock_now', arguments: {} } });
    expect(lastRun()?.searchId).toBe('');
  });

  it('asks for and shows what each hit matched on only with explainSearch', async () => {
    nextSearch = searchAnswer('s1', hit('local', 'clock_now', 'name,semantic'), hit('web', 'time_lookup'));
    const plain = await AgentToolkit.create(client, { preload: [] });
    await plain.execute({ name: 'tool_search', arguments: { query: 'time' } });
    expect(lastSearch().explain).toBe(false);

    const explained = await AgentToolkit.create(client, { preload: [], explainSearch: true });
    const res = await explained.execute({ name: 'tool_search', arguments: { query: 'time' } });
    expect(lastSearch().explain).toBe(true);
    expect(res.content.split('\n').slice(0, 2)).toEqual(['local:clock_now - clock_now does things. [time] (matched: name,semantic)', 'web:time_lookup - time_lookup does things. [time]']);
  });
});

describe('SearchMemory', () => {
  it('forgets a search once the registry would have (ttlMs), and the oldest tools past maxTools', () => {
    let now = 0;
    const memory = new SearchMemory({ ttlMs: 1000, maxTools: 2, now: () => now });
    memory.rememberSearch(searchAnswer('s1', hit('a', 'x'), hit('a', 'y')));
    now = 500;
    memory.rememberSearch(searchAnswer('s2', hit('a', 'z')));
    expect(memory.size).toBe(2);
    expect(memory.searchIdFor('a:x')).toBe('');
    expect(memory.searchIdFor('a:y')).toBe('s1');
    now = 1200;
    expect(memory.searchIdFor('a:y')).toBe('');
    expect(memory.searchIdFor('a:z')).toBe('s2');
  });

  it('ignores answers without a search id (a server that does not learn)', () => {
    const memory = new SearchMemory();
    memory.rememberSearch(searchAnswer('', hit('a', 'x')));
    expect(memory.size).toBe(0);
  });

  it('names a bad option', () => {
    expect(() => new SearchMemory({ maxTools: 0 })).toThrow(AgentKitError);
    expect(() => new SearchMemory({ ttlMs: 1.5 })).toThrow(/rememberSearches.ttlMs/);
  });
});

describe('a registry learns from the agent path', () => {
  const tools: ToolDefinition<never>[] = [
    { name: 'greet_person', path: 'social', description: 'Greets someone by name.', inputSchema: { type: 'object', properties: { who: { type: 'string' } } }, run: async (a: { who?: string }) => textResult(`hello ${a.who ?? ''}`) },
    { name: 'wave_hand', path: 'social', description: 'Waves a hand at someone.', inputSchema: { type: 'object', properties: {} }, run: async () => textResult('*waves*') },
  ];
  let dir: string;
  let bus: InProcessBus;
  let store: EmbeddedRegistryStore;
  let registry: Registry;
  let adapter: AdapterService;
  let dispatcher: RunningDispatcher;
  let client: ToolHubAgentClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-kit-learning-'));
    bus = new InProcessBus();
    store = await EmbeddedRegistryStore.open({ dir });
    registry = await Registry.start(bus, store);
    adapter = await serveAdapter(bus, { provider: 'social', ...staticCatalog('social', tools) });
    dispatcher = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    client = await ToolHubAgentClient.connect(dispatcher.grpc.address);
    await until(async () => (await store.listTools({ provider: 'social' })).length === tools.length, 'the catalog in the registry');
  });
  afterAll(async () => {
    client.close();
    await dispatcher.close(100);
    await adapter.close();
    await registry.close();
    await store.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records which tool the agent ran after which query, with no search id in the model\'s view', async () => {
    const kit = await AgentToolkit.create(client, { preload: [] });
    const found = await kit.execute({ name: 'tool_search', arguments: { queries: ['say hello to someone'] } });
    expect(found.content).toContain('social:greet_person');
    expect(await kit.execute({ name: 'tool_run', arguments: { name: 'social:greet_person', arguments: { who: 'Ada' } } })).toEqual({ content: 'hello Ada', isError: false });
    await until(async () => registry.hybrid.learned().length > 0, 'the registry to learn from the run');
    expect(registry.hybrid.learned()).toEqual([expect.objectContaining({ toolId: 'social:greet_person', provider: 'social', query: 'say hello to someone' })]);
  });
});

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(check, { timeoutMs, message: what });
}
