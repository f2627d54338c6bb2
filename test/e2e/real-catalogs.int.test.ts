/**
 * Real-world catalogs end to end: the three vendor OpenAPI documents of `shared/data/openapi/real`
 * (Twilio 197 operations, Box 296, DigitalOcean 659 across ~2,900 files), each served by its own
 * Prism mock (`--errors`: requests that break the document are refused, so a success means the
 * request matched it), mounted by adapter-cloud in both deployments:
 *   - NATS mode: nats-server, registry (FerretDB), dispatcher and adapter-cloud as processes;
 *   - one-process mode: `apps/toolhub` with the same cloud configuration.
 * Beside them: a document that js-yaml refuses (read with the lenient reader; one operation with a
 * video body quarantined) and a document that does not exist (the whole source quarantined).
 * Every operation is listed or quarantined with its reason, and runs with path, query, header and
 * body (JSON, form, multipart) parameters succeed against Prism.
 */
import { RunStatus } from '@toolhub/contracts';
import { loadOpenApiDocument } from '@toolhub/cloud-adapter';
import { freePort, mongoUrl, type NatsServerHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type AdminClient, adminClient, type AgentClient, connectAgent, PRISM_ENTRY, type RegistryProcess, startApp, startDispatcherProcess, startRegistry, textOf } from './support/stack';

jest.setTimeout(120_000);

const REAL = join(__dirname, '..', '..', '..', 'shared', 'data', 'openapi', 'real');
const DOCS = {
  twilio: join(REAL, 'twilio_api_v2010.yaml'),
  box: join(REAL, 'box_openapi.json'),
  digitalocean: join(REAL, 'digitalocean', 'DigitalOcean-public.v2.yaml'),
};
const DUPLICATE_KEYS = join(__dirname, '..', '..', 'libs', 'cloud-adapter', 'test', 'fixtures', 'duplicate-keys.yaml');
const CREDENTIALS = { TW_USER: 'AC0123456789abcdef0123456789abcdef', TW_PASS: 'twilio-secret-token', BOX_TOKEN: 'box-secret-token', DO_TOKEN: 'do-secret-token' };
const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';

function cloudConfig(ports: Record<keyof typeof DOCS, number>, dir: string): string {
  const doc = (alias: keyof typeof DOCS, auth: string) =>
    `  - { alias: ${alias}, source: "${DOCS[alias]}", baseUrl: "http://127.0.0.1:${ports[alias]}", allowedHosts: ["127.0.0.1:${ports[alias]}"], mount: vendor/${alias}, auth: ${auth} }`;
  return [
    'provider: cloud',
    // Validation of the DigitalOcean document alone takes ~48 s on a loaded machine; Prism checks every request instead.
    'defaults: { timeout: 20s, retries: 0, validate: "off" }',
    'documents:',
    doc('twilio', '{ type: basic, usernameEnv: TW_USER, passwordEnv: TW_PASS }'),
    doc('box', '{ type: bearer, tokenEnv: BOX_TOKEN }'),
    doc('digitalocean', '{ type: bearer, tokenEnv: DO_TOKEN }'),
    `  - { alias: dup, source: "${DUPLICATE_KEYS}", mount: vendor/dup }`,
    `  - { alias: missing, source: "${join(dir, 'no-such-document.yaml')}", mount: vendor/missing }`,
    '',
  ].join('\n');
}

/** Operations of a document, counted from the document itself (every method of every path item). */
async function operationCount(source: string): Promise<number> {
  const { document } = await loadOpenApiDocument(source, { validate: 'off' });
  let n = 0;
  for (const item of Object.values(document.paths as Record<string, Record<string, unknown>>)) {
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) if (item[method] && typeof item[method] === 'object') n++;
  }
  return n;
}

/** The provider's catalog is switched in (stored and indexed), not only announced. */
function isSynced(status: { state: string; toolCount: number; quarantinedTotal: number; syncMs: number } | undefined, expected: number): boolean {
  if (status?.state === 'synced') process.stdout.write(`real-catalogs: ${status.toolCount} tools synced in ${status.syncMs} ms\n`);
  return status?.state === 'synced' && status.toolCount + status.quarantinedTotal >= expected;
}

