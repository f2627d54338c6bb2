/**
 * Transport security of the agent API: TLS from certificate files, mTLS client certificates as a
 * credential, and fail-closed binding (a non-loopback address without auth is refused).
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { Authenticator } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { ToolHubClient } from '@toolhub/contracts';
import { assertSafeBind, isLoopbackHost } from '@toolhub/grpc-edge';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type RunningDispatcher, startDispatcher } from '../src';
import { waitFor } from '@toolhub/test-harness';

const dir = mkdtempSync(join(tmpdir(), 'toolhub-tls-'));
const f = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/** A CA, a server certificate for localhost/127.0.0.1 and client certificates signed by the CA (and by a stranger). */
function makeCertificates(): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=toolhub-test-ca');
  writeFileSync(f('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  const issue = (name: string, cn: string, ca = 'ca', ext?: string) => {
    openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', ...(ext ? ['-extfile', ext] : []));
  };
  issue('server', 'localhost', 'ca', 'san.ext');
  issue('bot', 'bot-7');
  issue('unmapped', 'nobody');
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'rogue-ca.key', '-out', 'rogue-ca.pem', '-days', '2', '-subj', '/CN=rogue');
  issue('rogue', 'bot-7', 'rogue-ca');
  // For rotation: the next server certificate, from another CA so a client can tell which one it got.
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca2.key', '-out', 'ca2.pem', '-days', '2', '-subj', '/CN=toolhub-test-ca-2');
  issue('server2', 'localhost', 'ca2', 'san.ext');
}

/** A channel of its own (no subchannel shared with earlier clients), so each call makes a fresh TLS handshake. */
function freshClient(port: number, caFile: string): ToolHubClient {
  return new ToolHubClient(`localhost:${port}`, credentials.createSsl(readFileSync(caFile)), { 'grpc.use_local_subchannel_pool': 1 });
}

beforeAll(makeCertificates);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function call(client: ToolHubClient): Promise<unknown> {
  return new Promise((resolve, reject) =>
    client.listProviders({}, new Metadata(), { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

describe('TLS and mTLS on the agent API', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;
  let authenticator: Authenticator;
  const clients: ToolHubClient[] = [];
  const connect = (creds: ReturnType<typeof credentials.createSsl>) => {
    const c = new ToolHubClient(`localhost:${running.grpc.port}`, creds);
    clients.push(c);
    return c;
  };
  const tlsWith = (name?: string) =>
    credentials.createSsl(readFileSync(f('ca.pem')), name ? readFileSync(f(`${name}.key`)) : null, name ? readFileSync(f(`${name}.pem`)) : null);

  beforeAll(async () => {
    writeFileSync(f('subjects.json'), JSON.stringify({ 'bot-7': ['agent'] }));
    authenticator = Authenticator.create({ mtlsSubjectsPath: f('subjects.json') });
    bus = new InProcessBus();
    running = await startDispatcher(bus, {
      grpc: { port: 0, authenticator, tls: { certFile: f('server.pem'), keyFile: f('server.key'), clientCaFile: f('ca.pem') } },
      dispatcher: { warmCoreTools: false },
    });
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await running.close(100);
    await bus.close();
    authenticator.close();
  });

  it('serves a client whose certificate the client CA signed, as the principal mapped to its CN', async () => {
    await expect(call(connect(tlsWith('bot')))).resolves.toEqual({ providers: [] });
  });

  it('refuses a verified certificate whose CN is not mapped, as UNAUTHENTICATED', async () => {
    await expect(call(connect(tlsWith('unmapped')))).rejects.toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/"nobody" is not mapped/) });
  });

  it('refuses a handshake without a client certificate, with one of another CA, and a plaintext client', async () => {
    await expect(call(connect(tlsWith()))).rejects.toMatchObject({ code: status.UNAVAILABLE });
    await expect(call(connect(tlsWith('rogue')))).rejects.toMatchObject({ code: status.UNAVAILABLE });
    await expect(call(connect(credentials.createInsecure() as never))).rejects.toMatchObject({ code: status.UNAVAILABLE });
  });
});

