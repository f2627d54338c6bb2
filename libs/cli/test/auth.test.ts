/**
 * The CLI against a ToolHub with auth and TLS on both APIs: TOOLHUB_TOKEN reaches the agent API
 * (ls, info, search, run) as well as the admin API, TLS settings come from flags or the
 * environment, and a missing or refused credential says what to set.
 */
import { Authenticator, hashApiKey } from '@toolhub/auth';
import { EXIT_CODES } from '@toolhub/cli';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type CliResult, cliRunner } from './support/run-cli';
import { startTestHub, type TestHub } from './support/toolhub';

jest.setTimeout(30_000);

const dir = mkdtempSync(join(tmpdir(), 'toolhub-cli-auth-'));
const f = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const AGENT_KEY = 'agent-key-0123456789abcdef0123';
const OPS_KEY = 'ops-key-0123456789abcdef0123';

/** A CA and a server certificate for localhost / 127.0.0.1. */
function makeCertificates(): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=toolhub-test-ca');
  writeFileSync(f('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
}

let hub: TestHub;
let authenticator: Authenticator;
let base: Record<string, string>;
const cli = (env: Record<string, string>, args: string[]): Promise<CliResult> => cliRunner({ ...base, ...env })(args);

beforeAll(async () => {
  makeCertificates();
  writeFileSync(
    f('keys.json'),
    JSON.stringify({
      keys: [
        { name: 'fleet', sha256: hashApiKey(AGENT_KEY), roles: ['agent'] },
        { name: 'ops', sha256: hashApiKey(OPS_KEY), roles: ['operator'] },
      ],
    }),
  );
  authenticator = Authenticator.create({ apiKeysPath: f('keys.json') });
  hub = await startTestHub({ authenticator, tls: { certFile: f('server.pem'), keyFile: f('server.key') } });
  // By host name, as TLS clients should (the certificate names localhost; SNI takes no IP address).
  const byName = (a: string) => a.replace(/^127\.0\.0\.1:/, 'localhost:');
  base = { TOOLHUB_ADDRESS: byName(hub.address), TOOLHUB_ADMIN_ADDRESS: byName(hub.adminAddress) };
});

afterAll(async () => {
  await hub.close();
  authenticator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('toolhub with auth and TLS on', () => {
  it('sends TOOLHUB_TOKEN to the agent API: ls, info, search and run work with an agent key over TLS (--ca)', async () => {
    const env = { TOOLHUB_TOKEN: AGENT_KEY };
    const ls = await cli(env, ['--ca', f('ca.pem'), 'ls', 'test', '-r']);
    expect(ls.stderr).not.toMatch(/error/);
    expect(ls.code).toBe(EXIT_CODES.ok);
    expect(ls.stdout).toMatch(/greet/);
    expect((await cli(env, ['--ca', f('ca.pem'), 'info', 'test:greet'])).code).toBe(EXIT_CODES.ok);
    expect((await cli(env, ['--ca', f('ca.pem'), 'search', 'greet', 'someone'])).stdout).toMatch(/test:greet/);
    const run = await cli(env, ['--ca', f('ca.pem'), 'run', 'test', 'greet', '--arg', 'who=ada']);
    expect(run).toMatchObject({ code: EXIT_CODES.ok, stdout: expect.stringContaining('hello ada') });
  });

  it('takes the CA from TOOLHUB_CLIENT_CA and sends the token to the admin API, which checks its role', async () => {
    const r = await cli({ TOOLHUB_TOKEN: OPS_KEY, TOOLHUB_CLIENT_CA: f('ca.pem') }, ['preload', 'show', '--json']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.json()).toMatchObject({ list: { revision: 0 } });
    expect((await cli({ TOOLHUB_TOKEN: OPS_KEY, TOOLHUB_CLIENT_CA: f('ca.pem') }, ['providers'])).code).toBe(EXIT_CODES.ok);
    // The admin API checks the role of the same credential: an agent key may not read the audit log.
    const denied = await cli({ TOOLHUB_TOKEN: AGENT_KEY, TOOLHUB_CLIENT_CA: f('ca.pem') }, ['audit', '--json']);
    expect(denied.json()).toMatchObject({ exitCode: EXIT_CODES.other, error: { code: 'permission_denied' } });
  });

  it('without TOOLHUB_TOKEN says the server wants credentials and to set TOOLHUB_TOKEN', async () => {
    const r = await cli({ TOOLHUB_CLIENT_CA: f('ca.pem') }, ['ls', '--json']);
    expect(r.json()).toMatchObject({ exitCode: EXIT_CODES.other, error: { code: 'unauthenticated', hint: expect.stringMatching(/set TOOLHUB_TOKEN/) } });
  });

  it('with a refused token says TOOLHUB_TOKEN was refused', async () => {
    const r = await cli({ TOOLHUB_TOKEN: 'not-a-key', TOOLHUB_CLIENT_CA: f('ca.pem') }, ['run', 'test', 'greet', '--arg', 'who=ada']);
    expect(r.code).toBe(EXIT_CODES.other);
    expect(r.stderr).toMatch(/error unauthenticated: The API key is not valid/);
    expect(r.stderr).toMatch(/hint: the credential in TOOLHUB_TOKEN was refused/);
  });

  it('in plaintext cannot reach the TLS server and suggests --ca', async () => {
    const r = await cli({ TOOLHUB_TOKEN: AGENT_KEY }, ['ls', '--json']);
    expect(r.json()).toMatchObject({ exitCode: EXIT_CODES.unavailable, error: { code: 'unavailable', hint: expect.stringMatching(/If it serves TLS, add --ca/) } });
  });

  it('refuses to send TOOLHUB_TOKEN in plaintext to another machine, on either API, unless TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1', async () => {
    const remote = { TOOLHUB_TOKEN: AGENT_KEY, TOOLHUB_ADDRESS: '10.255.255.1:50051', TOOLHUB_ADMIN_ADDRESS: '10.255.255.1:50052' };
    for (const args of [['ls'], ['stats']]) {
      const r = await cli(remote, args);
      expect(r.code).toBe(EXIT_CODES.usage);
      expect(r.stderr).toMatch(/Refusing to send the credential .* in plaintext to 10\.255\.255\.1/);
      expect(r.stderr).not.toContain(AGENT_KEY);
    }
    // Allowed, it is sent: the call then fails on the network (nothing listens there), not as a usage error.
    const allowed = await cli({ ...remote, TOOLHUB_ALLOW_PLAINTEXT_TOKEN: '1' }, ['--timeout', '300', 'ls']);
    expect(allowed.code).not.toBe(EXIT_CODES.usage);
    expect(allowed.stderr).not.toMatch(/Refusing/);
  });

  it('refuses an unreadable CA file and a certificate without its key as usage errors, sending nothing', async () => {
    const missing = await cli({ TOOLHUB_TOKEN: AGENT_KEY }, ['--ca', f('nope.pem'), 'ls']);
    expect(missing.code).toBe(EXIT_CODES.usage);
    expect(missing.stderr).toMatch(/tls.caFile ".*nope.pem" cannot be read/);
    const half = await cli({ TOOLHUB_TOKEN: AGENT_KEY }, ['--cert', f('server.pem'), 'ls']);
    expect(half.code).toBe(EXIT_CODES.usage);
    expect(half.stderr).toMatch(/give both --cert and --key/);
  });
});
