/**
 * Identity and grants on both gRPC APIs, through real servers: credentials (none, API key, revoked
 * key, JWT with the wrong audience, expired JWT), roles (an agent cannot use the admin API), grants
 * (a hidden tool is invisible in list, search, info and preload, RunTool on it is NOT_FOUND, a
 * hidden fallback is skipped), the audit log of admin changes, and what search learned from use
 * (operators only).
 */
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { type AdapterService, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { Authenticator, Grants, hashApiKey } from '@toolhub/auth';
import { InProcessBus } from '@toolhub/bus';
import { PreloadFormat, RegistryAdminClient, ToolHubClient, ToolHubError } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Registry, type RunningAdminServer, startAdminServer } from '../src';
import { waitFor } from '@toolhub/test-harness';

type Raw = Record<string, (...a: unknown[]) => void> & { close(): void };
interface Failure {
  code: number;
  details: string;
}

/** Calls `method` with `auth` metadata; resolves with the response or rejects with the gRPC error. */
function invoke(raw: Raw, method: string, req: unknown, auth: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const md = new Metadata();
  for (const [k, v] of Object.entries(auth)) md.set(k, v);
  return new Promise((resolve, reject) => raw[method]!.call(raw, req, md, { deadline: Date.now() + 10_000 }, (err: unknown, res: Record<string, unknown>) => (err ? reject(err) : resolve(res))));
}

async function failure(p: Promise<unknown>): Promise<Failure> {
  try {
    await p;
  } catch (err) {
    return err as Failure;
  }
  throw new Error('expected the call to fail');
}

const schema = { type: 'object', properties: { text: { type: 'string' } } };
const tools: ToolDefinition<never>[] = [
  { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: schema, run: async (a: { text?: string }) => textResult(a.text ?? '') },
  { name: 'secret_dump', path: 'secret', description: 'Dumps the vault of secrets.', inputSchema: schema, run: async () => textResult('all the secrets') },
  {
    name: 'broken_echo',
    path: 'text',
    description: 'Echoes text, but its backend is down.',
    inputSchema: schema,
    run: async () => {
      throw ToolHubError.failed('backend answered 500');
    },
  },
];
const backupTools: ToolDefinition<never>[] = [{ name: 'backup_echo', path: '', description: 'Echoes text from the backup provider.', inputSchema: schema, run: async () => textResult('from backup') }];

const rpcReq = {
  list: { provider: 'local', path: '', recursive: true, pageSize: 0, pageToken: '' },
  search: (q: string) => ({ queries: [q], provider: '', path: '', limit: 10, mode: 0, explain: false }),
  run: (provider: string, name: string) => ({ provider, name, arguments: { text: 'hi' }, timeoutMs: 5000, idempotencyKey: '', expectedVersion: '', caller: 'agent-17', searchId: '' }),
};

