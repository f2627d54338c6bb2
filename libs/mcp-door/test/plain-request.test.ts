/**
 * The HTTP+SSE transport hands "plain" requests to the SDK server without zod (isPlainRequest):
 * everything it accepts must be a request the SDK's own schemas accept, and what it refuses still
 * takes the schema's path (so malformed messages get the same 400 as before).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isJSONRPCRequest, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

import { isPlainRequest } from '../src/node-sse-transport';
import { withProtoDefaults } from '../src/backend';
import { RunToolRequest, SearchToolsRequest } from '@toolhub/contracts';

const accepted: unknown[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mcp__everything_echo', arguments: { message: 'x' } } },
  { jsonrpc: '2.0', id: 'a-1', method: 'tools/list' },
  { jsonrpc: '2.0', id: 0, method: 'ping', params: {} },
  { jsonrpc: '2.0', id: -7, method: 'tools/call', params: { name: 't', task: { ttl: 1000 }, extra: [1, 2] } },
  { method: 'tools/call', params: { name: 'x' }, jsonrpc: '2.0', id: 401 },
];

const refused: unknown[] = [
  null,
  [],
  'text',
  { jsonrpc: '2.0', method: 'notifications/initialized' }, // a notification: no id
  { jsonrpc: '2.0', id: 1, result: {} }, // a response
  { jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } },
  { jsonrpc: '1.0', id: 1, method: 'ping' },
  { jsonrpc: '2.0', id: 1.5, method: 'ping' },
  { jsonrpc: '2.0', id: 2 ** 60, method: 'ping' },
  { jsonrpc: '2.0', id: null, method: 'ping' },
  { jsonrpc: '2.0', id: 1, method: 7 },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: null },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: [1] },
  { jsonrpc: '2.0', id: 1, method: 'ping', params: 'p' },
  { jsonrpc: '2.0', id: 1, method: 'ping', extra: true }, // the schema is strict
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 1 } } }, // _meta: zod checks it
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: {} } } },
];

describe('isPlainRequest', () => {
  it.each(accepted.map((m) => [JSON.stringify(m), m]))('accepts %s, which the SDK schemas accept as a request', (_, m) => {
    expect(isPlainRequest(m)).toBe(true);
    expect(JSONRPCMessageSchema.safeParse(m).success).toBe(true);
    expect(isJSONRPCRequest(m)).toBe(true);
  });

  it.each(refused.map((m) => [JSON.stringify(m), m]))('leaves %s to the schema', (_, m) => {
    expect(isPlainRequest(m)).toBe(false);
  });

  it("has the installed SDK server's request entry to hand plain requests to (else the door silently takes the slower schema path)", () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    expect(typeof (server as unknown as { _onrequest?: unknown })._onrequest).toBe('function');
  });
});

describe('withProtoDefaults', () => {
  it('fills every default and gives each message its own repeated fields', () => {
    const a = withProtoDefaults(SearchToolsRequest, { provider: 'mcp', limit: undefined });
    const b = withProtoDefaults(SearchToolsRequest, {});
    expect(a).toEqual({ ...SearchToolsRequest.decode(new Uint8Array(0)), provider: 'mcp' });
    a.queries.push('changed');
    expect(b.queries).toEqual([]);
    expect(withProtoDefaults(SearchToolsRequest, {}).queries).toEqual([]);
    const run = withProtoDefaults(RunToolRequest, { name: 'echo', arguments: { message: 'x' }, timeoutMs: 0 });
    expect(run).toEqual({ ...RunToolRequest.decode(new Uint8Array(0)), name: 'echo', arguments: { message: 'x' } });
  });
});
