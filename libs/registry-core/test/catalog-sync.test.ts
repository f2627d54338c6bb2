/**
 * Catalog sync that scales, in one process (in-process bus, embedded store): a catalog larger than
 * one bus message arrives whole through pages, a lost page is asked for again, and a hostile
 * adapter's bad tools are quarantined with reasons while its healthy tools serve.
 */
import { type AdapterDefinition, type AdapterService, listCatalog, QuarantineList, serveAdapter, textResult, toToolInfo } from '@toolhub/adapter-sdk';
import { type Bus, InProcessBus } from '@toolhub/bus';
import { CatalogPageRequest, type ToolInfo } from '@toolhub/contracts';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Registry } from '../src';

function deepSchema(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) s = { type: 'object', properties: { x: s } };
  return s;
}

const tool = (provider: string, name: string, extra: Partial<Parameters<typeof toToolInfo>[1]> = {}): ToolInfo =>
  toToolInfo(provider, { name, path: 'demo', description: `The ${name} tool. ${'It does one thing well and returns JSON. '.repeat(8)}`, inputSchema: deepSchema(6), run: async () => textResult(''), ...extra });

function adapterOf(provider: string, tools: ToolInfo[], sources?: QuarantineList): AdapterDefinition {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return {
    provider,
    catalog: async () => tools,
    listTools: async (path, recursive) => listCatalog(tools, path, recursive),
    getToolInfo: async (name) => byName.get(name)!,
    runTool: async (name) => textResult(`ran ${name}`),
    quarantined: sources ? () => sources.entries() : undefined,
  };
}

/** The registry's view of the bus, losing the first request for page 2 of every paged catalog. */
function losingPage2(bus: Bus): Bus {
  const lost = new Set<string>();
  return new Proxy(bus, {
    get(target, prop, receiver) {
      if (prop === 'request') {
        return async (subject: string, data: Uint8Array, options: { timeoutMs: number }) => {
          if (subject.includes('.catalog.')) {
            const req = CatalogPageRequest.decode(data);
            const key = `${req.catalogVersion}/${req.page}`;
            if (req.page === 2 && !lost.has(key)) {
              lost.add(key);
              throw Object.assign(new Error('simulated lost page'), { code: 'timeout' });
            }
          }
          return target.request(subject, data, options);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('catalog sync of any size, in one process', () => {
  const bus = new InProcessBus();
  let dir: string;
  let registry: Registry;
  let store: EmbeddedRegistryStore;
  const services: AdapterService[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-sync-'));
    store = await EmbeddedRegistryStore.open({ dir });
    registry = await Registry.start(losingPage2(bus), store, { catalogSync: { pageTimeoutMs: 5000 } });
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    await registry.close();
    await store.close();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('receives a 3,000-tool catalog of more than 1 MiB whole, through pages, after losing one', async () => {
    const tools = Array.from({ length: 3000 }, (_, i) => tool('big', `op_${i}`));
    services.push(await serveAdapter(bus, adapterOf('big', tools), { instanceId: 'big-1' }));
    const status = await waitFor(() => registry.catalogStatus('big').find((s) => s.state === 'synced'), { timeoutMs: 60_000 });
    expect(status.pageCount).toBeGreaterThan(1);
    expect(status.pagesReceived).toBe(status.pageCount);
    expect(status.toolCount).toBe(3000);
    expect((await store.listTools({ provider: 'big' })).length).toBe(3000);
    const hits = registry.search.search({ queries: ['op_2999'], provider: 'big', path: '', limit: 3 } as never);
    expect(hits.hits[0]?.name).toBe('op_2999');
  }, 90_000);

  it('keeps a hostile adapter\'s healthy tools serving and reports every bad tool and source with its reason', async () => {
    const sources = new QuarantineList();
    sources.add({ source: 'server never finishes listing', reason: 'tools/list did not answer within 10000 ms', rule: 'timeout' });
    const tools = [
      tool('hostile', 'fine_one'),
      tool('hostile', 'forty_deep', { inputSchema: deepSchema(40) }),
      tool('hostile', 'abyss', { inputSchema: deepSchema(2000) }),
      tool('hostile', 'novel', { description: 'x'.repeat(1_000_000) }),
    ];
    services.push(await serveAdapter(bus, adapterOf('hostile', tools, sources), { instanceId: 'hostile-1' }));
    const status = await waitFor(() => registry.catalogStatus('hostile').find((s) => s.state === 'synced'), { timeoutMs: 30_000 });
    expect((await store.listTools({ provider: 'hostile' })).map((t) => t.name).sort()).toEqual(['fine_one', 'forty_deep']);
    expect(status.quarantinedTotal).toBe(3);
    expect(status.quarantined.map((q) => `${q.source}|${q.tool}|${q.rule}`).sort()).toEqual(['server never finishes listing||timeout', '|abyss|schema_depth', '|novel|description_size']);
    const deep = await registry.getTool('hostile', 'forty_deep');
    expect(deep.tool?.inputSchema).toEqual(deepSchema(40));
  }, 60_000);
});
