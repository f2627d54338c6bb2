/**
 * What the door answers before any MCP message reaches the SDK, through raw HTTP: credentials
 * (401 + WWW-Authenticate, protected-resource metadata, JWT audience bound to this resource),
 * Origin, malformed input, batches, unknown sessions, missing Accept, a 10 MB body, a flood of
 * sessions, stateless mode, and the refusal to listen beyond loopback without auth.
 */
import { mcpAuthenticator, McpDoor } from '@toolhub/mcp-door';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { AGENT_B_KEY, AGENT_KEY, type DoorStack, OPERATOR_ONLY_KEY, startDoorStack } from './support/door-stack';

const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${AGENT_KEY}`, ...headers }, body });
  const text = await res.text();
  const data = text.startsWith('{') ? text : (text.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? '{}');
  return { status: res.status, headers: res.headers, json: JSON.parse(data) as { error?: { code: number; message: string }; result?: Record<string, unknown> } };
}

describe('the MCP door over raw HTTP', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    stack = await startDoorStack({ maxSessions: 200 });
  });
  afterAll(() => stack?.close());

  it('answers a call without credentials 401 with WWW-Authenticate pointing at its protected-resource metadata', async () => {
    const res = await post(stack.door.address, JSON.stringify(INIT), { authorization: '' });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    const meta = (await (await fetch(/"([^"]+)"/.exec(challenge)![1]!)).json()) as { resource: string; bearer_methods_supported: string[] };
    expect(meta.resource).toBe(stack.door.address);
    expect(meta.bearer_methods_supported).toEqual(['header']);
    const wrong = await post(stack.door.address, JSON.stringify(INIT), { authorization: 'Bearer not-a-key' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses a principal without the agent role (403) and a foreign browser Origin (403)', async () => {
    const op = await post(stack.door.address, JSON.stringify(INIT), { authorization: `Bearer ${OPERATOR_ONLY_KEY}` });
    expect(op.status).toBe(403);
    expect(op.json.error!.message).toContain('agent role');
    const evil = await post(stack.door.address, JSON.stringify(INIT), { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json.error!.message).toContain('TOOLHUB_MCP_ALLOWED_ORIGINS');
    expect((await post(stack.door.address, JSON.stringify(INIT), { origin: 'http://localhost:3000' })).status).toBe(200);
  });

  it('answers malformed JSON, a batch, a non-JSON-RPC body and an unknown session with clear JSON-RPC errors', async () => {
    const bad = await post(stack.door.address, '{"jsonrpc":"2.0",');
    expect([bad.status, bad.json.error!.code]).toEqual([400, -32700]);
    const batch = await post(stack.door.address, JSON.stringify([INIT, INIT]));
    expect([batch.status, batch.json.error!.code]).toEqual([400, -32600]);
    expect(batch.json.error!.message).toContain('one message per POST');
    const odd = await post(stack.door.address, '42');
    expect([odd.status, odd.json.error!.code]).toEqual([400, -32600]);
    const gone = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-06-18' });
    expect([gone.status, gone.json.error!.code]).toEqual([404, -32001]);
    expect(gone.json.error!.message).toContain('initialize');
    const none = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    expect(none.status).toBe(400);
    expect(none.json.error!.message).toContain('Mcp-Session-Id');
  });

  it('answers a request without the Accept it needs 406 with a JSON-RPC error', async () => {
    const res = await post(stack.door.address, JSON.stringify(INIT), { accept: 'application/json' });
    expect(res.status).toBe(406);
    expect(res.json.error!.message).toMatch(/Accept/i);
  });

  it('refuses a 10 MB body with 413 before reading it, and keeps serving', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tool_run', arguments: { blob: 'x'.repeat(10 * 1024 * 1024) } } });
    const res = await post(stack.door.address, huge);
    expect([res.status, res.json.error!.code]).toEqual([413, -32600]);
    expect(res.json.error!.message).toContain('bytes');
    expect((await post(stack.door.address, JSON.stringify(INIT))).status).toBe(200);
  });

  it('refuses a body of 180,000 properties (under the byte limit) before parsing it, naming the limit, and keeps serving', async () => {
    const args: Record<string, string> = {};
    for (let i = 0; i < 180_000; i++) args[`k${i}`] = 'x';
    const res = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'tool_run', arguments: args } }));
    expect([res.status, res.json.error!.code]).toEqual([413, -32600]);
    expect(res.json.error!.message).toMatch(/^The request body's values hold more than 10000 properties and array items in all .*TOOLHUB_MAX_ARGUMENT_NODES/);
    expect((await post(stack.door.address, JSON.stringify(INIT))).status).toBe(200);
  });

  it('keeps at most maxSessions after 10,000 sessions are opened and dropped, evicting the flooder\'s own, and still opens new ones', async () => {
    const other = await post(stack.door.address, JSON.stringify(INIT), { authorization: `Bearer ${AGENT_B_KEY}` });
    const otherSid = other.headers.get('mcp-session-id')!;
    let opened = 0;
    const worker = async () => {
      while (opened < 10_000) {
        opened++;
        const res = await post(stack.door.address, JSON.stringify(INIT));
        if (res.status !== 200) throw new Error(`initialize answered ${res.status}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(stack.door.sessionCount).toBeLessThanOrEqual(200);
    expect(stack.door.evicted).toBeGreaterThanOrEqual(10_000 - 200);
    // Another caller's session survived the flood.
    const survivor = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }), { authorization: `Bearer ${AGENT_B_KEY}`, 'mcp-session-id': otherSid, 'mcp-protocol-version': '2025-06-18' });
    expect(survivor.status).toBe(200);
    const fresh = await post(stack.door.address, JSON.stringify(INIT));
    const sid = fresh.headers.get('mcp-session-id')!;
    await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    const list = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }), { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    expect((list.json.result!.tools as unknown[]).length).toBeGreaterThanOrEqual(4);
  }, 180_000);

  it('closes sessions left idle past the limit; their id is then unknown', async () => {
    const fresh = await post(stack.door.address, JSON.stringify(INIT));
    const sid = fresh.headers.get('mcp-session-id')!;
    expect(stack.door.expireIdle(Date.now() + stack.door.options.sessionIdleMs + 1)).toBeGreaterThanOrEqual(1);
    const gone = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    expect(gone.status).toBe(404);
  });
});

