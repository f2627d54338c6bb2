/**
 * The adapter against a real local HTTP API (test/support/api-server.ts): credentials reaching the
 * server, 429/503 handling with Retry-After, redirects and SSRF refusals, size caps, deadlines,
 * and secrets staying out of everything an agent or a log sees.
 */
import type { RunContext } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type CloudAdapter, createCloudAdapter, parseCloudConfig } from '../src';
import { parseHostRule } from '../src/hosts';
import { SafeHttpClient } from '../src/http';
import { apiDocument, type ApiServer, startApiServer } from './support/api-server';

const BEARER = 'bearer-Secret-7f3a9c2e1d';
const API_KEY = 'apikey-Secret-5b8e0d4c2a';
const QUERY_KEY = 'querykey-Secret-9a1c7e3f0b';
const PASSWORD = 'basic-Secret-pw-2d6f8a0c';
const env = { PROBE_TOKEN: BEARER, PROBE_KEY: API_KEY, PROBE_QKEY: QUERY_KEY, PROBE_USER: 'robot', PROBE_PASSWORD: PASSWORD };
const SECRETS = [BEARER, API_KEY, QUERY_KEY, PASSWORD, Buffer.from(`robot:${PASSWORD}`).toString('base64')];

function ctx(ms: number): RunContext {
  return { signal: AbortSignal.timeout(ms), deadline: Date.now() + ms, caller: 'test', idempotencyKey: '' };
}

async function failure(p: Promise<unknown>): Promise<ToolHubError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolHubError) return err;
    throw err;
  }
  throw new Error('expected the run to fail');
}