describe('auth on the agent and admin APIs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhub-auth-e2e-'));
  let bus: InProcessBus;
  let store: EmbeddedRegistryStore;
  let registry: Registry;
  let admin: RunningAdminServer;
  let adapters: AdapterService[];
  let dispatcher: RunningDispatcher;
  let authenticator: Authenticator;
  let grants: Grants;
  const grantsFile = join(dir, 'grants.json');
  const agentGrants = { roles: { agent: { allow: ['local:*'], deny: ['local:secret/**'] }, operator: { allow: ['*'] } } };
  let agentApi: Raw;
  let adminApi: Raw;
  let sign: (opts: { aud?: string; exp?: number | string; roles?: string[] }) => Promise<string>;
  const agentKey = { authorization: 'Bearer agent-key-0123456789abcdef' };
  const opsKey = { 'x-api-key': 'ops-key-0123456789abcdef' };

  beforeAll(async () => {
    writeFileSync(
      join(dir, 'keys.json'),
      JSON.stringify({
        keys: [
          { name: 'fleet', sha256: hashApiKey('agent-key-0123456789abcdef'), roles: ['agent'] },
          { name: 'ops', sha256: hashApiKey('ops-key-0123456789abcdef'), roles: ['operator'] },
          { name: 'old', sha256: hashApiKey('old-key-0123456789abcdef'), roles: ['agent'], revoked: true },
        ],
      }),
    );
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] }));
    sign = ({ aud = 'toolhub', exp = '1h', roles = ['agent'] }) =>
      new SignJWT({ roles }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer('https://idp.test').setSubject('bot-1').setAudience(aud).setIssuedAt().setExpirationTime(exp).sign(privateKey);
    authenticator = Authenticator.create({ apiKeysPath: join(dir, 'keys.json'), jwt: { issuer: 'https://idp.test', audience: 'toolhub', jwks: join(dir, 'jwks.json') } });
    writeFileSync(grantsFile, JSON.stringify(agentGrants));
    grants = Grants.load(grantsFile, { reloadIntervalMs: 50 });

    bus = new InProcessBus();
    store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
    registry = await Registry.start(bus, store);
    admin = await startAdminServer(registry, { port: 0, authenticator });
    adapters = [await serveAdapter(bus, { provider: 'local', ...staticCatalog('local', tools) }), await serveAdapter(bus, { provider: 'backup', ...staticCatalog('backup', backupTools) })];
    dispatcher = await startDispatcher(bus, { grpc: { port: 0, authenticator }, dispatcher: { warmCoreTools: false, maxAttempts: 1 }, deps: { grants } });
    agentApi = new ToolHubClient(dispatcher.grpc.address, credentials.createInsecure()) as unknown as Raw;
    adminApi = new RegistryAdminClient(admin.address, credentials.createInsecure()) as unknown as Raw;
    const end = Date.now() + 10_000;
    while ((await store.listTools()).length < 4 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await invoke(adminApi, 'setPreloadList', { toolIds: ['local:echo_text', 'local:secret_dump'], expectedRevision: 0, changedBy: 'ignored', comment: 'first list' }, opsKey);
    await invoke(adminApi, 'setFallbacks', { toolId: 'local:broken_echo', fallbacks: ['backup:backup_echo'] }, opsKey);
  });

  afterAll(async () => {
    agentApi.close();
    adminApi.close();
    await dispatcher.close(100);
    for (const a of adapters) await a.close();
    await admin.close(100);
    await registry.close();
    await store.close();
    await bus.close();
    authenticator.close();
    grants.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('credentials', () => {
    it.each([
      ['the agent API', () => agentApi, 'listTools', rpcReq.list],
      ['the admin API', () => adminApi, 'getPreloadList', {}],
    ])('%s refuses a call without credentials as UNAUTHENTICATED, saying what to send', async (_api, api, method, req) => {
      const err = await failure(invoke(api(), method, req));
      expect(err.code).toBe(status.UNAUTHENTICATED);
      expect(err.details).toMatch(/authorization: Bearer/);
    });

    it('refuses a revoked API key, an unknown key, a JWT for another audience and an expired JWT on both APIs', async () => {
      const expired = await sign({ exp: Math.floor(Date.now() / 1000) - 600, roles: ['operator'] });
      const otherAud = await sign({ aud: 'someone-else', roles: ['operator'] });
      for (const [api, method, req] of [
        [agentApi, 'listTools', rpcReq.list],
        [adminApi, 'getPreloadList', {}],
      ] as const) {
        expect(await failure(invoke(api, method, req, { authorization: 'Bearer old-key-0123456789abcdef' }))).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/"old" was revoked/) });
        expect((await failure(invoke(api, method, req, { 'x-api-key': 'guessed' }))).code).toBe(status.UNAUTHENTICATED);
        expect(await failure(invoke(api, method, req, { authorization: `Bearer ${otherAud}` }))).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/another audience/) });
        expect(await failure(invoke(api, method, req, { authorization: `Bearer ${expired}` }))).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/expired/) });
      }
    });

    it('accepts a valid JWT and keys limits and statistics to the principal, with caller as a label under it', async () => {
      const token = await sign({});
      const res = await invoke(agentApi, 'runTool', rpcReq.run('local', 'echo_text'), { authorization: `Bearer ${token}` });
      expect(res['servedBy']).toBe('local:echo_text');
    });
  });

  describe('roles', () => {
    it('refuses an operator-only RPC to an agent (API key and JWT) with PERMISSION_DENIED', async () => {
      const err = await failure(invoke(adminApi, 'setEnabled', { toolId: 'local:echo_text', enabled: false }, agentKey));
      expect(err.code).toBe(status.PERMISSION_DENIED);
      expect(err.details).toMatch(/needs the operator or admin role; key:fleet has agent/);
      expect((await failure(invoke(adminApi, 'listToolStats', { sort: 0, limit: 5, provider: '' }, { authorization: `Bearer ${await sign({})}` }))).code).toBe(status.PERMISSION_DENIED);
      expect((await invoke(adminApi, 'getTool', { provider: 'local', name: 'echo_text' }, opsKey))['tool']).toMatchObject({ overlay: { enabled: true } });
    });
  });

  describe('a grant miss', () => {
    it('hides the tool from list, categories and counts', async () => {
      const res = await invoke(agentApi, 'listTools', rpcReq.list, agentKey);
      const names = (res['tools'] as Array<{ name: string }>).map((t) => t.name).sort();
      expect(names).toEqual(['broken_echo', 'echo_text']);
      const root = await invoke(agentApi, 'listTools', { provider: 'local', path: '', recursive: false, pageSize: 0, pageToken: '' }, agentKey);
      expect((root['categories'] as Array<{ path: string; toolCount: number }>).map((c) => [c.path, c.toolCount])).toEqual([['text', 2]]);
      const providers = await invoke(agentApi, 'listTools', { provider: '', path: '', recursive: false, pageSize: 0, pageToken: '' }, agentKey);
      expect(providers['categories']).toEqual([{ path: '', name: 'local', toolCount: 2 }]);
      // An operator sees all of it.
      const all = await invoke(agentApi, 'listTools', rpcReq.list, opsKey);
      expect((all['tools'] as unknown[]).length).toBe(3);
    });

    it('leaves no search hit or suggestion of it', async () => {
      const ops = await invoke(agentApi, 'searchTools', rpcReq.search('dump the vault of secrets'), opsKey);
      expect((ops['hits'] as Array<{ id: string }>)[0]?.id).toBe('local:secret_dump');
      const res = await invoke(agentApi, 'searchTools', rpcReq.search('dump the vault of secrets'), agentKey);
      expect(JSON.stringify(res)).not.toMatch(/secret|backup/);
      const typo = await invoke(agentApi, 'searchTools', rpcReq.search('secret_dumb'), agentKey);
      expect(JSON.stringify(typo)).not.toMatch(/secret_dump|local:secret\//);
    });

    it('answers tool info and RunTool with the same NOT_FOUND as a tool that does not exist', async () => {
      const hidden = await failure(invoke(agentApi, 'getToolInfo', { provider: 'local', name: 'secret_dump' }, agentKey));
      const missing = await failure(invoke(agentApi, 'getToolInfo', { provider: 'local', name: 'secret_dunp' }, agentKey));
      expect(hidden.code).toBe(status.NOT_FOUND);
      expect(missing.code).toBe(status.NOT_FOUND);
      expect(hidden.details.replace('secret_dump', 'X')).toBe(missing.details.replace('secret_dunp', 'X'));
      const run = await failure(invoke(agentApi, 'runTool', rpcReq.run('local', 'secret_dump'), agentKey));
      expect(run.code).toBe(status.NOT_FOUND);
      expect(run.details).not.toMatch(/all the secrets/);
    });

    it('leaves it out of the preload set, which stays byte-stable per view with its own fingerprint', async () => {
      const format = { format: PreloadFormat.PRELOAD_FORMAT_COMPACT };
      const agentSet = await invoke(agentApi, 'getPreloadSet', format, agentKey);
      const again = await invoke(agentApi, 'getPreloadSet', format, { authorization: `Bearer ${await sign({})}` });
      const opsSet = await invoke(agentApi, 'getPreloadSet', format, opsKey);
      expect(String(agentSet['rendered'])).not.toContain('secret_dump');
      expect(String(opsSet['rendered'])).toContain('secret_dump');
      expect(again['rendered']).toBe(agentSet['rendered']);
      expect(again['fingerprint']).toBe(agentSet['fingerprint']);
      expect(agentSet['fingerprint']).not.toBe(opsSet['fingerprint']);
    });

    it('skips a fallback outside the grant', async () => {
      const ops = await invoke(agentApi, 'runTool', rpcReq.run('local', 'broken_echo'), opsKey);
      expect(ops['servedBy']).toBe('backup:backup_echo');
      const agent = await invoke(agentApi, 'runTool', rpcReq.run('local', 'broken_echo'), agentKey).catch((err: Failure) => err);
      expect(JSON.stringify(agent)).not.toMatch(/backup/);
    });
  });

  describe('a grants file changed while serving', () => {
    const agentTools = async () => ((await invoke(agentApi, 'listTools', rpcReq.list, agentKey))['tools'] as Array<{ name: string }>).map((t) => t.name).sort();
    /** Polls the agent's tool list until `want` (the reload interval is 50 ms; the deadline is for a busy machine). */
    async function until(want: string[]): Promise<string[]> {
      let names: string[] = [];
      await waitFor(async () => JSON.stringify((names = await agentTools())) === JSON.stringify(want), { timeoutMs: 20_000, intervalMs: 50, message: `the agent to see ${want.join(', ')}` });
      return names;
    }

    it('takes effect on the next calls without a restart, and a broken file keeps the grants in force', async () => {
      expect(await agentTools()).toEqual(['broken_echo', 'echo_text']);
      writeFileSync(grantsFile, JSON.stringify({ roles: { ...agentGrants.roles, agent: { allow: ['local:*'], deny: ['local:secret/**', 'local:echo_text'] } } }));
      expect(await until(['broken_echo'])).toEqual(['broken_echo']);
      expect((await failure(invoke(agentApi, 'runTool', rpcReq.run('local', 'echo_text'), agentKey))).code).toBe(status.NOT_FOUND);
      expect((await invoke(agentApi, 'runTool', rpcReq.run('local', 'echo_text'), opsKey))['servedBy']).toBe('local:echo_text');

      writeFileSync(grantsFile, '{ "roles": { "agent": { "allow": ["billing/**"] } } }');
      expect(grants.reload()).toBe(false);
      expect(await agentTools()).toEqual(['broken_echo']);

      writeFileSync(grantsFile, JSON.stringify(agentGrants));
      expect(await until(['broken_echo', 'echo_text'])).toEqual(['broken_echo', 'echo_text']);
    });
  });

  describe('audit log', () => {
    it('records each admin change with the principal, the action, before and after; changed_by is the principal', async () => {
      await invoke(adminApi, 'setEnabled', { toolId: 'local:echo_text', enabled: false }, opsKey);
      await invoke(adminApi, 'setEnabled', { toolId: 'local:echo_text', enabled: true }, { authorization: `Bearer ${await sign({ roles: ['admin'] })}` });
      const res = await invoke(adminApi, 'listAuditLog', { target: '', principal: '', beforeUnixMs: 0, limit: 100 }, opsKey);
      // Refused and failed calls are audited too (next test); here the changes.
      const entries = (res['entries'] as Array<{ principal: string; action: string; target: string; beforeJson: string; afterJson: string; roles: string[] }>).filter((e) => !/^(refused|failed):/.test(e.action));
      expect(entries.map((e) => [e.principal, e.action, e.target])).toEqual([
        ['jwt:https://idp.test#bot-1', 'SetEnabled', 'local:echo_text'],
        ['key:ops', 'SetEnabled', 'local:echo_text'],
        ['key:ops', 'SetFallbacks', 'local:broken_echo'],
        ['key:ops', 'SetPreloadList', 'preload'],
      ]);
      expect(JSON.parse(entries[1]!.beforeJson)).toMatchObject({ enabled: true });
      expect(JSON.parse(entries[1]!.afterJson)).toMatchObject({ enabled: false });
      expect(JSON.parse(entries[3]!.afterJson)).toMatchObject({ changedBy: 'key:ops', toolIds: ['local:echo_text', 'local:secret_dump'] });
      expect(entries[0]!.roles).toEqual(['admin']);
      const forAgent = await failure(invoke(adminApi, 'listAuditLog', { target: '', principal: '', beforeUnixMs: 0, limit: 10 }, agentKey));
      expect(forAgent.code).toBe(status.PERMISSION_DENIED);
    });
  });

  describe('audit of refused and failed admin calls', () => {
    type Entry = { principal: string; action: string; comment: string; beforeJson: string; afterJson: string };
    const audit = async (): Promise<Entry[]> => (await invoke(adminApi, 'listAuditLog', { target: '', principal: '', beforeUnixMs: 0, limit: 200 }, opsKey))['entries'] as Entry[];

    it('records a call without credentials, one with the wrong role and one that failed, each with its reason', async () => {
      await failure(invoke(adminApi, 'setPreloadList', { toolIds: [], expectedRevision: 0, changedBy: '', comment: '' }));
      await failure(invoke(adminApi, 'setImportance', { toolId: 'local:echo_text', importance: 1 }, agentKey));
      await failure(invoke(adminApi, 'setEnabled', { toolId: 'local:no_such_tool', enabled: false }, opsKey));
      const entries = await waitFor(async () => {
        const all = await audit();
        const wanted = [
          all.find((e) => e.action === 'refused:SetPreloadList' && e.principal === '(unauthenticated)' && /^unauthenticated: /.test(e.comment)),
          all.find((e) => e.action === 'refused:SetImportance' && e.principal === 'key:fleet' && /^permission_denied: .*needs the operator or admin role/.test(e.comment)),
          all.find((e) => e.action === 'failed:SetEnabled' && e.principal === 'key:ops' && /^not_found: /.test(e.comment)),
        ];
        return wanted.every(Boolean) ? wanted : undefined;
      });
      expect(entries).toHaveLength(3);
    });

    it('records the before-state of ImportOverlays: the overlays of the tools the file names and the preload list', async () => {
      const content = JSON.stringify({ tools: { 'local:backup_missing_ok': undefined, 'local:echo_text': { importance: 'core' } }, preload: ['local:echo_text'] });
      await invoke(adminApi, 'importOverlays', { content, format: 'json', changedBy: '', dryRun: false }, opsKey);
      const entry = await waitFor(async () => (await audit()).find((e) => e.action === 'ImportOverlays'));
      const before = JSON.parse(entry.beforeJson) as { tools: Record<string, { importance?: unknown; enabled?: boolean } | null>; preload: string[] };
      expect(before.tools['local:echo_text']).toMatchObject({ enabled: true });
      expect(before.preload).toEqual(['local:echo_text', 'local:secret_dump']);
      expect(JSON.parse(entry.afterJson)).toMatchObject({ toolIds: ['local:echo_text'], preloadChanged: true });
    });
  });

  describe('search learning', () => {
    it('shows operators which tool an agent ran after which query, and refuses the list to agents', async () => {
      const found = await invoke(agentApi, 'searchTools', rpcReq.search('echo text back'), agentKey);
      expect(found['searchId']).toEqual(expect.any(String));
      const run = await invoke(agentApi, 'runTool', { ...rpcReq.run('local', 'echo_text'), searchId: found['searchId'] }, agentKey);
      expect(run['servedBy']).toBe('local:echo_text');
      // The registry learns once the run's tool.called event is counted (batched): wait for it, bounded.
      const ask = () => invoke(adminApi, 'listSearchLearning', { provider: 'local', limit: 10 }, opsKey);
      let learned = await ask();
      for (const end = Date.now() + 15_000; (learned['entries'] as unknown[]).length === 0 && Date.now() < end; learned = await ask()) await new Promise((r) => setTimeout(r, 50));
      expect(learned).toMatchObject({ enabled: true, total: 1, maxPerProvider: 2000, halfLifeMs: 7 * 24 * 3600_000, maxBoost: 0.5 });
      const entries = learned['entries'] as Array<{ query: string; toolId: string; provider: string; name: string; atUnixMs: number; weight: number }>;
      expect(entries).toEqual([{ query: 'echo text back', toolId: 'local:echo_text', provider: 'local', name: 'echo_text', atUnixMs: expect.any(Number), weight: expect.any(Number) }]);
      expect(entries[0]!.weight).toBeGreaterThan(0.99);
      expect(entries[0]!.weight).toBeLessThanOrEqual(1);
      expect((await invoke(adminApi, 'listSearchLearning', { provider: 'backup', limit: 0 }, opsKey))).toMatchObject({ enabled: true, total: 0, entries: [] });

      const forAgent = await failure(invoke(adminApi, 'listSearchLearning', { provider: '', limit: 0 }, agentKey));
      expect(forAgent.code).toBe(status.PERMISSION_DENIED);
      expect(forAgent.details).toMatch(/needs the operator or admin role/);
    });
  });
});
