/**
 * The console's JSON layer against real gRPC servers: sign-in decided by the registry's own role
 * check, the credential never sent back, CSRF and origin checks, the CSP header, proto JSON in and
 * out, and errors with the gRPC code and the services' message and field violations.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { consoleClient as client, errorOf } from './support/console-client';
import { AGENT_KEY, OPERATOR_KEY, type Stack, startStack } from './support/stack';

describe('console JSON layer with API keys', () => {
  let stack: Stack;
  const ui = mkdtempSync(join(tmpdir(), 'console-ui-'));

  beforeAll(async () => {
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>console</title>');
    stack = await startStack({ auth: true, uiDir: ui });
  });
  afterAll(async () => {
    await stack.close();
    rmSync(ui, { recursive: true, force: true });
  });

  it('serves the page with a strict Content-Security-Policy and no framing', async () => {
    const r = await client(stack.console.url).request('GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
    expect(r.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(r.headers.get('x-frame-options')).toBe('DENY');
  });

  it('is not signed in until a credential is given, and answers API calls UNAUTHENTICATED', async () => {
    const c = client(stack.console.url);
    expect((await c.request('GET', '/api/session')).body).toEqual({ signedIn: false, localMode: false });
    const r = await c.request('POST', '/api/toolhub.v1.RegistryAdmin/GetPreloadList', {});
    expect(r.status).toBe(401);
    expect(errorOf(r).grpcStatus).toBe('UNAUTHENTICATED');
  });

  it("refuses an agent's key at sign-in with the registry's own PERMISSION_DENIED message", async () => {
    const r = await client(stack.console.url).request('POST', '/api/session', { credential: AGENT_KEY });
    expect(r.status).toBe(403);
    expect(errorOf(r).grpcStatus).toBe('PERMISSION_DENIED');
    expect(errorOf(r).message).toMatch(/needs the operator or admin role/);
    expect(r.headers.get('set-cookie')).toBeNull();
  });

  it('signs an operator in with an HttpOnly SameSite=Strict cookie and never sends the key back', async () => {
    const c = client(stack.console.url);
    const r = await c.request('POST', '/api/session', { credential: OPERATOR_KEY });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ signedIn: true, principal: 'key:ops-alice', roles: ['operator'] });
    expect(r.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/);
    expect(r.text).not.toContain(OPERATOR_KEY);
    expect((await c.request('GET', '/api/session')).text).not.toContain(OPERATOR_KEY);
  });

  describe('signed in', () => {
    const c = () => signedIn;
    let signedIn: ReturnType<typeof client>;
    beforeAll(async () => {
      signedIn = client(stack.console.url);
      await signedIn.request('POST', '/api/session', { credential: OPERATOR_KEY });
    });

    it('decodes proto JSON, calls the admin API and answers its toJSON form', async () => {
      const set = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/SetPreloadList', { toolIds: ['local:echo_text'], changedBy: 'ignored', comment: 'from the test' });
      expect(set.status).toBe(200);
      // The registry records the authenticated principal, not what the body claims.
      expect(set.body).toMatchObject({ list: { toolIds: ['local:echo_text'], changedBy: 'key:ops-alice', comment: 'from the test' } });
      const audit = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/ListAuditLog', { target: 'preload', limit: 5 });
      expect((audit.body['entries'] as Array<{ action: string; principal: string }>)[0]).toMatchObject({ action: 'SetPreloadList', principal: 'key:ops-alice' });
    });

    it("answers a bad RegisterTool with INVALID_ARGUMENT and the registry's field violations", async () => {
      const r = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/RegisterTool', { tool: { provider: 'local', name: 'Bad Name!', path: 'x', description: '' } });
      expect(r.status).toBe(400);
      expect(errorOf(r).grpcStatus).toBe('INVALID_ARGUMENT');
      expect(errorOf(r).violations?.map((v) => v.field)).toEqual(expect.arrayContaining(['tool.name']));
    });

    it('previews a preload change: the proposed fingerprint differs and its token cost is larger', async () => {
      const r = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/PreviewPreloadSet', { toolIds: ['local:echo_text', 'local:reverse_text', 'local:nope'] });
      expect(r.status).toBe(200);
      const b = r.body as { current: { fingerprint: string }; proposed: { fingerprint: string; tools: unknown[] }; currentTokens: number; proposedTokens: number; leftOut: string[] };
      expect(b.proposed.fingerprint).not.toBe(b.current.fingerprint);
      expect(b.proposedTokens).toBeGreaterThan(b.currentTokens);
      expect(b.leftOut).toEqual(['local:nope']);
    });

    it("calls the agent API with the operator's key (any authenticated principal may; grants filter what it sees)", async () => {
      const r = await c().request('POST', '/api/toolhub.v1.ToolHub/SearchTools', { queries: ['reverse a text'] });
      expect(r.status).toBe(200);
      expect((r.body['hits'] as Array<{ id: string }>).map((h) => h.id)).toContain('local:reverse_text');
    });

    it('lists the principals, roles and grants to an operator (GetAccess), never a key or its hash', async () => {
      const r = await c().request('POST', '/api/toolhub.v1.ToolHub/GetAccess', {});
      expect(r.status).toBe(200);
      const b = r.body as { localMode?: boolean; principals: Array<{ id: string; roles: string[] }>; grants: Array<{ subject: string; allow?: string[]; deny?: string[] }> };
      expect(b.localMode ?? false).toBe(false);
      expect(b.principals).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'key:fleet', roles: ['agent'] }), expect.objectContaining({ id: 'key:ops-alice', roles: ['operator'] })]));
      expect(b.grants).toContainEqual({ subject: 'role:agent', allow: ['*'], deny: ['local:text/transform/**'] });
      expect(r.text).not.toMatch(/sha256|[0-9a-f]{64}|key-0123456789/);
    });

    it("searches as another principal (view_as): the agent's grants hide what the operator sees", async () => {
      const query = { queries: ['reverse the characters of a text'], limit: 20 };
      const own = await c().request('POST', '/api/toolhub.v1.ToolHub/SearchTools', query);
      expect((own.body['hits'] as Array<{ id: string }>).map((h) => h.id)).toContain('local:reverse_text');
      for (const viewAs of ['key:fleet', 'role:agent']) {
        const as = await c().request('POST', '/api/toolhub.v1.ToolHub/SearchTools', { ...query, viewAs });
        expect(as.status).toBe(200);
        const ids = (as.body['hits'] as Array<{ id: string }> | undefined)?.map((h) => h.id) ?? [];
        expect({ viewAs, ids }).toEqual({ viewAs, ids: expect.not.arrayContaining(['local:reverse_text']) });
        expect(ids).toContain('local:echo_text');
      }
      const unknown = await c().request('POST', '/api/toolhub.v1.ToolHub/SearchTools', { ...query, viewAs: 'key:flet' });
      expect(errorOf(unknown)).toMatchObject({ code: 'not_found', message: expect.stringMatching(/key:fleet/) });
    });

    it('refuses a POST without the CSRF token, and one from another origin', async () => {
      const noToken = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/GetPreloadList', {}, { 'x-csrf-token': 'wrong' });
      expect(noToken.status).toBe(403);
      expect(errorOf(noToken).message).toMatch(/x-csrf-token/);
      const foreign = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/GetPreloadList', {}, { origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      expect(errorOf(foreign).message).toMatch(/Cross-origin/);
    });

    it('names the methods of a service when asked for one it does not have', async () => {
      const r = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/DropDatabase', {});
      expect(r.status).toBe(404);
      expect(errorOf(r).message).toMatch(/RegisterTool/);
    });

    it('answers malformed proto JSON as INVALID_ARGUMENT', async () => {
      const r = await c().request('POST', '/api/toolhub.v1.RegistryAdmin/ListAuditLog', [1, 2]);
      expect(r.status).toBe(400);
      expect(errorOf(r).message).toMatch(/JSON object/);
    });

    it('ends the session on sign-out', async () => {
      const other = client(stack.console.url);
      await other.request('POST', '/api/session', { credential: OPERATOR_KEY });
      expect((await other.request('POST', '/api/session/end', {})).status).toBe(200);
      other.forgetCsrf();
      expect((await other.request('GET', '/api/session')).body).toEqual({ signedIn: false, localMode: false });
    });
  });

  it('refuses a Host header that is not a loopback name (DNS rebinding)', async () => {
    // fetch sets Host itself; node:http sends the one given.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: stack.console.port, path: '/api/session', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe('console JSON layer in local mode', () => {
  let stack: Stack;
  const ui = mkdtempSync(join(tmpdir(), 'console-ui-'));
  beforeAll(async () => {
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>console</title>');
    stack = await startStack({ uiDir: ui });
  });
  afterAll(async () => {
    await stack.close();
    rmSync(ui, { recursive: true, force: true });
  });

  it('opens without sign-in but still needs the CSRF token for calls', async () => {
    const c = client(stack.console.url);
    const s = await c.request('GET', '/api/session');
    expect(s.body).toMatchObject({ signedIn: true, localMode: true, principal: 'local' });
    const ok = await c.request('POST', '/api/toolhub.v1.ToolHub/ListProviders', {});
    expect(ok.status).toBe(200);
    expect((ok.body['providers'] as Array<{ provider: string }>).map((p) => p.provider)).toContain('local');
    c.forgetCsrf();
    expect((await c.request('POST', '/api/toolhub.v1.ToolHub/ListProviders', {})).status).toBe(403);
  });
});