/** The checks both deployments must pass, against one agent connection. */
function realCatalogChecks(label: string, agent: () => AgentClient, admin: () => AdminClient, expected: () => number): void {
  const run = (name: string, args: Record<string, unknown>) => agent().runTool({ provider: 'cloud', name, arguments: args, caller: `e2e-real-${label}`, timeoutMs: 30_000 }, { deadlineMs: 45_000 });

  it('lists every operation of every document, or quarantines it with its reason', async () => {
    // 1,150 tools in one listing: slow on a loaded 2-core machine, so a generous deadline.
    const listed = await agent().listTools({ provider: 'cloud', path: 'vendor', recursive: true }, { deadlineMs: 60_000 });
    const byMount = (m: string) => listed.tools.filter((t) => t.path === `vendor/${m}` || t.path.startsWith(`vendor/${m}/`)).length;
    // Operators read the quarantine in the registry's catalog status (and its count in ListProviders).
    const status = (await admin().getCatalogStatus('cloud'))!;
    const quarantined = status.quarantined;
    expect(status.quarantinedTotal).toBe(quarantined.length);
    const provider = (await agent().listProviders({})).providers.find((p) => p.provider === 'cloud')!;
    expect(provider.quarantinedCount).toBe(quarantined.length);
    // The missing document: quarantined as a whole, with why.
    expect(quarantined).toContainEqual(expect.objectContaining({ source: 'missing', tool: '', rule: 'load', reason: expect.stringMatching(/no-such-document\.yaml/) }));
    // The lenient document: its video upload is quarantined, its other four operations listed.
    expect(quarantined).toContainEqual(expect.objectContaining({ source: 'dup', tool: 'postVideo', rule: 'body_media_type', reason: expect.stringMatching(/video\/mp4/) }));
    expect(byMount('dup')).toBe(4);
    const quarantinedOps = quarantined.filter((q) => q.tool !== '' && q.source !== 'dup').length;
    expect(byMount('twilio') + byMount('box') + byMount('digitalocean') + quarantinedOps).toBe(expected());
    for (const q of quarantined) expect(q.reason.length).toBeGreaterThan(10);
  });

  it('finds vendor operations by what they do, in the top five', async () => {
    const wanted: Array<[string, string]> = [
      ['list all droplets', 'cloud:digitalocean_droplets_list'],
      ['delete a droplet', 'cloud:digitalocean_droplets_destroy'],
      ['send a message', 'cloud:twilio_create_message'],
      ['make an outgoing phone call', 'cloud:twilio_create_call'],
      ['upload an avatar picture for a user', 'cloud:box_post_users_id_avatar'],
    ];
    for (const [query, id] of wanted) {
      const res = await agent().searchTools({ queries: [query], provider: 'cloud', limit: 5 }, { deadlineMs: 30_000 });
      expect({ query, top5: res.hits.map((h) => h.id) }).toEqual({ query, top5: expect.arrayContaining([id]) });
    }
  });

  it('keeps the source name and names renamed parameters in the description as the schema does', async () => {
    const info = (await agent().getToolInfo({ provider: 'cloud', name: 'twilio_list_call' })).tool!;
    expect(info.sourceName).toBe('ListCall');
    // StartTime, StartTime< and StartTime> stay three parameters.
    expect(Object.keys(info.inputSchema!.properties as object)).toEqual(expect.arrayContaining(['start_time', 'start_time_lt', 'start_time_gt']));
  });

  it('runs with path, query, header and body parameters against Prism', async () => {
    const ok = async (name: string, args: Record<string, unknown>) => {
      const res = await run(name, args);
      expect({ name, status: res.status, text: res.status === RunStatus.RUN_STATUS_OK ? '' : textOf(res) }).toEqual({ name, status: RunStatus.RUN_STATUS_OK, text: '' });
      return res;
    };
    // Path (integer id) — DigitalOcean; query (page size, filter) — DigitalOcean.
    const droplet = await ok('digitalocean_droplets_get', { droplet_id: 3164444 });
    expect(droplet.structured).toEqual(expect.objectContaining({ droplet: expect.any(Object) }));
    await ok('digitalocean_droplets_list', { per_page: 2, tag_name: 'env:prod' });
    // JSON body, and the required Accept / Content-Type header parameters of the apps API.
    await ok('digitalocean_droplets_create', { body: { name: 'example.com', region: 'nyc3', size: 's-1vcpu-1gb', image: 'ubuntu-20-04-x64' } });
    await ok('digitalocean_apps_create', { accept: 'application/json', content_type: 'application/json', body: { spec: { name: 'web-app' } } });
    // Header parameters and an array query parameter — Box (bearer token).
    await ok('box_get_files_id', { file_id: '12345', if_none_match: '1', x_rep_hints: '[pdf]', fields: ['name', 'size'] });
    // multipart/form-data with a file part — Box.
    await ok('box_post_users_id_avatar', { user_id: '12345', body: { pic: 'PNG bytes as text' } });
    // form-urlencoded body and path parameters — Twilio (basic auth).
    await ok('twilio_create_message', { account_sid: ACCOUNT, body: { to: '+15552229999', from: '+15551110000', body: 'hello' } });
    await ok('twilio_fetch_call', { account_sid: ACCOUNT, sid: 'CA0123456789abcdef0123456789abcdef' });
  });

  it("accepts the document's own parameter names and reports the rename as a fix", async () => {
    const res = await run('twilio_fetch_call', { AccountSid: ACCOUNT, Sid: 'CA0123456789abcdef0123456789abcdef' });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(res.fixes.map((f) => f.description)).toEqual(expect.arrayContaining([expect.stringMatching(/renamed the argument "AccountSid" to "account_sid"/)]));
  });
}