describe('the MCP door in stateless mode', () => {
  let stack: DoorStack;
  beforeAll(async () => {
    stack = await startDoorStack({ stateless: true, jsonResponse: true }, false);
  });
  afterAll(() => stack?.close());

  it('answers tools/list and tool_run without any session id', async () => {
    const list = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { authorization: '' });
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect((list.json.result!.tools as Array<{ name: string }>).map((t) => t.name).slice(0, 4)).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search']);
    const run = await post(stack.door.address, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tool_run', arguments: { name: 'local:echo_text', arguments: { text: 'no session' } } } }));
    expect(run.json.result).toMatchObject({ content: [{ type: 'text', text: 'no session' }] });
  });
});

describe('MCP door start-up and JWT audience', () => {
  it('refuses to listen beyond loopback without authentication', async () => {
    const backend = {} as never;
    await expect(McpDoor.start(backend, { host: '0.0.0.0', port: 0 })).rejects.toThrow(/refuses to listen on 0\.0\.0\.0 without authentication/);
  });

  it('accepts a JWT whose audience is this resource and refuses one minted for another audience', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-jwt-'));
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwks = join(dir, 'jwks.json');
    writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256' }] }));
    const settings = { authJwtIssuer: 'https://issuer.example', authJwtJwks: jwks, authJwtAudience: 'toolhub-grpc', authJwtRolesClaim: 'roles', allowUnauthenticated: false, mcpHost: '127.0.0.1', mcpPort: 50055 };
    const auth = mcpAuthenticator(settings);
    const token = (aud: string) =>
      new SignJWT({ roles: ['agent'] }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer('https://issuer.example').setSubject('alice').setAudience(aud).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    await expect(Promise.resolve(auth.authenticate({ authorization: `Bearer ${await token('http://127.0.0.1:50055/mcp')}` }))).resolves.toMatchObject({ id: 'jwt:https://issuer.example#alice' });
    await expect(Promise.resolve(auth.authenticate({ authorization: `Bearer ${await token('toolhub-grpc')}` }))).rejects.toThrow();
  });
});
