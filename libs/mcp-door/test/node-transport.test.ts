/**
 * The door's Node-native Streamable HTTP transport in JSON-answer mode with sessions, through the
 * SDK client: list_changed reaches the client on the session's GET stream, a second GET stream is
 * refused 409, DELETE ends the session (its id is then unknown), and answers carry the session id.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '@toolhub/test-harness';

import { AGENT_KEY, type DoorStack, startDoorStack } from './support/door-stack';

const auth = { authorization: `Bearer ${AGENT_KEY}` };

describe('NodeStreamableHttpTransport (JSON answers, sessions)', () => {
  let stack: DoorStack;

  beforeAll(async () => {
    stack = await startDoorStack({ jsonResponse: true });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('answers JSON with the session id, sends list_changed on the GET stream, refuses a second GET stream, and ends the session on DELETE', async () => {
    const client = new Client({ name: 'transport-test', version: '1.0.0' });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const transport = new StreamableHTTPClientTransport(new URL(stack.door.address), { requestInit: { headers: auth } });
    await client.connect(transport);
    const sid = transport.sessionId!;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);

    // A plain JSON answer, with the session id header.
    const res = await fetch(stack.door.address, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('mcp-session-id')).toBe(sid);
    expect(((await res.json()) as { id: number; result: { tools: unknown[] } }).id).toBe(7);

    // The SDK client opened the session's GET stream after initialize: a second one is refused.
    await waitFor(async () => {
      const second = await fetch(stack.door.address, { headers: { ...auth, accept: 'text/event-stream', 'mcp-session-id': sid } });
      await second.body?.cancel();
      return second.status === 409;
    });

    await waitFor(async () => (await client.callTool({ name: 'tool_search', arguments: { queries: ['echo text'] } })).content !== undefined);
    await client.callTool({ name: 'tool_info', arguments: { name: 'local:echo_text' } });
    await waitFor(() => changes > 0);

    await transport.terminateSession();
    const after = await fetch(stack.door.address, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
    await client.close();
  });
});

describe('NodeStreamableHttpTransport (default: JSON unless a notification comes first)', () => {
  let stack: DoorStack;

  beforeAll(async () => {
    stack = await startDoorStack();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('answers a plain call as JSON and a call that sends list_changed first as an SSE stream, the notification before the result', async () => {
    const client = new Client({ name: 'transport-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(stack.door.address), { requestInit: { headers: auth } });
    await client.connect(transport);
    const post = (id: number, method: string, params?: object) =>
      fetch(stack.door.address, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      });
    await waitFor(async () => JSON.stringify(await (await post(1, 'tools/call', { name: 'tool_search', arguments: { queries: ['echo text'] } })).text()).includes('local:echo_text'));
    const plain = await post(2, 'tools/list');
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(((await plain.json()) as { id: number }).id).toBe(2);

    const loading = await post(3, 'tools/call', { name: 'tool_info', arguments: { name: 'local:echo_text' } });
    expect(loading.headers.get('content-type')).toBe('text/event-stream');
    const events = (await loading.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { method?: string; id?: number });
    expect(events.map((e) => e.method ?? `result ${e.id}`)).toEqual(['notifications/tools/list_changed', 'result 3']);
    await client.close();
  });
});
