/**
 * ListTools pages: the order (path, then name), categories on the first page only, the hint that
 * says how to get the next page, the byte budget, and the same over gRPC through a real dispatcher
 * (old clients without page fields get the whole listing, paged clients every tool once).
 */
import { status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { type AdapterListResponse, Importance, isToolHubError, type ListToolsRequest, type ToolSummary } from '@toolhub/contracts';

import { type RunningDispatcher, startDispatcher } from '../src';
import { pageOfListing } from '../src/list-pages';
import { connectClient, failure, type TestClient } from './support/grpc-client';

const summary = (path: string, name: string, summaryText = `Does ${name}.`): ToolSummary => ({ id: `p:${name}`, provider: 'p', name, path, summary: summaryText, importance: Importance.IMPORTANCE_NORMAL });
const req = (over: Partial<ListToolsRequest> = {}): ListToolsRequest => ({ provider: 'p', path: '', recursive: true, pageSize: 0, pageToken: '', ...over });
const hint = (res: AdapterListResponse) => `first is ${res.tools[0]?.name ?? 'none'}`;

describe('pageOfListing', () => {
  // Deliberately out of order: the adapter SDK sorts, but other adapters need not.
  const listing: AdapterListResponse = {
    categories: [{ path: 'a', name: 'a', toolCount: 2 }],
    tools: [summary('b', 'zeta'), summary('a', 'mu'), summary('', 'root_tool'), summary('a', 'alpha'), summary('b', 'beta')],
  };

  it('orders tools by path, then name, and answers an unpaged request whole', () => {
    const res = pageOfListing(req(), listing, hint);
    expect(res.tools.map((t) => `${t.path}/${t.name}`)).toEqual(['/root_tool', 'a/alpha', 'a/mu', 'b/beta', 'b/zeta']);
    expect(res).toMatchObject({ categories: listing.categories, nextPageToken: '', total: 5, hint: 'first is root_tool' });
  });

  it('sends categories on the first page only and says in the hint how to ask for the next page', () => {
    const first = pageOfListing(req({ pageSize: 2 }), listing, hint);
    expect(first.categories).toEqual(listing.categories);
    expect(first.hint).toContain('first is root_tool This page holds tools 1 to 2 of 5');
    expect(first.hint).toContain(`page_token=${JSON.stringify(first.nextPageToken)}`);
    const second = pageOfListing(req({ pageSize: 2, pageToken: first.nextPageToken }), listing, hint);
    expect(second.categories).toEqual([]);
    expect(second.tools.map((t) => t.name)).toEqual(['mu', 'beta']);
    const last = pageOfListing(req({ pageSize: 2, pageToken: second.nextPageToken }), listing, hint);
    expect(last.tools.map((t) => t.name)).toEqual(['zeta']);
    expect(last).toMatchObject({ nextPageToken: '', hint: 'first is root_tool' });
  });

  it('cuts a page of long summaries at the byte budget and refuses an unpaged request over it', () => {
    const long = { categories: [], tools: Array.from({ length: 40 }, (_, i) => summary('', `tool_${String(i).padStart(2, '0')}`, 'x'.repeat(10_000))) };
    const names: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const res = pageOfListing(req({ pageSize: 2000, pageToken }), long, hint, 100_000);
      names.push(...res.tools.map((t) => t.name));
      pageToken = res.nextPageToken;
      pages++;
    } while (pageToken !== '' && pages < 100);
    expect(pages).toBeGreaterThan(3);
    expect(names).toEqual(long.tools.map((t) => t.name));
    let refused: unknown;
    try {
      pageOfListing(req(), long, hint, 100_000);
    } catch (err) {
      refused = err;
    }
    expect(isToolHubError(refused, 'failed_precondition')).toBe(true);
  });

  it('refuses a token of another path or of a non-recursive listing', () => {
    const token = pageOfListing(req({ pageSize: 2 }), listing, hint).nextPageToken;
    for (const other of [req({ path: 'a', pageSize: 2, pageToken: token }), req({ recursive: false, pageSize: 2, pageToken: token })]) {
      let refused: unknown;
      try {
        pageOfListing(other, listing, hint);
      } catch (err) {
        refused = err;
      }
      expect(isToolHubError(refused, 'invalid_argument')).toBe(true);
    }
  });
});

describe('ListTools pages over gRPC', () => {
  const TOOLS = 2300;
  const schema = { type: 'object', properties: {} };
  const tools: ToolDefinition<never>[] = Array.from({ length: TOOLS }, (_, i) => ({
    name: `op_${String(i).padStart(4, '0')}`,
    path: `group_${i % 7}`,
    description: `Operation ${i}.`,
    inputSchema: schema,
    run: async () => textResult('ok'),
  }));
  let bus: InProcessBus;
  let adapter: AdapterService;
  let running: RunningDispatcher;
  let client: TestClient;

  beforeAll(async () => {
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'bulk', ...staticCatalog('bulk', tools) });
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false } });
    client = connectClient(running.grpc.address);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await running?.close(100);
    await adapter?.close();
    await bus?.close();
  });

  it('answers every tool exactly once across pages, in the same order as the unpaged answer', async () => {
    const whole = await client.listTools({ provider: 'bulk', recursive: true });
    expect(whole.tools).toHaveLength(TOOLS);
    expect(whole.nextPageToken).toBe('');
    const paged: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const res = await client.listTools({ provider: 'bulk', recursive: true, pageSize: 1000, pageToken });
      expect(res.total).toBe(TOOLS);
      paged.push(...res.tools.map((t) => t.id));
      pageToken = res.nextPageToken;
      pages++;
    } while (pageToken !== '' && pages < 10);
    expect(pages).toBe(3);
    expect(paged).toEqual(whole.tools.map((t) => t.id));
  });

  it('refuses a bad page token with INVALID_ARGUMENT that says what to send', async () => {
    const err = await failure(client.listTools({ provider: 'bulk', recursive: true, pageSize: 10, pageToken: 'eyJ2IjoxfQ' }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain('no page_token to start again from the first page');
  });
});
