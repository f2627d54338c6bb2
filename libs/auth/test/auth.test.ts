import { ToolHubError } from '@toolhub/contracts';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ApiKeyStore, Authenticator, edgeSecurityFrom, Grants, hashApiKey, JwtVerifier, LOCAL_PRINCIPAL, parseMaxAge, type Principal } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'toolhub-auth-'));

async function codeOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (err) {
    return err instanceof ToolHubError ? err.code : String(err);
  }
}

describe('API keys', () => {
  const file = join(dir, 'keys.json');
  const write = (keys: unknown[]) => writeFileSync(file, JSON.stringify({ keys }));

  it('accepts a listed key, refuses an unknown one, and a revoked key says it was revoked', () => {
    write([{ name: 'fleet-a', sha256: hashApiKey('secret-a'), roles: ['agent'] }, { name: 'old', sha256: hashApiKey('secret-old'), roles: ['agent'], revoked: true }]);
    const store = ApiKeyStore.load(file);
    expect(store.authenticate('secret-a')).toEqual({ id: 'key:fleet-a', roles: ['agent'], method: 'api_key' });
    expect(() => store.authenticate('nope')).toThrow(/not valid/);
    expect(() => store.authenticate('secret-old')).toThrow(/"old" was revoked/);
    store.close();
  });

  it('rotates without a restart: a reload drops removed keys and adds new ones; a broken file keeps the old keys', () => {
    write([{ name: 'a', sha256: hashApiKey('k1'), roles: ['agent'] }]);
    const errors: Error[] = [];
    const store = ApiKeyStore.load(file, { onReloadError: (e) => errors.push(e) });
    write([{ name: 'a', sha256: hashApiKey('k2'), roles: ['agent'] }]);
    expect(store.reload()).toBe(true);
    expect(() => store.authenticate('k1')).toThrow(ToolHubError);
    expect(store.authenticate('k2').id).toBe('key:a');
    writeFileSync(file, '{ half written');
    expect(store.reload()).toBe(false);
    expect(errors).toHaveLength(1);
    expect(store.authenticate('k2').id).toBe('key:a');
    store.close();
  });

  it('refuses a key file with a plain-text key instead of a hash, naming the field', () => {
    write([{ name: 'a', sha256: 'plaintext', roles: ['agent'] }]);
    expect(() => ApiKeyStore.load(file)).toThrow(/sha256 must be the 64-character/);
  });

  it('fails closed: an unknown field, a wrong type or a key hash listed twice refuses the whole file, naming the entry and field', () => {
    const ok = { name: 'a', sha256: hashApiKey('k1'), roles: ['agent'] };
    write([ok, { name: 'b', sha256: hashApiKey('k2'), roles: ['admin'], revoked: 'true' }]);
    expect(() => ApiKeyStore.load(file)).toThrow(/keys\[1\] \("b"\)\.revoked must be true or false/);
    write([ok, { name: 'b', sha256: hashApiKey('k2'), roles: ['agent'], revokd: true }]);
    expect(() => ApiKeyStore.load(file)).toThrow(/keys\[1\] \("b"\) has an unknown field "revokd"/);
    write([{ ...ok, name: 'first', revoked: true }, { ...ok, name: 'second' }]);
    expect(() => ApiKeyStore.load(file)).toThrow(/keys\[1\] \("second"\)\.sha256 is the same key as .*keys\[0\] \("first"\)/);
    write(['just-a-string']);
    expect(() => ApiKeyStore.load(file)).toThrow(/keys\[0\] must be an object/);
  });

  it('a key hash listed in two files of a Secret directory refuses the directory', () => {
    const secret = mkdtempSync(join(dir, 'secret-'));
    writeFileSync(join(secret, 'a.json'), JSON.stringify({ keys: [{ name: 'a', sha256: hashApiKey('dup'), roles: ['agent'], revoked: true }] }));
    writeFileSync(join(secret, 'b.json'), JSON.stringify({ keys: [{ name: 'b', sha256: hashApiKey('dup'), roles: ['admin'] }] }));
    expect(() => ApiKeyStore.load(secret)).toThrow(/b\.json keys\[0\] \("b"\)\.sha256 is the same key as .*a\.json keys\[0\] \("a"\)/);
  });

  it('on reload a bad file keeps the last good keys in force and the apps log it as an error', () => {
    write([{ name: 'a', sha256: hashApiKey('k1'), roles: ['agent'] }, { name: 'old', sha256: hashApiKey('k-old'), roles: ['admin'], revoked: true }]);
    const errors: string[] = [];
    const security = edgeSecurityFrom({ authApiKeys: file, allowUnauthenticated: false, authJwtRolesClaim: 'roles' }, { warn: () => undefined, info: () => undefined, error: (o, m) => errors.push(`${m}: ${(o as { err: string }).err}`) });
    const store = (security.authenticator as unknown as { keys: ApiKeyStore }).keys;
    write([{ name: 'a', sha256: hashApiKey('k1'), roles: ['agent'] }, { name: 'old', sha256: hashApiKey('k-old'), roles: ['admin'], revoked: 'false' }]);
    expect(store.reload()).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/API key file refused; keeping the previous keys: .*keys\[1\] \("old"\)\.revoked must be true or false/);
    expect(() => store.authenticate('k-old')).toThrow(/"old" was revoked/);
    expect(store.authenticate('k1').id).toBe('key:a');
    security.authenticator.close();
  });
});