describe('real vendor OpenAPI documents behind Prism', () => {
  const prisms: SpawnedProcess[] = [];
  const ports = { twilio: 0, box: 0, digitalocean: 0 };
  let configFile = '';
  let expected = 0;

  beforeAll(async () => {
    const dir = scratchDir('e2e-real-catalogs');
    const [tw, box, dig] = await Promise.all([freePort(), freePort(), freePort()]);
    Object.assign(ports, { twilio: tw, box, digitalocean: dig });
    configFile = join(dir, 'cloud.yaml');
    writeFileSync(configFile, cloudConfig(ports, dir));
    const started = Date.now();
    // Prism reads each document once at start; three in parallel take ~70 s on a loaded 2-core machine.
    const counts = await Promise.all([
      ...(Object.keys(DOCS) as Array<keyof typeof DOCS>).map(async (alias) => {
        prisms.push(await spawnProcess(process.execPath, [PRISM_ENTRY, 'mock', '-h', '127.0.0.1', '-p', String(ports[alias]), '--errors', DOCS[alias]], { readyPattern: /Prism is listening/, timeoutMs: 240_000 }));
        return 0;
      }),
      ...Object.values(DOCS).map((d) => operationCount(d)),
    ]);
    expected = counts.reduce((a, b) => a + b, 0);
    process.stdout.write(`real-catalogs: Prism ready for 3 documents in ${Date.now() - started} ms; ${expected} operations\n`);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(prisms.map((p) => p.kill('SIGTERM')));
  });

  describe('NATS mode (every part a process)', () => {
    let natsServer: NatsServerHandle | undefined;
    let registry: RegistryProcess;
    let dispatcher: SpawnedProcess;
    let adapter: SpawnedProcess;
    let agent: AgentClient;

    beforeAll(async () => {
      natsServer = await startNatsServer();
      const nats = natsServer.url;
      let started: { proc: SpawnedProcess; address: string };
      [registry, started] = await Promise.all([startRegistry(nats, await mongoUrl(), 'real-catalogs'), startDispatcherProcess(nats)]);
      dispatcher = started.proc;
      agent = connectAgent(started.address);
      adapter = await startApp('adapter-cloud', { NATS_URL: nats, TOOLHUB_CLOUD_CONFIG: configFile, ...CREDENTIALS }, /adapter-cloud ready/, 120_000);
      // (GetCatalogStatus, not ListRegisteredTools: 1,150 definitions are more than one 4 MiB gRPC reply.)
      // 'synced': stored and indexed (while 'receiving', toolCount is what the adapter announced).
      await waitFor(async () => isSynced(await registry.admin.getCatalogStatus('cloud'), expected), { timeoutMs: 180_000, intervalMs: 1000, message: 'the whole cloud catalog stored and indexed in the registry' });
    }, 300_000);

    afterAll(async () => {
      agent?.close();
      await adapter?.kill('SIGTERM');
      await dispatcher?.kill('SIGTERM');
      await registry?.stop();
      await natsServer?.dispose();
    });

    it('logs one line per quarantined document and never a credential', () => {
      expect(adapter.output()).toMatch(/OpenAPI document quarantined/);
      for (const secret of Object.values(CREDENTIALS).slice(1)) expect(adapter.output()).not.toContain(secret);
    });

    realCatalogChecks('nats', () => agent, () => registry.admin as AdminClient, () => expected);
  });

  describe('one-process mode', () => {
    let toolhub: SpawnedProcess;
    let agent: AgentClient;
    let admin: AdminClient;

    beforeAll(async () => {
      const [grpcPort, adminPort] = await Promise.all([freePort(), freePort()]);
      toolhub = await startApp(
        'toolhub',
        { TOOLHUB_GRPC_PORT: String(grpcPort), TOOLHUB_MCP_PORT: '0', TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: String(adminPort), TOOLHUB_DATA_DIR: scratchDir('e2e-real-one'), TOOLHUB_CLOUD_CONFIG: configFile, LOG_LEVEL: 'warn', ...CREDENTIALS },
        /Press Ctrl-C to stop/,
        180_000,
      );
      agent = connectAgent(`127.0.0.1:${grpcPort}`);
      admin = adminClient(`127.0.0.1:${adminPort}`);
      await waitFor(async () => isSynced(await admin.getCatalogStatus('cloud'), expected), { timeoutMs: 180_000, intervalMs: 1000, message: 'the cloud catalog stored and indexed in the embedded registry' });
    }, 300_000);

    afterAll(async () => {
      agent?.close();
      admin?.close();
      await toolhub?.kill('SIGTERM');
    });

    realCatalogChecks('one', () => agent, () => admin, () => expected);
  });
});
