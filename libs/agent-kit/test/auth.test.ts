/**
 * The agent client's credentials against real dispatcher edges with auth on: an API key as a bearer
 * token (option or TOOLHUB_TOKEN), TLS with a private CA, and an mTLS client certificate.
 */
import { serveAdapter, staticCatalog, textResult, type AdapterService, type ToolDefinition } from '@toolhub/adapter-sdk';
import { Authenticator, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { credentials } from '@grpc/grpc-js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { AgentKitError, clientOptionsFromEnv, ToolHubAgentClient, type ToolHubAgentClientOptions, type ToolHubCallError, withClientDefaults } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'toolhub-agent-auth-'));
const f = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const KEY = 'fleet-key-0123456789abcdef0123';

/** A CA, a server certificate for localhost and a client certificate with CN bot-7. */
function makeCertificates(): void {
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=toolhub-test-ca');
  writeFileSync(f('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  for (const [name, cn, ext] of [['server', 'localhost', 'san.ext'], ['bot', 'bot-7', undefined]] as const) {
    openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', ...(ext ? ['-extfile', ext] : []));
  }
}

const tools: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, run: async (a: { text?: string }) => textResult(a.text ?? '') },
];

async function failure(p: Promise<unknown>): Promise<ToolHubCallError> {
  try {
    await p;
  } catch (err) {
    return err as ToolHubCallError;
  }
  throw new Error('expected the call to fail');
}

describe('agent client credentials against a dispatcher with auth on', () => {
  let bus: InProcessBus;
  let adapter: AdapterService;
  let keyEdge: RunningDispatcher;
  let mtlsEdge: RunningDispatcher;
  const authenticators: Authenticator[] = [];
  const clients: ToolHubAgentClient[] = [];
  const connect = async (address: string, options: ToolHubAgentClientOptions) => {
    const c = await ToolHubAgentClient.connect(address, { retry: { maxAttempts: 1 }, ...options });
    clients.push(c);
    return c;
  };
  const echo = (c: ToolHubAgentClient) => c.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'hi' } }).then((r) => r.content[0]?.text);

  beforeAll(async () => {
    makeCertificates();
    writeFileSync(f('keys.json'), JSON.stringify({ keys: [{ name: 'fleet', sha256: hashApiKey(KEY), roles: ['agent'] }] }));
    writeFileSync(f('subjects.json'), JSON.stringify({ 'bot-7': ['agent'] }));
    authenticators.push(Authenticator.create({ apiKeysPath: f('keys.json') }), Authenticator.create({ mtlsSubjectsPath: f('subjects.json') }));
    bus = new InProcessBus();
    adapter = await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) });
    const tls = { certFile: f('server.pem'), keyFile: f('server.key') };
    keyEdge = await startDispatcher(bus, { grpc: { port: 0, authenticator: authenticators[0], tls }, dispatcher: { warmCoreTools: false } });
    mtlsEdge = await startDispatcher(bus, { grpc: { port: 0, authenticator: authenticators[1], tls: { ...tls, clientCaFile: f('ca.pem') } }, dispatcher: { warmCoreTools: false } });
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await keyEdge.close(100);
    await mtlsEdge.close(100);
    await adapter.close();
    await bus.close();
    for (const a of authenticators) a.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keyAddress = () => `localhost:${keyEdge.grpc.port}`;

  it('sends the token option as a bearer credential over TLS with a private CA', async () => {
    const client = await connect(keyAddress(), { token: KEY, tls: { caFile: f('ca.pem') } });
    expect(await echo(client)).toBe('hi');
    expect((await client.listTools({ provider: 'local', recursive: true })).tools.map((t) => t.name)).toEqual(['echo_text']);
  });

  it('without a token the same edge answers unauthenticated, saying what to send', async () => {
    const err = await failure(echo(await connect(keyAddress(), { tls: { caFile: f('ca.pem') } })));
    expect(err.code).toBe('unauthenticated');
    expect(err.message).toMatch(/authorization: Bearer/);
  });

  it('takes TOOLHUB_TOKEN and TOOLHUB_CLIENT_CA from the environment through clientOptionsFromEnv', async () => {
    const env = { TOOLHUB_TOKEN: `${KEY}\n`, TOOLHUB_CLIENT_CA: f('ca.pem') };
    expect(clientOptionsFromEnv(env)).toEqual({ token: KEY, tls: { caFile: f('ca.pem') } });
    expect(await echo(await connect(keyAddress(), { ...clientOptionsFromEnv(env), caller: 'agent-7' }))).toBe('hi');
  });

  it("lets a call's own authorization metadata replace the client's token", async () => {
    const client = await connect(keyAddress(), { token: KEY, tls: { caFile: f('ca.pem') } });
    const err = await failure(client.listProviders({ metadata: { authorization: 'Bearer not-a-key' } }));
    expect(err.code).toBe('unauthenticated');
  });

  it('cannot reach a TLS edge in plaintext, nor trust it without its CA', async () => {
    expect((await failure(echo(await connect(keyAddress(), { token: KEY })))).code).toBe('unavailable');
    expect((await failure(echo(await connect(keyAddress(), { token: KEY, tls: true })))).code).toBe('unavailable');
  });

  it('presents a client certificate (mTLS) from options or TOOLHUB_CLIENT_CERT/KEY; without one the mTLS edge refuses the handshake', async () => {
    const files = { caFile: f('ca.pem'), certFile: f('bot.pem'), keyFile: f('bot.key') };
    expect(await echo(await connect(`localhost:${mtlsEdge.grpc.port}`, { tls: files }))).toBe('hi');
    const env = clientOptionsFromEnv({ TOOLHUB_CLIENT_CA: f('ca.pem'), TOOLHUB_CLIENT_CERT: f('bot.pem'), TOOLHUB_CLIENT_KEY: f('bot.key') });
    expect(env).toEqual({ tls: files });
    expect(await echo(await connect(`localhost:${mtlsEdge.grpc.port}`, env))).toBe('hi');
    expect((await failure(echo(await connect(`localhost:${mtlsEdge.grpc.port}`, { tls: { caFile: f('ca.pem') } })))).code).toBe('unavailable');
  });
});

describe('credential options', () => {
  it('refuses credentials together with tls, a certificate without its key and an unreadable CA file, naming the field', () => {
    const err = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    expect(err(() => withClientDefaults({ credentials: credentials.createInsecure(), tls: true }))).toMatchObject({ code: 'invalid_options', message: expect.stringMatching(/credentials and tls/) });
    expect(err(() => withClientDefaults({ tls: { certFile: '/x.pem' } }))).toMatchObject({ message: expect.stringMatching(/certFile and tls.keyFile go together/) });
    expect(err(() => withClientDefaults({ tls: { caFile: '/nonexistent/ca.pem' } }))).toBeInstanceOf(AgentKitError);
    expect(err(() => withClientDefaults({ tls: { caFile: '/nonexistent/ca.pem' } }))).toMatchObject({ message: expect.stringMatching(/tls.caFile "\/nonexistent\/ca.pem" cannot be read/) });
    expect(err(() => withClientDefaults({ token: 'Bearer abc' }))).toMatchObject({ message: expect.stringMatching(/token must be an API key or JWT without whitespace/) });
  });

  it('reads nothing from an environment without the variables, and TOOLHUB_CLIENT_TLS=1 alone means TLS with the system CAs', () => {
    expect(clientOptionsFromEnv({})).toEqual({});
    expect(clientOptionsFromEnv({ TOOLHUB_CLIENT_TLS: '1' })).toEqual({ tls: true });
  });
});
