/**
 * ListRegisteredTools over real gRPC when the catalog is larger than one reply may be: clients keep
 * grpc-js's default 4 MiB receive limit, the registry holds more than 4 MiB of tool definitions, and
 * every tool arrives exactly once, page by page; an old client without page fields gets a clear
 * FAILED_PRECONDITION instead of a transport error.
 */
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { Importance, LIST_REPLY_BUDGET_BYTES, type ListRegisteredToolsRequest, ListRegisteredToolsResponse, RegisteredTool, type RegistryAdminClient, type ToolInfo } from '@toolhub/contracts';

import { type AdminStack, startAdminStack } from './support/admin-stack';

const BIG_TOOLS = 130;

/** A tool whose input schema is about 50 KB of JSON (200 documented string fields). */
function bigTool(i: number): ToolInfo {
  const properties: Record<string, unknown> = {};
  for (let f = 0; f < 200; f++) properties[`field_${f}`] = { type: 'string', description: `Field ${f} of tool ${i}: ${'a long explanation of what this field holds '.repeat(5)}` };
  const name = `op_${String(i).padStart(4, '0')}`;
  return {
    id: `vendor:${name}`,
    provider: 'vendor',
    name,
    path: i % 2 === 0 ? 'even' : 'odd',
    description: `Operation ${i} of the vendor API.`,
    inputSchema: { type: 'object', properties },
    outputDescription: '',
    examples: [],
    importance: Importance.IMPORTANCE_NORMAL,
    annotations: {},
    version: '',
    tags: [],
    defaultTimeoutMs: 0,
  };
}

const small = (name: string): ToolInfo => ({ ...bigTool(0), id: `local:${name}`, provider: 'local', name, path: 'text', description: `Small tool ${name}.`, inputSchema: { type: 'object' } });

describe('ListRegisteredTools paging over gRPC', () => {
  let stack: AdminStack;
  let client: RegistryAdminClient;

  const list = (req: Partial<ListRegisteredToolsRequest>) =>
    new Promise<ListRegisteredToolsResponse>((resolve, reject) =>
      client.listRegisteredTools({ provider: '', path: '', pageSize: 0, pageToken: '', ...req }, new Metadata(), { deadline: Date.now() + 60_000 }, (err, res) => (err ? reject(err) : resolve(res))),
    );
  const failure = async (req: Partial<ListRegisteredToolsRequest>): Promise<ServiceError> => {
    try {
      await list(req);
    } catch (err) {
      return err as ServiceError;
    }
    throw new Error('expected ListRegisteredTools to fail');
  };

  beforeAll(async () => {
    // Straight into the store (as a restored database would hold them): the test is about reading.
    // The client keeps grpc-js's default receive limit (4 MiB), like the CLI and every other client.
    stack = await startAdminStack({}, async (store) => {
      for (let i = 0; i < BIG_TOOLS; i++) await store.registerTool(bigTool(i));
      for (const name of ['word_count', 'echo_text', 'upper_case']) await store.registerTool(small(name));
    });
    ({ client } = stack);
  }, 120_000);
  afterAll(() => stack?.close());

  it('answers more than 4 MiB of tools page by page, each page under the budget, every tool exactly once in id order', async () => {
    const ids: string[] = [];
    const pageBytes: number[] = [];
    let pageToken = '';
    do {
      const res = await list({ pageSize: 2000, pageToken });
      expect(res.total).toBe(BIG_TOOLS + 3);
      pageBytes.push(ListRegisteredToolsResponse.encode(res).finish().length);
      ids.push(...res.tools.map((t) => t.tool!.id));
      pageToken = res.nextPageToken;
    } while (pageToken !== '' && pageBytes.length <= BIG_TOOLS);
    const total = pageBytes.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(4 * 1024 * 1024);
    expect(pageBytes.length).toBeGreaterThan(1);
    for (const b of pageBytes) expect(b).toBeLessThanOrEqual(LIST_REPLY_BUDGET_BYTES);
    const expected = [...Array.from({ length: BIG_TOOLS }, (_, i) => bigTool(i).id), 'local:echo_text', 'local:upper_case', 'local:word_count'].sort();
    expect(ids).toEqual(expected);
  });

  it('pages by page_size with the filters kept, no duplicates or gaps', async () => {
    const first = await list({ provider: 'vendor', path: 'even', pageSize: 20 });
    expect(first.tools).toHaveLength(20);
    expect(first.total).toBe(BIG_TOOLS / 2);
    const names = first.tools.map((t) => t.tool!.name);
    let pageToken = first.nextPageToken;
    while (pageToken !== '') {
      const res = await list({ provider: 'vendor', path: 'even', pageSize: 20, pageToken });
      names.push(...res.tools.map((t) => t.tool!.name));
      pageToken = res.nextPageToken;
    }
    expect(names).toEqual(Array.from({ length: BIG_TOOLS / 2 }, (_, k) => bigTool(2 * k).name));
  });

  it('gives a client older than paging the whole list when it fits, as before', async () => {
    const res = await list({ provider: 'local' });
    expect(res.tools.map((t) => t.tool!.name)).toEqual(['echo_text', 'upper_case', 'word_count']);
    expect(res.nextPageToken).toBe('');
  });

  it('refuses a client older than paging with FAILED_PRECONDITION naming the limit when the list does not fit, not with a transport error', async () => {
    const err = await failure({});
    expect(err.code).toBe(status.FAILED_PRECONDITION);
    expect(err.details).toContain(`${LIST_REPLY_BUDGET_BYTES} bytes`);
    expect(err.details).toContain('Send page_size');
  });

  it('refuses a malformed token and a token of other filters with INVALID_ARGUMENT that says what to send', async () => {
    const bad = await failure({ pageSize: 10, pageToken: 'bm90IGEgdG9rZW4' });
    expect(bad.code).toBe(status.INVALID_ARGUMENT);
    expect(bad.details).toContain('Send the next_page_token of the previous reply unchanged');
    const token = (await list({ provider: 'vendor', pageSize: 10 })).nextPageToken;
    const foreign = await failure({ provider: 'local', pageSize: 10, pageToken: token });
    expect(foreign.code).toBe(status.INVALID_ARGUMENT);
    expect(foreign.details).toContain('belongs to another listing');
  });

  it('sends full definitions in a page (the schema is not cut)', async () => {
    const res = await list({ provider: 'vendor', pageSize: 1 });
    expect(RegisteredTool.toJSON(res.tools[0]!)).toMatchObject({ tool: { name: 'op_0000' } });
    expect(Object.keys((res.tools[0]!.tool!.inputSchema as { properties: object }).properties)).toHaveLength(200);
  });
});