describe('JWT', () => {
  let sign: (claims: Record<string, unknown>, opts?: { aud?: string; exp?: string | number }) => Promise<string>;
  let verifier: JwtVerifier;
  let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    const publicKey = pair.publicKey;
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const jwks = join(dir, 'jwks.json');
    writeFileSync(jwks, JSON.stringify({ keys: [jwk] }));
    verifier = JwtVerifier.create({ issuer: 'https://idp.test', audience: 'toolhub', jwks });
    sign = (claims, opts = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer('https://idp.test')
        .setSubject('agent-7')
        .setAudience(opts.aud ?? 'toolhub')
        .setIssuedAt()
        .setExpirationTime(opts.exp ?? '1h')
        .sign(privateKey);
  });
  afterAll(() => verifier.close());

  it('maps a valid token to jwt:<iss>#<sub> with the roles claim', async () => {
    await expect(verifier.verify(await sign({ roles: ['operator'] }))).resolves.toEqual({ id: 'jwt:https://idp.test#agent-7', roles: ['operator'], method: 'jwt' });
  });

  it('refuses a token for another audience and an expired token, saying which', async () => {
    await expect(verifier.verify(await sign({}, { aud: 'other' }))).rejects.toThrow(/another audience.*toolhub/);
    await expect(verifier.verify(await sign({}, { exp: Math.floor(Date.now() / 1000) - 3600 }))).rejects.toThrow(/expired/);
    expect(await codeOf(() => verifier.verify('a.b.c'))).toBe('unauthenticated');
  });

  it('refuses a token without exp, one issued longer ago than the maximum age, and one issued in the future, saying which', async () => {
    const now = Math.floor(Date.now() / 1000);
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test').setSubject('agent-7').setAudience('toolhub').setIssuedAt().sign(privateKey);
    await expect(verifier.verify(noExp)).rejects.toThrow(/no "exp" claim.*expiry/);
    // Default maximum age 24 h: a token issued 25 h ago is refused even though its exp is still ahead.
    const old = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test').setSubject('agent-7').setAudience('toolhub').setIssuedAt(now - 25 * 3600).setExpirationTime(now + 3600).sign(privateKey);
    await expect(verifier.verify(old)).rejects.toThrow(/issued more than 86400 s ago.*TOOLHUB_AUTH_JWT_MAX_AGE/);
    const future = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test').setSubject('agent-7').setAudience('toolhub').setIssuedAt(now + 10 * 365 * 86400).setExpirationTime(now + 11 * 365 * 86400).sign(privateKey);
    await expect(verifier.verify(future)).rejects.toThrow(/"iat" is in the future/);
    expect(await codeOf(() => verifier.verify(future))).toBe('unauthenticated');
  });

  it('takes a configured maximum age (seconds or 30m/12h/7d)', async () => {
    const short = JwtVerifier.create({ issuer: 'https://idp.test', audience: 'toolhub', jwks: join(dir, 'jwks.json'), maxAgeSec: 600 });
    const now = Math.floor(Date.now() / 1000);
    const sign2 = (iat: number) => new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test').setSubject('agent-7').setAudience('toolhub').setIssuedAt(iat).setExpirationTime(now + 3600).sign(privateKey);
    await expect(short.verify(await sign2(now - 60))).resolves.toMatchObject({ id: 'jwt:https://idp.test#agent-7' });
    await expect(short.verify(await sign2(now - 3600))).rejects.toThrow(/issued more than 600 s ago/);
    short.close();
    expect(parseMaxAge('90')).toBe(90);
    expect(parseMaxAge('30m')).toBe(1800);
    expect(parseMaxAge('24h')).toBe(86_400);
    expect(parseMaxAge('7d')).toBe(604_800);
    expect(() => parseMaxAge('forever')).toThrow(/TOOLHUB_AUTH_JWT_MAX_AGE/);
    expect(() => parseMaxAge('0')).toThrow(/TOOLHUB_AUTH_JWT_MAX_AGE/);
  });
});