function expectNoSecrets(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

describe('cloud adapter against a local HTTP API', () => {
  let api: ApiServer;
  let other: ApiServer;
  let adapter: CloudAdapter;
  let dir: string;
  const logged: string[] = [];

  beforeAll(async () => {
    api = await startApiServer();
    other = await startApiServer();
    dir = mkdtempSync(join(tmpdir(), 'cloud-int-'));
    const file = join(dir, 'probe.yaml');
    writeFileSync(file, apiDocument(api.origin));
    // A server URL template whose default points at the metadata service.
    writeFileSync(
      join(dir, 'meta.yaml'),
      "openapi: 3.0.0\ninfo: { title: Meta, version: '1' }\nservers:\n  - url: 'http://{host}/latest'\n    variables: { host: { default: 169.254.169.254 } }\npaths:\n  /meta-data:\n    get:\n      operationId: readMetadata\n      responses: { '200': { description: ok } }\n",
    );
    const hosts = [`127.0.0.1:${api.port}`, `127.0.0.1:${other.port}`, '169.254.169.254'];
    const config = parseCloudConfig({
      defaults: { retries: 2, timeout: '10s' },
      documents: [
        // Loaded over HTTP from the API itself: a URL source.
        { alias: 'bearer', source: `${api.origin}/openapi.yaml`, allowedHosts: hosts, auth: { type: 'bearer', tokenEnv: 'PROBE_TOKEN' } },
        { alias: 'header', source: file, allowedHosts: hosts, auth: { type: 'apiKey', in: 'header', name: 'X-API-Key', valueEnv: 'PROBE_KEY' } },
        { alias: 'query', source: file, allowedHosts: hosts, auth: { type: 'apiKey', in: 'query', name: 'api_key', valueEnv: 'PROBE_QKEY' } },
        { alias: 'basic', source: file, allowedHosts: hosts, auth: { type: 'basic', usernameEnv: 'PROBE_USER', passwordEnv: 'PROBE_PASSWORD' }, maxResponseBytes: '64KiB' },
        // No allowedHosts: only the base URL host, and never its loopback address.
        { alias: 'implicit', source: file },
        { alias: 'meta', source: join(dir, 'meta.yaml') },
      ],
    });
    const log = (level: string) => (obj: object, msg?: string) => logged.push(`${level} ${msg ?? ''} ${JSON.stringify(obj)}`);
    adapter = await createCloudAdapter(config, { env, logger: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') } });
  });

  afterAll(async () => {
    await adapter?.close();
    await api?.close();
    await other?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves every operation of every document, the URL source included', async () => {
    const names = (await adapter.catalog()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['bearer_who_am_i', 'header_get_limited', 'query_create_item', 'basic_get_big', 'implicit_who_am_i', 'meta_read_metadata']));
    expect(adapter.problems.filter((p) => p.includes('meta'))).toEqual([
      'Document "meta" calls http://169.254.169.254, a metadata or link-local address that is never called; every run of its tools will be refused.',
    ]);
  });

  it.each([
    ['bearer', (s: { authorization: string | null }) => expect(s.authorization).toBe(`Bearer ${BEARER}`)],
    ['header', (s: { apiKey: string | null }) => expect(s.apiKey).toBe(API_KEY)],
    ['query', (s: { query: Record<string, string> }) => expect(s.query).toEqual({ api_key: QUERY_KEY })],
    ['basic', (s: { authorization: string | null }) => expect(s.authorization).toBe(`Basic ${Buffer.from(`robot:${PASSWORD}`).toString('base64')}`)],
  ] as const)('%s auth reaches the server, and the echoed credential is redacted in the result', async (alias, check) => {
    const before = api.seen.length;
    const result = await adapter.runTool(`${alias}_who_am_i`, {}, ctx(5000));
    const seen = api.seen.slice(before).find((r) => r.url.startsWith('/v1/whoami'))!;
    const url = new URL(seen.url, api.origin);
    check({ authorization: seen.headers.authorization ?? null, apiKey: (seen.headers['x-api-key'] as string | undefined) ?? null, query: Object.fromEntries(url.searchParams) } as never);
    expectNoSecrets(JSON.stringify(result));
    expect(JSON.stringify(result)).toContain('[REDACTED]');
  });

  it('sends path parameters encoded and bodies with native names', async () => {
    const got = await adapter.runTool('header_get_item', { item_id: '../../admin@evil.test/x?y#z' }, ctx(5000));
    expect(got.structured).toEqual({ rawPath: '/v1/items/..%2F..%2Fadmin%40evil.test%2Fx%3Fy%23z' });
    const created = await adapter.runTool('header_create_item', { body: { item_name: 'lamp', unit_price: 12.5 } }, ctx(5000));
    expect(created.structured).toEqual({ created: { itemName: 'lamp', unitPrice: 12.5 }, contentType: 'application/json' });
  });

  it.each(['seconds', 'date'])('retries HTTP 429 after the Retry-After (%s) and then succeeds', async (mode) => {
    const key = `k-${mode}`;
    const started = Date.now();
    const result = await adapter.runTool('header_get_limited', { key, mode }, ctx(8000));
    expect(result.structured).toEqual({ ok: true, attempt: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(api.requests(`/v1/limited?key=${key}`)).toHaveLength(2);
  });

  it('does not wait for a Retry-After that would pass the deadline', async () => {
    const started = Date.now();
    const err = await failure(adapter.runTool('header_get_limited', { key: 'k-tight' }, ctx(600)));
    expect(Date.now() - started).toBeLessThan(900); // it did not wait the 1000 ms asked
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterMs).toBe(1000);
    expect(err.message).toMatch(/^header_get_limited: GET \/v1\/limited answered HTTP 429 \(rate limited\) after 1 attempt; waiting 1000 ms would pass the call's deadline/);
  });

  it('gives up on 503 after the allowed retries with a clear unavailable error', async () => {
    const before = api.requests('/v1/busy').length;
    const err = await failure(adapter.runTool('header_get_busy', {}, ctx(5000)));
    expect(err.code).toBe('unavailable');
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/GET \/v1\/busy answered HTTP 503 \(service unavailable\) after 3 attempts; the 2 retries allowed were used\. The API asks to wait 0 s\. Response: \{"error":"maintenance"\}/);
    expect(api.requests('/v1/busy').length - before).toBe(3);
  });

  it('reports a long rate limit at once, with when to retry', async () => {
    const err = await failure(adapter.runTool('header_get_throttled', {}, ctx(5000)));
    expect(err.code).toBe('rate_limited');
    expect(err.retryAfterMs).toBe(120_000);
    expect(err.message).toMatch(/Retry later \(after 120 s\)/);
  });

  it('polls a 202 Accepted + Location to completion, reporting each status check as progress', async () => {
    const before = api.seen.length;
    const updates: Array<{ progress?: number; message?: string }> = [];
    const result = await adapter.runTool('bearer_start_export', { checks: 3 }, { ...ctx(10_000), progress: (u) => void updates.push(u) });
    // The status resource answered 202 twice, then 303 See Other to the result; credentials stayed on the same origin.
    expect(result.structured).toEqual({ rows: 3, authorization: 'Bearer [REDACTED]' });
    const paths = api.seen.slice(before).map((r) => r.url.replace(/e\d+/, 'ID'));
    expect(paths).toEqual(['/v1/exports?checks=3', '/v1/exports/ID/status', '/v1/exports/ID/status', '/v1/exports/ID/status', '/v1/exports/ID/result']);
    expect(updates.map((u) => u.progress)).toEqual([1, 2, 3]);
    expect(updates[0]!.message).toMatch(/^accepted by 127\.0\.0\.1:\d+, still running \(status queued\); status check 1 in 0 s$/);
    expect(updates[2]!.message).toMatch(/\(status running\); status check 3/);
  });

  it('stops polling when the next check would pass the deadline, saying where the work goes on', async () => {
    const started = Date.now();
    const err = await failure(adapter.runTool('bearer_start_export', { checks: 5, wait: '30' }, ctx(3000)));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/accepted the request \(HTTP 202\) and had not finished after 0 status checks .*It may still complete at http:\/\/127\.0\.0\.1:\d+\/v1\/exports\/e\d+\/status/);
    expect(Date.now() - started).toBeLessThan(3000); // it did not wait the 30 s asked
  });

  it('follows a redirect on the same host, keeping the credentials', async () => {
    const before = api.seen.length;
    const result = await adapter.runTool('bearer_redirect_to', { to: '/v1/whoami' }, ctx(5000));
    expect(result.structured).toMatchObject({ authorization: 'Bearer [REDACTED]' });
    expect(api.seen.slice(before).map((r) => r.url)).toEqual(['/v1/redirect?to=%2Fv1%2Fwhoami', '/v1/whoami']);
  });

  it('drops credentials when a redirect moves to another allowed host', async () => {
    const result = await adapter.runTool('query_redirect_to', { to: `${other.origin}/v1/whoami` }, ctx(5000));
    expect(result.structured).toEqual({ authorization: null, apiKey: null, query: {} });
    expect(other.requests('/v1/whoami').at(-1)!.url).toBe('/v1/whoami');
  });

  it('refuses a redirect to a host that is not allowlisted', async () => {
    const err = await failure(adapter.runTool('bearer_redirect_to', { to: 'http://evil.example.com/steal' }, ctx(5000)));
    expect(err.code).toBe('permission_denied');
    expect(err.message).toMatch(new RegExp(`^Refused to follow the redirect from 127\\.0\\.0\\.1:${api.port} to evil\\.example\\.com: host evil\\.example\\.com is not in the allowed hosts`));
  });

  it('refuses a redirect to the metadata address, even though it is allowlisted', async () => {
    const err = await failure(adapter.runTool('bearer_redirect_to', { to: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }, ctx(5000)));
    expect(err.code).toBe('permission_denied');
    expect(err.message).toMatch(/^Refused to follow the redirect from 127\.0\.0\.1:\d+ to 169\.254\.169\.254: 169\.254\.169\.254 resolves to 169\.254\.169\.254 is a cloud metadata address, which is never called/);
  });

  it('refuses a server URL template that points at the metadata service', async () => {
    const err = await failure(adapter.runTool('meta_read_metadata', {}, ctx(5000)));
    expect(err.code).toBe('permission_denied');
    expect(err.message).toMatch(/^Refused to call 169\.254\.169\.254: .*cloud metadata address, which is never called/);
  });

  it('refuses loopback unless the host is allowlisted explicitly', async () => {
    const before = api.seen.length;
    const err = await failure(adapter.runTool('implicit_who_am_i', {}, ctx(5000)));
    expect(err.code).toBe('permission_denied');
    expect(err.message).toMatch(/127\.0\.0\.1 is a loopback address; list the host in allowedHosts to call it/);
    expect(api.seen.length).toBe(before);
  });

  it('cuts an oversized body at the cap and says so', async () => {
    const result = await adapter.runTool('basic_get_big', {}, ctx(5000));
    const text = result.content[0]!.text!;
    expect(Buffer.byteLength(text.split('\n\n[Truncated')[0]!)).toBe(65_536);
    expect(text).toMatch(/\[Truncated: the response was larger than 65536 bytes, so only the first 65536 bytes are shown/);
    expect(result.structured).toBeUndefined();
  });

  it('cancels a slow call at the deadline with a timeout error', async () => {
    const started = Date.now();
    const err = await failure(adapter.runTool('header_get_slow', {}, ctx(700)));
    const elapsed = Date.now() - started;
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/^header_get_slow: GET \/v1\/slow on 127\.0\.0\.1:\d+ did not finish within \d+ ms and was cancelled/);
    expect(elapsed).toBeGreaterThanOrEqual(600);
    expect(elapsed).toBeLessThan(3000); // the server would answer after 5000 ms
  });

  it('turns other statuses into failed errors with the status and a short excerpt', async () => {
    const err = await failure(adapter.runTool('query_get_fail', {}, ctx(5000)));
    expect(err.code).toBe('failed');
    expect(err.message).toMatch(/^query_get_fail: GET \/v1\/fail answered HTTP 500 Internal Server Error — \{"error":"database on fire","youSent":"\[REDACTED\]","detail":"y+\.\.\.\. The API failed on its side/);
    expect(err.message.length).toBeLessThan(600);
    const notFound = await failure(adapter.runTool('header_get_item', { item_id: '' }, ctx(5000)));
    expect(notFound.code).toBe('invalid_argument');
  });

  it('keeps every secret out of tool infos, errors and logs', async () => {
    const errors: string[] = [];
    for (const alias of ['bearer', 'header', 'query', 'basic']) {
      for (const [tool, args] of [
        ['get_fail', {}],
        ['get_busy', {}],
        ['redirect_to', { to: 'http://169.254.169.254/' }],
        ['get_slow', {}],
        ['get_item', { item_id: '..' }],
      ] as const) {
        const err = await failure(adapter.runTool(`${alias}_${tool}`, args, ctx(tool === 'get_slow' ? 300 : 5000)));
        errors.push(JSON.stringify(err.toErrorInfo()), err.message, String(err.cause ?? ''));
      }
    }
    expectNoSecrets(errors.join('\n'));
    expectNoSecrets(JSON.stringify(await adapter.catalog()));
    expectNoSecrets(JSON.stringify(await adapter.listTools('', true)));
    expectNoSecrets(logged.join('\n'));
    expect(logged.join('\n')).toContain('retrying after HTTP 429/503');
  });
});

describe('the connection itself', () => {
  let api: ApiServer;
  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('re-checks the address it dials, so a name that re-resolves to loopback is refused (DNS rebinding)', async () => {
    const rule = parseHostRule(`localhost:${api.port}`);
    if (typeof rule === 'string') throw new Error(rule);
    // The pre-flight check sees a public address; the real look-up at connect time finds 127.0.0.1.
    const client = new SafeHttpClient(
      { alias: 'rebind', allowedHosts: [rule], explicitHosts: false, maxRedirects: 0, maxResponseBytes: 1024, credentialHeaders: [], credentialQuery: [] },
      async () => ['93.184.216.34'],
    );
    try {
      const err = await failure(client.send({ method: 'GET', url: new URL(`http://localhost:${api.port}/v1/whoami`), headers: {} }, AbortSignal.timeout(5000)));
      expect(err.code).toBe('permission_denied');
      expect(err.message).toMatch(/^Refused to call localhost:\d+: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/);
      expect(api.requests('/v1/whoami')).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});
