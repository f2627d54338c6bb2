/**
 * The door's HTTP+SSE transport (2024-11-05, for older hosts) over raw HTTP: the same checks as
 * Streamable HTTP — credentials, Origin, body size, malformed input, unknown and foreign sessions,
 * content type — each a clear JSON-RPC error; sessions capped, expired, and gone with their stream.
 */
import { waitFor } from '@toolhub/test-harness';

import { AGENT_B_KEY, AGENT_KEY, type DoorStack, OPERATOR_ONLY_KEY, startDoorStack } from './support/door-stack';
import { openSse, postMessage, type RawSse } from './support/raw-sse';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'raw-sse', version: '1' } } };

describe('the MCP door over HTTP+SSE, raw', () => {
  let stack: DoorStack;
  const open: RawSse[] = [];
  const sse = async (headers: Record<string, string> = {}, path?: string, method?: string) => {
    const s = await openSse(stack.door.address, headers, path, method);
    open.push(s);
    return s;
  };
  const sseSessions = () => stack.door.sessionsByTransport().sse;

  beforeAll(async () => {
    stack = await startDoorStack({ maxSessions: 20 });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await stack?.close();
  });

  it('opens a session with GET /sse: an endpoint event naming /messages?sessionId=…, then answers POSTs 202 with the result on the stream', async () => {
    const s = await sse();
    expect(s.status).toBe(200);
    expect(s.endpoint!.pathname).toBe('/messages');
    expect(s.endpoint!.searchParams.get('sessionId')).toMatch(/^[0-9a-f-]{36}$/);
    const init = await postMessage(s.endpoint!, INIT);
    expect([init.status, init.text]).toEqual([202, '']);
    expect((await s.answer(1)).result).toMatchObject({ protocolVersion: '2024-11-05', serverInfo: { name: 'toolhub' } });
    expect((await postMessage(s.endpoint!, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await postMessage(s.endpoint!, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(202);
    expect(((await s.answer(2)).result!.tools as Array<{ name: string }>).map((t) => t.name).slice(0, 4)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search']);
  });

  it('answers a GET without credentials 401 with WWW-Authenticate, refuses the operator-only key and a foreign Origin 403', async () => {
    const anon = await sse({ authorization: '' });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    const op = await sse({ authorization: `Bearer ${OPERATOR_ONLY_KEY}` });
    expect([op.status, op.json!.error!.message]).toEqual([403, expect.stringContaining('agent role')]);
    const evil = await sse({ origin: 'http://evil.example' });
    expect([evil.status, evil.json!.error!.message]).toEqual([403, expect.stringContaining('TOOLHUB_MCP_ALLOWED_ORIGINS')]);
    expect((await sse({ origin: 'http://localhost:3000' })).status).toBe(200);
    const s = await sse();
    const evilPost = await postMessage(s.endpoint!, INIT, { origin: 'http://evil.example' });
    expect(evilPost.status).toBe(403);
    const anonPost = await postMessage(s.endpoint!, INIT, { authorization: '' });
    expect(anonPost.status).toBe(401);
  });

  it('answers bad POSTs with clear JSON-RPC errors and keeps the session working', async () => {
    const s = await sse();
    const url = s.endpoint!;
    const bad = await postMessage(url, '{"jsonrpc":"2.0",');
    expect([bad.status, bad.json.error!.code]).toEqual([400, -32700]);
    const batch = await postMessage(url, [INIT, INIT]);
    expect([batch.status, batch.json.error!.code]).toEqual([400, -32600]);
    const odd = await postMessage(url, { jsonrpc: '2.0', id: 5 });
    expect([odd.status, odd.json.error!.code]).toEqual([400, -32600]);
    expect(odd.json.error!.message).toContain('"method"');
    const text = await postMessage(url, JSON.stringify(INIT), { 'content-type': 'text/plain' });
    expect([text.status, text.json.error!.message]).toEqual([415, expect.stringContaining('Content-Type: application/json')]);
    const huge = await postMessage(url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'tool_run', arguments: { blob: 'x'.repeat(10 * 1024 * 1024) } } });
    expect([huge.status, huge.json.error!.code]).toEqual([413, -32600]);
    expect(huge.json.error!.message).toContain('bytes');
    expect((await postMessage(url, INIT)).status).toBe(202);
    expect((await s.answer(1)).result).toMatchObject({ serverInfo: { name: 'toolhub' } });
  });

  it('refuses a 5 MB body sent without Content-Length (chunked) with 413 once it passes the limit, and keeps serving', async () => {
    const s = await sse();
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tool_run","arguments":{"blob":"'));
        if (sent >= 5 * 1024 * 1024) return controller.close();
        sent += piece.length;
        controller.enqueue(piece);
      },
    });
    const res = await fetch(s.endpoint!, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` }, body, duplex: 'half' } as RequestInit);
    const json = (await res.json()) as { error: { code: number; message: string } };
    expect([res.status, json.error.code]).toEqual([413, -32600]);
    expect((await postMessage(s.endpoint!, INIT)).status).toBe(202);
    expect((await s.answer(1)).result).toMatchObject({ serverInfo: { name: 'toolhub' } });
  });

  it('answers a POST without a session id 400, an unknown, foreign or Streamable HTTP session id 404 -32001', async () => {
    const messages = new URL('/messages', stack.door.address);
    const none = await postMessage(messages, INIT);
    expect([none.status, none.json.error!.message]).toEqual([400, expect.stringContaining('?sessionId=')]);
    const unknown = await postMessage(`${messages.href}?sessionId=no-such-session`, INIT);
    expect([unknown.status, unknown.json.error!.code]).toEqual([404, -32001]);
    expect(unknown.json.error!.message).toContain('GET /sse');
    const theirs = await sse({ authorization: `Bearer ${AGENT_B_KEY}` });
    const foreign = await postMessage(theirs.endpoint!, INIT);
    expect([foreign.status, foreign.json.error!.code]).toEqual([404, -32001]);
    const streamable = await fetch(stack.door.address, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${AGENT_B_KEY}` }, body: JSON.stringify(INIT) });
    const sid = streamable.headers.get('mcp-session-id')!;
    await streamable.text();
    const crossed = await postMessage(`${messages.href}?sessionId=${sid}`, INIT, { authorization: `Bearer ${AGENT_B_KEY}` });
    expect([crossed.status, crossed.json.error!.code]).toEqual([404, -32001]);
  });

  it('answers wrong methods 405 and a GET that does not accept an event stream 406', async () => {
    const put = await sse({}, '/sse', 'PUT');
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET']);
    const get = await sse({}, '/messages');
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const json = await sse({ accept: 'application/json' });
    expect([json.status, json.json!.error!.message]).toEqual([406, expect.stringContaining('text/event-stream')]);
  });

  it('ends the session when the client closes its stream, and its id is then unknown', async () => {
    const before = sseSessions();
    const s = await sse();
    expect(sseSessions()).toBe(before + 1);
    s.close();
    await waitFor(() => sseSessions() === before);
    expect((await postMessage(s.endpoint!, INIT)).status).toBe(404);
  });

  it('closes a session left idle past the limit: its stream ends and its id is unknown', async () => {
    const s = await sse();
    expect(stack.door.expireIdle(Date.now() + stack.door.options.sessionIdleMs + 1)).toBeGreaterThanOrEqual(1);
    while ((await s.next()) !== undefined);
    expect((await postMessage(s.endpoint!, INIT)).status).toBe(404);
  });

  it("keeps at most maxSessions while one caller opens streams in a loop, ending the flooder's own oldest, not another caller's", async () => {
    const other = await sse({ authorization: `Bearer ${AGENT_B_KEY}` });
    const flood: RawSse[] = [];
    for (let i = 0; i < 30; i++) flood.push(await sse());
    expect(stack.door.sessionCount).toBeLessThanOrEqual(20);
    // The first ones were closed to make room: their streams ended.
    expect(await flood[0]!.next()).toBeUndefined();
    expect((await postMessage(flood[0]!.endpoint!, INIT)).status).toBe(404);
    expect((await postMessage(flood[29]!.endpoint!, INIT)).status).toBe(202);
    expect((await postMessage(other.endpoint!, INIT, { authorization: `Bearer ${AGENT_B_KEY}` })).status).toBe(202);
    expect((await other.answer(1)).result).toMatchObject({ serverInfo: { name: 'toolhub' } });
  });

  it('holds no session after 10,000 streams are opened and dropped', async () => {
    for (const s of open.splice(0)) s.close();
    await waitFor(() => stack.door.sessionCount === 0);
    let opened = 0;
    const worker = async () => {
      while (opened < 10_000) {
        opened++;
        const s = await openSse(stack.door.address);
        if (s.status !== 200) throw new Error(`GET /sse answered ${s.status}`);
        s.close();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await waitFor(() => stack.door.sessionCount === 0);
  }, 180_000);
});

describe('HTTP+SSE on a stateless door', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    stack = await startDoorStack({ stateless: true }, false);
  });
  afterAll(() => stack?.close());

  it('is refused with a pointer to Streamable HTTP (an SSE session cannot span replicas)', async () => {
    const s = await openSse(stack.door.address, { authorization: '' });
    expect([s.status, s.json!.error!.message]).toEqual([400, expect.stringContaining('use Streamable HTTP at /mcp')]);
  });
});
