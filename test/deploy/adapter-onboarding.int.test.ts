/**
 * A new adapter team, outside this repository, follows ADAPTERS.md word for word: the blocks
 * marked `<!-- test-block: … -->` there are read from the file and run as written.
 *
 * - ToolHub's packages (and the scaffold @toolhub/create-adapter) are packed and published with
 *   the page's commands to a local Verdaccio (from npm, no uplinks), beside the third-party
 *   packages they need (mirrored from this repository's lock); the team's npm sees only that
 *   registry (npm_config_registry) and an empty cache of its own.
 * - In a scratch folder: `npm create @toolhub/adapter …`, install, unit tests, build, start against
 *   a nats-server of the team's own, and the conformance kit.
 * - The operator issues the provider's NATS user (`toolhub nats add-provider`), adds it to the
 *   shipped deploy/nats/toolhub-auth.conf; a real nats-server runs that, the registry and the
 *   dispatcher connect as their own users, the adapter as its new one, and an agent's call is
 *   answered through the dispatcher.
 * - Refused (wrong password; another provider's user): one clear line and exit code 77.
 */
import { addUserToConfig } from '@toolhub/cli';
import { RunStatus } from '@toolhub/contracts';
import { ADAPTER_EXIT, SCAFFOLD_VERSIONS } from '@toolhub/create-adapter';
import { mongoUrl, type NatsServerHandle, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { connectAgent, type AgentClient, type RegistryProcess, startDispatcherProcess, startRegistry } from '../e2e/support/stack';
import { TARBALLS } from '../packaging/support/packages';
import { markedBlock, runBlock, runLine, stopTree } from './support/doc-commands';
import { lockClosure, packFromCache, publishAsIs, tarballManifest } from './support/registry-mirror';
import { type LocalRegistry, startVerdaccio } from './support/verdaccio';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const DOC = join(ROOT, 'ADAPTERS.md');
const SHIPPED_AUTH = join(ROOT, 'deploy', 'nats', 'toolhub-auth.conf');
const SHIPPED_USERS = ['dispatcher', 'registry', 'adapter_local', 'adapter_mcp', 'adapter_cloud', 'admin'];
const READY = /adapter \S+ ready/;

/** Step timings for the report. */
const timings: Record<string, number> = {};
async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await fn();
  } finally {
    timings[what] = Date.now() - started;
  }
}

/** This process's environment without anything NATS or npm: the team's shell starts from that. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) env[k] = /^(NATS_|npm_|NODE_OPTIONS$|JEST_|TOOLHUB_)/i.test(k) ? undefined : v;
  return { ...env, ...extra };
}

async function dropDatabase(url: string, name: string): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

/** `K=V` lines of a command's output. */
const envLines = (text: string) => Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));

