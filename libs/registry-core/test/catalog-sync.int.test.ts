/**
 * Catalog sync over a real nats-server (1 MiB max_payload): a 10,000-tool catalog of several MiB
 * arrives whole through pages; a hostile adapter (2,000-level schema, 1 MB description, control
 * characters in a name) leaves the registry up, its healthy tools served and the bad ones
 * quarantined with reasons; a registry restarted while an adapter's catalog changed serves the new
 * catalog, not the stale one. Adapter and registry each use their own NATS connection.
 */
import { type AdapterDefinition, type AdapterService, listCatalog, serveAdapter, textResult, toToolInfo } from '@toolhub/adapter-sdk';
import { NatsBus } from '@toolhub/bus';
import type { ToolInfo } from '@toolhub/contracts';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { type NatsServerHandle, startNatsServer, waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Registry } from '../src';

jest.setTimeout(180_000);

function deepSchema(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) s = { type: 'object', properties: { x: s } };
  return s;
}

const tool = (provider: string, name: string, extra: Partial<Parameters<typeof toToolInfo>[1]> = {}): ToolInfo =>
  toToolInfo(provider, { name, path: 'ops', description: `Operation ${name}: creates, reads or updates one resource and returns it as JSON.`, inputSchema: deepSchema(8), run: async () => textResult(''), ...extra });

function adapterOf(provider: string, tools: () => ToolInfo[]): AdapterDefinition {
  return {
    provider,
    catalog: async () => tools(),
    listTools: async (path, recursive) => listCatalog(tools(), path, recursive),
    getToolInfo: async (name) => tools().find((t) => t.name === name)!,
    runTool: async (name) => textResult(`ran ${name}`),
  };
}

describe('catalog sync over NATS', () => {
  let nats: NatsServerHandle;
  let dir: string;
  let store: EmbeddedRegistryStore;
  let registryBus: NatsBus;
  let adapterBus: NatsBus;
  let registry: Registry;
  const services: AdapterService[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    dir = mkdtempSync(join(tmpdir(), 'catalog-sync-int-'));
    store = await EmbeddedRegistryStore.open({ dir });
    registryBus = await NatsBus.connect({ servers: nats.url, name: 'registry' });
    adapterBus = await NatsBus.connect({ servers: nats.url, name: 'adapters' });
    registry = await Registry.start(registryBus, store);
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    await registry.close();
    await store.close();
    await registryBus.close();
    await adapterBus.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('receives a 10,000-tool catalog larger than the 1 MiB payload limit whole', async () => {
    const tools = Array.from({ length: 10_000 }, (_, i) => tool('vendor', `operation_${i}`));
    const bytes = tools.reduce((n, t) => n + JSON.stringify(t).length, 0);
    expect(bytes).toBeGreaterThan(4 * 1024 * 1024);
    services.push(await serveAdapter(adapterBus, adapterOf('vendor', () => tools), { instanceId: 'vendor-1' }));
    const status = await waitFor(() => registry.catalogStatus('vendor').find((s) => s.state !== 'receiving'), { timeoutMs: 150_000 });
    expect(status).toMatchObject({ state: 'synced', toolCount: 10_000, error: '' });
    expect(status.pageCount).toBeGreaterThan(4);
    expect((await store.listTools({ provider: 'vendor' })).length).toBe(10_000);
    expect(registry.search.search({ queries: ['operation_9999'], provider: 'vendor', path: '', limit: 1 } as never).hits[0]?.name).toBe('operation_9999');
  });

  it('keeps the hub up and the healthy tools served when an adapter announces hostile tools', async () => {
    const tools = [
      tool('hostile', 'healthy'),
      tool('hostile', 'abyss', { inputSchema: deepSchema(2000) }),
      tool('hostile', 'tome', { description: 'y'.repeat(1_000_000) }),
      { ...tool('hostile', 'x'), name: 'evil\u001b[31mname', id: 'hostile:evil' },
    ];
    services.push(await serveAdapter(adapterBus, adapterOf('hostile', () => tools), { instanceId: 'hostile-1' }));
    const status = await waitFor(() => registry.catalogStatus('hostile').find((s) => s.state === 'synced'), { timeoutMs: 60_000 });
    expect((await store.listTools({ provider: 'hostile' })).map((t) => t.name)).toEqual(['healthy']);
    expect(status.quarantined.map((q) => q.rule).sort()).toEqual(['description_size', 'name', 'schema_depth']);
    expect(status.quarantined.find((q) => q.rule === 'name')?.reason).toContain('evil\\u001b[31mname');
    // The other provider was never touched.
    expect(registry.catalogStatus('vendor')[0]?.toolCount).toBe(10_000);
  });

  it('serves the new catalog, not the stale one, after a registry restart while the catalog changed', async () => {
    let tools = [tool('shifty', 'old_tool'), tool('shifty', 'kept_tool')];
    const service = await serveAdapter(adapterBus, adapterOf('shifty', () => tools), { instanceId: 'shifty-1' });
    services.push(service);
    await waitFor(async () => (await store.listTools({ provider: 'shifty' })).length === 2 || undefined, { timeoutMs: 30_000 });
    await registry.close();
    // While no registry listens, the adapter's catalog changes and its announcement is lost.
    tools = [tool('shifty', 'kept_tool'), tool('shifty', 'new_tool')];
    await service.announce();
    registry = await Registry.start(registryBus, store);
    // On start the registry asks every live adapter to announce again.
    await waitFor(async () => {
      const names = (await store.listTools({ provider: 'shifty' })).map((t) => t.name).join(',');
      return names === 'kept_tool,new_tool' || undefined;
    }, { timeoutMs: 30_000 });
    // The search index follows the store's switch (refreshed right after it).
    const names = () => registry.search.search({ queries: ['tool'], provider: 'shifty', path: '', limit: 5 } as never).hits.map((h) => h.name).sort().join(',');
    await waitFor(() => names() === 'kept_tool,new_tool' || undefined, { timeoutMs: 10_000 });
    await expect(registry.getTool('shifty', 'old_tool')).rejects.toMatchObject({ code: 'not_found' });
  });
});
