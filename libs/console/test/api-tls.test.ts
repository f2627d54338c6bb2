/**
 * The console in front of APIs that serve TLS and require client certificates (mTLS): it checks
 * their certificate with the configured CA, presents its own, and signs an operator in; without
 * TLS settings its calls fail with the gRPC error, not silently.
 */
import { Authenticator, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { apiChannel, type RunningConsole, startConsoleServer } from '@toolhub/console';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { Registry, type RunningAdminServer, startAdminServer } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const OPERATOR_KEY = 'ops-key-0123456789abcdef';

describe('the console towards APIs with TLS and mTLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'console-tls-'));
  const f = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  let bus: InProcessBus;
  let store: EmbeddedRegistryStore;
  let registry: Registry;
  let admin: RunningAdminServer;
  let dispatcher: RunningDispatcher;
  let authenticator: Authenticator;
  const consoles: RunningConsole[] = [];

  beforeAll(async () => {
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=console-test-ca');
    // The APIs' certificate names the Service, not the loopback address the console dials.
    writeFileSync(f('san.ext'), 'subjectAltName=DNS:toolhub-apis.internal\n');
    for (const [name, cn, ext] of [['server', 'toolhub-apis.internal', 'san.ext'], ['console', 'toolhub-console', undefined]] as const) {
      openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
      openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', ...(ext ? ['-extfile', ext] : []));
    }
    writeFileSync(f('keys.json'), JSON.stringify({ keys: [{ name: 'ops-alice', sha256: hashApiKey(OPERATOR_KEY), roles: ['operator'] }] }));
    authenticator = Authenticator.create({ apiKeysPath: f('keys.json') });
    const tls = { certFile: f('server.pem'), keyFile: f('server.key'), clientCaFile: f('ca.pem') };
    bus = new InProcessBus();
    store = await EmbeddedRegistryStore.open({ dir: f('registry') });
    registry = await Registry.start(bus, store);
    admin = await startAdminServer(registry, { port: 0, authenticator, tls });
    dispatcher = await startDispatcher(bus, { grpc: { port: 0, authenticator, tls }, dispatcher: { warmCoreTools: false } });
  });

  afterAll(async () => {
    for (const c of consoles) await c.close();
    await dispatcher.close(100);
    await admin.close(100);
    await registry.close();
    await store.close();
    await bus.close();
    authenticator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function consoleWith(channel: ReturnType<typeof apiChannel>): Promise<RunningConsole> {
    const web = await startConsoleServer({ port: 0, adminAddress: `127.0.0.1:${admin.port}`, agentAddress: dispatcher.grpc.address, authenticator, uiDir: dir, ...channel });
    consoles.push(web);
    return web;
  }

  async function signIn(web: RunningConsole): Promise<{ status: number; body: Record<string, unknown>; cookie: string }> {
    const res = await fetch(new URL('/api/session', web.url), { method: 'POST', headers: { origin: web.url.replace(/\/$/, ''), 'content-type': 'application/json' }, body: JSON.stringify({ credential: OPERATOR_KEY }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]! };
  }

  it('checks the APIs’ certificate with the CA, presents its own, and reaches both APIs', async () => {
    const web = await consoleWith(apiChannel({ enabled: true, caFile: f('ca.pem'), serverName: 'toolhub-apis.internal', certFile: f('console.pem'), keyFile: f('console.key') }));
    const session = await signIn(web);
    expect(session.status).toBe(200);
    const csrf = String(session.body['csrfToken']);
    const call = (path: string) =>
      fetch(new URL(path, web.url), { method: 'POST', headers: { cookie: session.cookie, origin: web.url.replace(/\/$/, ''), 'content-type': 'application/json', 'x-csrf-token': csrf }, body: '{}' });
    expect((await call('/api/toolhub.v1.RegistryAdmin/GetPreloadList')).status).toBe(200);
    const access = await call('/api/toolhub.v1.ToolHub/GetAccess');
    expect(access.status).toBe(200);
    expect(((await access.json()) as { principals: Array<{ id: string }> }).principals.map((p) => p.id)).toEqual(['key:ops-alice']);
  });

  it('fails visibly without TLS settings, or without the client certificate the APIs require', async () => {
    for (const channel of [undefined, apiChannel({ enabled: true, caFile: f('ca.pem'), serverName: 'toolhub-apis.internal' })]) {
      const session = await signIn(await consoleWith(channel));
      expect(session.status).toBeGreaterThanOrEqual(500);
      expect((session.body['error'] as { grpcStatus?: string } | undefined)?.grpcStatus).toBe('UNAVAILABLE');
    }
  });

  it('refuses half a client certificate, naming both settings', () => {
    expect(() => apiChannel({ enabled: true, certFile: f('console.pem') })).toThrow(/TOOLHUB_CONSOLE_API_CERT and TOOLHUB_CONSOLE_API_KEY/);
    expect(() => apiChannel({ enabled: true, caFile: f('missing.pem') })).toThrow(/cannot read the APIs’ CA \(TOOLHUB_CONSOLE_API_CA\)/);
    expect(apiChannel({ enabled: false })).toBeUndefined();
  });
});
