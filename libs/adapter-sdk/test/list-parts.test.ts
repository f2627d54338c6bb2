/** Listings larger than one bus message are read in parts and joined by the client. */
import { InProcessBus } from '@toolhub/bus';
import { AdapterListRequest, AdapterListResponse, adapterSubject, type ToolInfo } from '@toolhub/contracts';

import { AdapterClient, type AdapterDefinition, listCatalog, readReply, serveAdapter, textResult, toToolInfo } from '../src';

function adapterOf(provider: string, tools: ToolInfo[]): AdapterDefinition {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return {
    provider,
    catalog: async () => tools,
    listTools: async (path, recursive) => listCatalog(tools, path, recursive),
    getToolInfo: async (name) => byName.get(name)!,
    runTool: async (name) => textResult(`ran ${name}`),
  };
}

describe('listings in parts', () => {
  const bus = new InProcessBus({ maxPayload: 64 * 1024 });
  // ~4,000 tools in 40 categories: several times the bus limit when listed recursively.
  const tools = Array.from({ length: 4000 }, (_, i) =>
    toToolInfo('wide', { name: `tool_${i}`, path: `area_${i % 40}/sub`, description: `Tool number ${i}: does one small thing with a long enough summary.`, inputSchema: { type: 'object' }, run: async () => textResult('') }),
  );
  const client = new AdapterClient(bus);

  beforeAll(async () => {
    await serveAdapter(bus, adapterOf('wide', tools), { instanceId: 'replica-1' });
  });
  afterAll(() => bus.close());

  it('joins every part of a recursive listing larger than one message, categories once', async () => {
    const whole = await client.list('wide', '', true, { timeoutMs: 10_000 });
    expect(whole.tools.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
    expect(whole.nextOffset).toBeUndefined();
    const direct = await listCatalog(tools, '', true);
    expect(whole.categories).toEqual(direct.categories);
    expect(AdapterListResponse.encode(whole).finish().byteLength).toBeGreaterThan(3 * bus.maxPayload);
  });

  it('sends each part within the bus limit and never a cut listing to a caller that does not accept parts', async () => {
    const first = await bus.request(adapterSubject('wide', 'list'), AdapterListRequest.encode({ path: '', recursive: true, offset: 0, acceptParts: true }).finish(), { timeoutMs: 5000 });
    expect(first.data.byteLength).toBeLessThanOrEqual(bus.maxPayload);
    const part = readReply(first, (b) => AdapterListResponse.decode(b));
    expect(part.nextOffset).toBe(part.tools.length);
    // An older caller asks for the whole listing: it gets the bus's size error, as it always did, not part of it.
    const old = await bus.request(adapterSubject('wide', 'list'), AdapterListRequest.encode({ path: '', recursive: true, offset: 0, acceptParts: false }).finish(), { timeoutMs: 5000 });
    expect(() => readReply(old, (b) => AdapterListResponse.decode(b))).toThrow(/exceeds the bus limit/);
  });

  it('refuses an offset past the end with a message that says to list again', async () => {
    const reply = await bus.request(adapterSubject('wide', 'list'), AdapterListRequest.encode({ path: 'area_1', recursive: true, offset: 99_999, acceptParts: true }).finish(), { timeoutMs: 5000 });
    expect(() => readReply(reply, (b) => AdapterListResponse.decode(b))).toThrow(expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(/list again from offset 0/) }));
  });

  it('answers a small listing in one part, as before', async () => {
    const small = await client.list('wide', 'area_3', false, { timeoutMs: 5000 });
    expect(small.tools).toEqual([]);
    expect(small.categories.map((c) => c.path)).toEqual(['area_3/sub']);
  });
});