describe('TLS certificate rotation', () => {
  let bus: InProcessBus;
  let running: RunningDispatcher;
  const live = join(dir, 'live');
  const reloadErrors: Error[] = [];

  beforeAll(async () => {
    // Copies this suite can overwrite.
    copyFileSync(f('server.pem'), `${live}.pem`);
    copyFileSync(f('server.key'), `${live}.key`);
    bus = new InProcessBus();
    running = await startDispatcher(bus, {
      grpc: { port: 0, tls: { certFile: `${live}.pem`, keyFile: `${live}.key`, refreshIntervalMs: 100, onReloadError: (e) => reloadErrors.push(e) } },
      dispatcher: { warmCoreTools: false },
    });
  });

  afterAll(async () => {
    await running.close(100);
    await bus.close();
  });

  async function attempt(caFile: string): Promise<'ok' | number> {
    const c = freshClient(running.grpc.port, caFile);
    try {
      await call(c);
      return 'ok';
    } catch (err) {
      return (err as { code: number }).code;
    } finally {
      c.close();
    }
  }

  it('serves a new certificate written over the files, without a restart', async () => {
    expect(await attempt(f('ca.pem'))).toBe('ok');
    expect(await attempt(f('ca2.pem'))).toBe(status.UNAVAILABLE);
    // Rotate the way tools do (write aside, rename into place), key first so cert and key never mismatch for long.
    copyFileSync(f('server2.key'), `${live}.key.tmp`);
    copyFileSync(f('server2.pem'), `${live}.pem.tmp`);
    renameSync(`${live}.key.tmp`, `${live}.key`);
    renameSync(`${live}.pem.tmp`, `${live}.pem`);
    // Wait for the reload by outcome, not by a sleep: the new CA's clients get through once it happened.
    await waitFor(async () => (await attempt(f('ca2.pem'))) === 'ok', { timeoutMs: 30_000, intervalMs: 100, message: 'a client of the new CA to get through' });
    expect(await attempt(f('ca.pem'))).toBe(status.UNAVAILABLE);
  });

  /** Waits (by outcome, up to 30 s) until `check` holds. */
  async function until(check: () => boolean | Promise<boolean>): Promise<boolean> {
    await waitFor(check, { timeoutMs: 30_000, intervalMs: 50 });
    return true;
  }

  it('keeps serving the certificate in force while a rotation is half done or a file is missing, and takes the set once it fits', async () => {
    // After the test above the server holds server2 (CA 2). Overwrite only the certificate: it no longer matches the key.
    const before = reloadErrors.length;
    copyFileSync(f('server.pem'), `${live}.pem`);
    expect(await until(() => reloadErrors.length > before)).toBe(true);
    expect(reloadErrors.at(-1)?.message).toMatch(/do not fit together/);
    expect(await attempt(f('ca2.pem'))).toBe('ok');
    // The key arrives: the rotation completes.
    copyFileSync(f('server.key'), `${live}.key.tmp`);
    renameSync(`${live}.key.tmp`, `${live}.key`);
    expect(await until(async () => (await attempt(f('ca.pem'))) === 'ok')).toBe(true);
    // A file gone for a moment (a botched deploy) changes nothing for callers either.
    const missing = reloadErrors.length;
    rmSync(`${live}.key`);
    expect(await until(() => reloadErrors.length > missing)).toBe(true);
    expect(reloadErrors.at(-1)?.message).toMatch(/cannot read TLS file/);
    expect(await attempt(f('ca.pem'))).toBe('ok');
  });
});

describe('fail-closed binding', () => {
  it('refuses a non-loopback address without auth, naming what to set', () => {
    expect(() => assertSafeBind('The dispatcher', '0.0.0.0', false)).toThrow(/refuses to listen on 0\.0\.0\.0 without authentication.*TOOLHUB_AUTH_API_KEYS.*TOOLHUB_AUTH_JWT_ISSUER/);
    expect(() => assertSafeBind('The dispatcher', '10.1.2.3', false)).toThrow(/TOOLHUB_ALLOW_UNAUTHENTICATED/);
    expect(() => assertSafeBind('The dispatcher', '0.0.0.0', true)).not.toThrow();
    expect(() => assertSafeBind('The dispatcher', '0.0.0.0', false, true)).not.toThrow();
  });

  it('treats only this machine’s addresses as loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['0.0.0.0', '::', '192.168.1.4', 'toolhub.example'].map(isLoopbackHost)).toEqual([false, false, false, false]);
  });

  it('refuses to start with a key that does not belong to its certificate, naming the files', async () => {
    const bus = new InProcessBus();
    await expect(startDispatcher(bus, { grpc: { port: 0, tls: { certFile: f('server.pem'), keyFile: f('server2.key') } }, dispatcher: { warmCoreTools: false } })).rejects.toThrow(/server\.pem, .*server2\.key do not fit together/);
    await bus.close();
  });

  it('refuses to start with a missing key file, naming that file as the field to fix', async () => {
    const bus = new InProcessBus();
    const missing = f('no-such.key');
    await expect(startDispatcher(bus, { grpc: { port: 0, tls: { certFile: f('server.pem'), keyFile: missing } }, dispatcher: { warmCoreTools: false } })).rejects.toMatchObject({
      code: 'invalid_argument',
      violations: [{ field: missing, message: 'unusable' }],
    });
    await bus.close();
  });

  it('refuses to start the agent API on 0.0.0.0 without auth', async () => {
    const bus = new InProcessBus();
    await expect(startDispatcher(bus, { grpc: { host: '0.0.0.0', port: 0 }, dispatcher: { warmCoreTools: false } })).rejects.toThrow(/without authentication/);
    await bus.close();
  });
});
