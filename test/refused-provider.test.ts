/**
 * A provider whose every live replica speaks another contract major is hidden from agents in
 * search and tool_info even though the registry stored its catalog, exactly like a provider that
 * does not exist; its tools come back once a compatible replica serves it.
 */
import { credentials } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { type SearchToolsResponse, ToolHubClient } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tools = (provider: string) => [{ name: 'forecast_weather', path: 'weather', description: `Forecast the weather for a city (${provider}).`, inputSchema: { type: 'object' }, run: async () => textResult('sunny') }];

describe('a refused provider in search and tool_info', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-refused-'));
  let bus: InProcessBus;
  let store: EmbeddedRegistryStore;
  let registry: Registry;
  let running: RunningDispatcher;
  let client: ToolHubClient;
  const adapters: AdapterService[] = [];
  const search = (q: string) => new Promise<SearchToolsResponse>((resolve, reject) => client.searchTools({ queries: [q], provider: '', path: '', limit: 10, mode: 0, explain: false }, (e, r) => (e ? reject(e) : resolve(r))));
  const info = (provider: string) =>
    new Promise<{ code?: number; details?: string }>((resolve) => client.getToolInfo({ provider, name: 'forecast_weather' }, (e) => resolve(e ? { code: e.code, details: e.details } : {})));

  beforeAll(async () => {
    bus = new InProcessBus();
    store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
    registry = await Registry.start(bus, store);
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    client = new ToolHubClient(running.grpc.address, credentials.createInsecure());
    adapters.push(await serveAdapter(bus, { provider: 'sky', ...staticCatalog('sky', tools('sky')) }));
    adapters.push(await serveAdapter(bus, { provider: 'future', ...staticCatalog('future', tools('future')) }, { contractVersion: '2.0.0' }));
    // Both catalogs stored and indexed by the registry.
    await waitFor(async () => (await store.listTools()).length === 2, { timeoutMs: 10_000 });
    await waitFor(() => running.dispatcher.listProviders().providers.length === 2, { timeoutMs: 10_000 });
  });

  afterAll(async () => {
    client.close();
    await running.close(100);
    for (const a of adapters) await a.close();
    await registry.close();
    await store.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds only the accepted provider’s tool, though the registry knows both', async () => {
    expect((await store.listTools()).map((t) => t.id).sort()).toEqual(['future:forecast_weather', 'sky:forecast_weather']);
    const res = await waitFor(async () => {
      const r = await search('forecast the weather');
      return r.hits.length > 0 ? r : undefined;
    });
    expect(res.hits.map((h) => h.id)).toEqual(['sky:forecast_weather']);
  });

  it('answers tool_info for it exactly like a provider that does not exist', async () => {
    expect(await info('sky')).toEqual({});
    const refused = await info('future');
    const missing = await info('nowhere');
    expect(refused.code).toBe(missing.code);
    expect(refused.details?.replace('future', '<P>')).toBe(missing.details?.replace('nowhere', '<P>'));
  });
});