describe('an adapter team onboarding from a registry, following ADAPTERS.md word for word', () => {
  let base: string;
  let registry: LocalRegistry | undefined;
  let teamNats: NatsServerHandle | undefined;
  let hubNats: NatsServerHandle | undefined;
  let toolhubRegistry: RegistryProcess | undefined;
  let dispatcher: { proc: SpawnedProcess; address: string } | undefined;
  let agent: AgentClient | undefined;
  const running: SpawnedProcess[] = [];
  let npmEnv: Record<string, string>;
  let project: string;
  let conformanceOutput = '';
  let issued: Record<string, string>;
  let operatorOutput = '';
  const passwords = Object.fromEntries(SHIPPED_USERS.map((u) => [u, `pw-${u}-${randomBytes(6).toString('hex')}`]));

  beforeAll(async () => {
    base = scratchDir('onboarding');
    // 1. ToolHub's side: start the registry, pack and publish ours as the page says, then mirror
    // what they need from elsewhere.
    registry = await timed('verdaccio', () => startVerdaccio(join(base, 'verdaccio')));
    await timed('pack + npm publish @toolhub/* (the page)', () =>
      runBlock(markedBlock(DOC, 'toolhub-publish'), { cwd: ROOT, env: cleanEnv({ npm_config_registry: registry!.url, npm_config_userconfig: registry!.npmrc }), readyPattern: READY }),
    );
    const tarballs = readdirSync(TARBALLS).filter((f) => f.endsWith('.tgz')).map((f) => join(TARBALLS, f));
    expect(tarballs.map((f) => tarballManifest(f).name).sort()).toEqual(['@toolhub/adapter-conformance', '@toolhub/adapter-sdk', '@toolhub/bus', '@toolhub/contracts', '@toolhub/create-adapter']);
    await timed('mirror third-party', async () => {
      const seeds = new Set<string>(['@opentelemetry/api', '@types/node', 'typescript']);
      for (const tgz of tarballs) {
        const m = tarballManifest(tgz) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
        for (const d of Object.keys({ ...m.dependencies, ...m.peerDependencies })) if (!d.startsWith('@toolhub/')) seeds.add(d);
      }
      const dest = join(base, 'mirror');
      mkdirSync(dest);
      const files = await packFromCache(lockClosure([...seeds]), dest);
      await Promise.all(files.map((f) => publishAsIs(registry!.url, registry!.token, f)));
    });
    // 2. The team's shell: only the local registry, an empty npm cache, its own nats-server.
    teamNats = await startNatsServer();
    npmEnv = { npm_config_registry: registry.url, npm_config_cache: join(base, 'team-npm-cache'), npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
    const team = join(base, 'team');
    mkdirSync(team);
    const { cwd, results, background } = await timed('team block (create, install, test, build, start, conformance)', () =>
      runBlock(markedBlock(DOC, 'adapter-team'), { cwd: team, env: cleanEnv({ ...npmEnv, NATS_URL: teamNats!.url }), readyPattern: READY, timeoutMs: 60_000 }),
    );
    project = cwd;
    conformanceOutput = results.find((r) => r.line.includes('conformance'))?.stdout ?? '';
    for (const p of background.splice(0)) await stopTree(p);

    // 3. The operator issues the provider's NATS user, in the ToolHub checkout.
    const [operatorLine, ...rest] = markedBlock(DOC, 'adapter-operator');
    expect(rest).toEqual([]);
    const op = await runLine(operatorLine!, ROOT, cleanEnv({}));
    expect(op).toMatchObject({ code: 0 });
    operatorOutput = op.stdout;
    issued = envLines(op.stdout);
    const entry = op.stdout.split('\n').find((l) => l.trimStart().startsWith('{ user: '));
    // …and adds the printed entry to the users list of the shipped config, as the page says.
    const conf = addUserToConfig(readFileSync(SHIPPED_AUTH, 'utf8'), issued['NATS_USER']!, entry!);
    const serverEnv = { ...Object.fromEntries(SHIPPED_USERS.map((u) => [`NATS_${u.toUpperCase()}_PASSWORD`, passwords[u]!])), ...Object.fromEntries(Object.entries(issued).filter(([k]) => /^NATS_.*_PASSWORD$/.test(k) && k !== 'NATS_PASSWORD')) };
    hubNats = await startNatsServer({ config: conf, env: serverEnv });
    const as = (user: string) => ({ NATS_USER: user, NATS_PASSWORD: passwords[user]!, NATS_INBOX_PREFIX: `_INBOX_${user}` });
    await timed('registry + dispatcher', async () => {
      [toolhubRegistry, dispatcher] = await Promise.all([startRegistry(hubNats!.url, await mongoUrl(), 'onboarding', { env: as('registry') }), startDispatcherProcess(hubNats!.url, as('dispatcher'))]);
    });
    agent = connectAgent(dispatcher!.address);
  }, 600_000);

  afterAll(async () => {
    agent?.close();
    for (const p of running) await stopTree(p);
    await dispatcher?.proc.kill('SIGTERM');
    // halt, not stop: stop() deletes its consumer as the shared NATS's admin, a user this server does not have.
    await toolhubRegistry?.halt();
    if (toolhubRegistry) await dropDatabase(await mongoUrl(), toolhubRegistry.dbName);
    await hubNats?.stop();
    await teamNats?.stop();
    await registry?.stop();
    console.log(`adapter onboarding: ${Object.entries(timings).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}`);
  });

  it('the registry has no uplink: a package nobody published here is not found', async () => {
    expect((await fetch(`${registry!.url}left-pad`)).status).toBe(404);
  });

  it('scaffolds a project that installed the published @toolhub packages at their exact versions', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['@toolhub/adapter-sdk']).toBe(SCAFFOLD_VERSIONS['@toolhub/adapter-sdk']);
    for (const [name, version] of Object.entries(SCAFFOLD_VERSIONS)) {
      const installed = JSON.parse(readFileSync(join(project, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')) as { version: string; main: string };
      expect({ name, version: installed.version, main: installed.main }).toEqual({ name, version, main: './dist/index.js' });
    }
  });

  it('scaffolds with npx @toolhub/create-adapter too, as the page says', async () => {
    const r = await runLine('npx --yes @toolhub/create-adapter billing-adapter --json', join(base, 'team'), cleanEnv(npmEnv));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ provider: 'billing', files: expect.arrayContaining(['src/main.ts', 'package.json']) });
  });

  it('passes the conformance kit', () => {
    expect(conformanceOutput).toMatch(/^heartbeat\s+PASS/m);
    expect(conformanceOutput).toMatch(/\d+ passed, 0 failed/);
  });

  it("issues the provider's NATS user: its own inbox, and a password nats-server reads from its environment", () => {
    expect(operatorOutput).toContain('deploy/nats/toolhub-auth.conf');
    expect(issued).toMatchObject({ NATS_USER: 'adapter_weather', NATS_INBOX_PREFIX: '_INBOX_adapter_weather', NATS_ADAPTER_WEATHER_PASSWORD: issued['NATS_PASSWORD'] });
  });

  it("starts with the issued user against ToolHub's NATS and answers an agent through the dispatcher", async () => {
    const [connectLine, ...rest] = markedBlock(DOC, 'adapter-connect');
    expect(rest).toEqual([]);
    const env = cleanEnv({ ...npmEnv, NATS_URL: hubNats!.url, NATS_USER: issued['NATS_USER']!, NATS_PASSWORD: issued['NATS_PASSWORD']!, NATS_INBOX_PREFIX: issued['NATS_INBOX_PREFIX']! });
    const adapter = await spawnProcess('bash', ['-c', `exec ${connectLine}`], { cwd: project, env, readyPattern: READY, timeoutMs: 60_000 });
    running.push(adapter);
    await waitFor(async () => (await agent!.listProviders({})).providers.some((p) => p.provider === 'weather' && p.healthy), { timeoutMs: 30_000, message: 'provider weather in ListProviders' });
    const res = await agent!.runTool({ provider: 'weather', name: 'weather_hello', arguments: { name: 'Ada' } });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(res.structured).toEqual({ greeting: 'Hello, Ada!' });
    expect(res.servedBy).not.toBe('');
    await waitFor(async () => (await toolhubRegistry!.admin.getToolStats('weather:weather_hello'))?.calls === 1, { timeoutMs: 30_000, message: 'the call counted by the registry' });
    expect(adapter.output()).not.toMatch(/may not|refused/);
  });

  it('says in one line that NATS refused a wrong password, and exits 77', async () => {
    const [connectLine] = markedBlock(DOC, 'adapter-connect');
    const env = cleanEnv({ ...npmEnv, NATS_URL: hubNats!.url, NATS_USER: issued['NATS_USER']!, NATS_PASSWORD: 'not-the-password', NATS_INBOX_PREFIX: issued['NATS_INBOX_PREFIX']! });
    const r = await runLine(connectLine!, project, env);
    expect(r.code).toBe(ADAPTER_EXIT.refused);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^adapter weather: NATS at nats:\/\/127\.0\.0\.1:\d+ refused user "adapter_weather": check NATS_USER and NATS_PASSWORD/)]);
  });

  it("says in one line that another provider's user may not serve weather, and exits 77", async () => {
    const [connectLine] = markedBlock(DOC, 'adapter-connect');
    const env = cleanEnv({ ...npmEnv, NATS_URL: hubNats!.url, NATS_USER: 'adapter_local', NATS_PASSWORD: passwords['adapter_local']!, NATS_INBOX_PREFIX: '_INBOX_adapter_local' });
    const r = await runLine(connectLine!, project, env);
    expect(r.code).toBe(ADAPTER_EXIT.refused);
    expect(r.stderr).toMatch(/^adapter weather: NATS user "adapter_local" may not subscribe to "toolhub\.v1\.adapter\.weather\.\w+": its permissions do not cover provider "weather"/m);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