describe('Authenticator', () => {
  it('is the local principal when nothing is configured, and demands credentials when something is', async () => {
    expect(Authenticator.disabled().authenticate({})).toBe(LOCAL_PRINCIPAL);
    const file = join(dir, 'keys2.json');
    writeFileSync(file, JSON.stringify({ keys: [{ name: 'ops', sha256: hashApiKey('op-key'), roles: ['operator'] }] }));
    const auth = Authenticator.create({ apiKeysPath: file });
    expect(await codeOf(() => auth.authenticate({}))).toBe('unauthenticated');
    expect(((await auth.authenticate({ authorization: 'Bearer op-key' })) as Principal).id).toBe('key:ops');
    expect(((await auth.authenticate({ apiKey: 'op-key' })) as Principal).roles).toEqual(['operator']);
    auth.close();
  });
});

describe('Grants', () => {
  const agent: Principal = { id: 'key:fleet', roles: ['agent'], method: 'api_key' };
  const grants = new Grants({
    roles: { agent: { allow: ['local:*', 'cloud:billing/**', 'mcp:*'], deny: ['local:file/file_write'] } },
    principals: { 'key:fleet': { deny: ['mcp:*'] } },
  });
  const view = grants.viewOf(agent);

  it('allows by provider, path glob and id; deny wins over allow, including a principal deny over a role allow', () => {
    expect(view.unrestricted).toBe(false);
    expect(view.permits({ provider: 'local', path: 'text', name: 'text_stats' })).toBe(true);
    expect(view.permits({ provider: 'cloud', path: 'billing/invoices', name: 'list_invoices' })).toBe(true);
    expect(view.permits({ provider: 'cloud', path: 'admin', name: 'drop_db' })).toBe(false);
    expect(view.permits({ provider: 'local', path: 'file', name: 'file_write' })).toBe(false);
    expect(view.permits({ provider: 'mcp', path: '', name: 'echo' })).toBe(false);
  });

  it('sees everything without a grants file', () => {
    expect(new Grants().viewOf(agent).unrestricted).toBe(true);
  });

  it('follow their file without a restart: a reload changes views, a broken or missing file keeps the grants in force', () => {
    const file = join(dir, 'grants.json');
    writeFileSync(file, JSON.stringify({ roles: { agent: { allow: ['local:*'] } } }));
    const errors: Error[] = [];
    const reloaded: number[] = [];
    const live = Grants.load(file, { onReloadError: (e) => errors.push(e), onReload: () => reloaded.push(1) });
    const echo = { provider: 'local', path: 'text', name: 'echo' };
    expect(live.viewOf(agent).permits(echo)).toBe(true);
    expect(live.reload()).toBe(false);
    writeFileSync(file, JSON.stringify({ roles: { agent: { allow: ['local:*'], deny: ['local:text/*'] } } }));
    expect(live.reload()).toBe(true);
    expect(live.viewOf(agent).permits(echo)).toBe(false);
    expect(reloaded).toHaveLength(1);
    writeFileSync(file, JSON.stringify({ roles: { agent: { allow: ['text/*'] } } }));
    expect(live.reload()).toBe(false);
    writeFileSync(file, '{ half written');
    expect(live.reload()).toBe(false);
    rmSync(file);
    expect(live.reload()).toBe(false);
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/provider:path\/tool/), expect.stringMatching(/cannot read grants/), expect.stringMatching(/cannot read grants/)]);
    expect(live.viewOf(agent).permits(echo)).toBe(false);
    live.close();
  });

  it('a grants file left broken is logged once per problem by the apps, not on every poll', () => {
    const file = join(dir, 'grants-logged.json');
    writeFileSync(file, JSON.stringify({ roles: { agent: { allow: ['local:*'] } } }));
    const warnings: string[] = [];
    const infos: string[] = [];
    const security = edgeSecurityFrom({ authApiKeys: undefined, authGrants: file, allowUnauthenticated: true } as never, { warn: (_o, m) => warnings.push(m), info: (_o, m) => infos.push(m) });
    const live = security.grants!;
    writeFileSync(file, '{ half written');
    for (let i = 0; i < 5; i++) live.reload();
    expect(warnings).toEqual(['grants file unreadable; keeping the previous grants']);
    writeFileSync(file, JSON.stringify({ roles: { agent: { allow: ['mcp:*'] } } }));
    expect(live.reload()).toBe(true);
    writeFileSync(file, '{ broken again');
    live.reload();
    live.reload();
    expect(warnings).toHaveLength(2);
    expect(infos).toContain('grants reloaded');
    live.close();
  });

  it('refuses a pattern without a provider', () => {
    expect(() => new Grants({ roles: { agent: { allow: ['billing/**'] } } })).toThrow(/provider:path\/tool/);
  });
});
