/** Per-tool and per-source quarantine in the SDK, and paged catalog announcements. */
import { InProcessBus } from '@toolhub/bus';
import {
  adapterCatalogSubject,
  CatalogAnnouncement,
  CatalogPageRequest,
  MAX_SCHEMA_DEPTH,
  catalogSubject,
  catalogWildcard,
  ToolInfo,
} from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import {
  AdapterClient,
  type AdapterDefinition,
  catalogChecksum,
  listCatalog,
  QuarantineList,
  readPage,
  readReply,
  serveAdapter,
  textResult,
  toToolInfo,
} from '../src';

function deepSchema(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) s = { type: 'object', properties: { x: s } };
  return s;
}

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

const tool = (provider: string, name: string, extra: Partial<Parameters<typeof toToolInfo>[1]> = {}) =>
  toToolInfo(provider, { name, path: 'demo', description: `The ${name} tool.`, inputSchema: { type: 'object' }, run: async () => textResult(''), ...extra });

describe('quarantine in the adapter SDK', () => {
  const bus = new InProcessBus();
  const announcements: CatalogAnnouncement[] = [];
  const sources = new QuarantineList();

  beforeAll(async () => {
    await bus.subscribe(catalogWildcard('sync'), (m) => void announcements.push(CatalogAnnouncement.decode(m.data)));
    sources.add({ source: 'specs/broken.yaml', reason: 'YAML parse error at line 3', rule: 'parse' });
    const tools = [
      tool('hostile', 'healthy_one'),
      tool('hostile', 'deep_schema', { inputSchema: deepSchema(2000) }),
      tool('hostile', 'forty_levels', { inputSchema: deepSchema(40) }),
      tool('hostile', 'huge_description', { description: 'word '.repeat(220_000) }),
      { ...tool('hostile', 'x'), name: 'Bad\u0007Name', id: 'hostile:Bad\u0007Name' },
    ];
    await serveAdapter(bus, adapterOf('hostile', tools, sources), { instanceId: 'replica-1' });
  });
  afterAll(() => bus.close());

  it('announces the healthy tools and lists every quarantined tool and source with its reason', async () => {
    const ann = await waitFor(() => announcements[0]);
    expect(ann.tools.map((t) => t.name).sort()).toEqual(['forty_levels', 'healthy_one']);
    expect(ann.quarantinedTotal).toBe(4);
    const byRule = Object.fromEntries(ann.quarantined.map((q) => [q.rule, q]));
    expect(byRule.parse).toMatchObject({ source: 'specs/broken.yaml', tool: '', reason: 'YAML parse error at line 3' });
    expect(byRule.schema_depth).toMatchObject({ tool: 'deep_schema', reason: `the input schema nests more than ${MAX_SCHEMA_DEPTH} levels (limit MAX_SCHEMA_DEPTH)` });
    expect(byRule.description_size?.tool).toBe('huge_description');
    // Control characters are shown escaped, never written raw into logs or terminals.
    expect(byRule.name?.reason).toContain('Bad\\u0007Name');
  });

  it('carries a 40-level schema intact (as JSON text, past protobuf Struct recursion limits)', async () => {
    const info = await new AdapterClient(bus).info('hostile', 'forty_levels', { timeoutMs: 5000 });
    expect(JSON.stringify(info.inputSchema)).toBe(JSON.stringify(deepSchema(40)));
  });

  it('answers failed_precondition with the reason for info and run of a quarantined tool', async () => {
    const client = new AdapterClient(bus);
    await expect(client.info('hostile', 'deep_schema', { timeoutMs: 5000 })).rejects.toMatchObject({ code: 'failed_precondition', message: expect.stringContaining('is quarantined: the input schema nests more than') });
    await expect(
      client.run('hostile', { name: 'huge_description', arguments: {}, deadlineUnixMs: Date.now() + 5000, idempotencyKey: '', caller: '' }, { timeoutMs: 5000 }),
    ).rejects.toMatchObject({ code: 'failed_precondition' });
    const listed = await client.list('hostile', '', true, { timeoutMs: 5000 });
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['forty_levels', 'healthy_one']);
  });
});

describe('paged catalog announcements', () => {
  const bus = new InProcessBus({ maxPayload: 64 * 1024 });
  const paged: CatalogAnnouncement[] = [];
  const tools = Array.from({ length: 300 }, (_, i) => tool('big', `tool_${i}`, { description: `Tool number ${i}. ${'Lorem ipsum dolor sit amet. '.repeat(30)}` }));

  beforeAll(async () => {
    await bus.subscribe(catalogSubject('catalog', 'big'), (m) => void paged.push(CatalogAnnouncement.decode(m.data)));
    await serveAdapter(bus, adapterOf('big', tools), { instanceId: 'replica-1' });
  });
  afterAll(() => bus.close());

  it('announces a catalog larger than one message as pages that the registry pulls and checks', async () => {
    const ann = await waitFor(() => paged[0]);
    expect(ann.tools).toEqual([]);
    expect(ann.toolCount).toBe(300);
    expect(ann.pageCount).toBeGreaterThan(4);
    const encoded: Uint8Array[] = [];
    for (let page = 0; page < ann.pageCount!; page++) {
      const reply = await bus.request(adapterCatalogSubject('big', ann.instanceId), CatalogPageRequest.encode({ catalogVersion: ann.catalogVersion, page }).finish(), { timeoutMs: 5000 });
      expect(reply.data.byteLength).toBeLessThanOrEqual(bus.maxPayload);
      const p = readReply(reply, readPage);
      expect(p).toMatchObject({ page, pageCount: ann.pageCount, catalogVersion: ann.catalogVersion });
      encoded.push(...p.encoded);
    }
    expect(catalogChecksum(encoded)).toBe(ann.checksum);
    expect(encoded.map((b) => ToolInfo.decode(b).name)).toEqual(tools.map((t) => t.name));
  });

  it('refuses a page of a catalog version the replica no longer has', async () => {
    const reply = await bus.request(adapterCatalogSubject('big', 'replica-1'), CatalogPageRequest.encode({ catalogVersion: 'stale', page: 0 }).finish(), { timeoutMs: 5000 });
    expect(() => readReply(reply, readPage)).toThrow(expect.objectContaining({ code: 'failed_precondition' }));
  });
});
