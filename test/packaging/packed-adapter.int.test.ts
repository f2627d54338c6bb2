/**
 * An adapter team's path, outside the monorepo: the packed tarballs of @toolhub/adapter-sdk,
 * @toolhub/bus, @toolhub/contracts and @toolhub/adapter-conformance installed with npm into a temporary folder (no workspace
 * links), a 36-line adapter compiled with plain tsc, run with node against a real nats-server,
 * beside the real dispatcher and registry. The agent sees it in ListProviders, lists and runs its
 * tools, its calls are counted, and each error kind arrives with its own code (an adapter's own
 * copy of ToolHubError used to arrive as "internal"), and `npx @toolhub/adapter-conformance` passes it.
 */
import { status } from '@grpc/grpc-js';
import { CONTRACT_VERSION, ErrorCode, RunStatus } from '@toolhub/contracts';
import { mongoUrl, natsUrl, scratchDir, spawnProcess, type SpawnedProcess, waitFor } from '@toolhub/test-harness';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { cliRunner } from '../../libs/cli/test/support/run-cli';
import { connectAgent, failure, type AgentClient, type RegistryProcess, startDispatcherProcess, startRegistry } from '../e2e/support/stack';
import { compileFixture, installPacked, packPackages, timings } from './support/packages';

jest.setTimeout(120_000);

const run = promisify(execFile);

describe('an adapter built from the packed npm packages, outside the workspace', () => {
  const provider = `team_${randomUUID().slice(0, 8)}`;
  let dir: string;
  let adapter: SpawnedProcess | undefined;
  let dispatcher: { proc: SpawnedProcess; address: string } | undefined;
  let registry: RegistryProcess | undefined;
  let agent: AgentClient;
  let nats: string;
  let tarballs: Record<string, string>;

  beforeAll(async () => {
    tarballs = await packPackages();
    dir = scratchDir('packed-adapter');
    await installPacked(dir, tarballs, { '@opentelemetry/api': '^1.9.0', '@types/node': '^20.19.0' });
    await compileFixture(join(__dirname, 'fixtures', 'team-adapter'), dir);
    nats = await natsUrl();
    registry = await startRegistry(nats, await mongoUrl(), 'packed');
    dispatcher = await startDispatcherProcess(nats);
    adapter = await spawnProcess(process.execPath, [join(dir, 'dist', 'main.js')], { cwd: dir, env: { NATS_URL: nats, PROVIDER: provider }, readyPattern: /adapter .* ready/, timeoutMs: 30_000 });
    agent = connectAgent(dispatcher.address);
    await waitFor(async () => (await agent.listProviders({})).providers.some((p) => p.provider === provider), { timeoutMs: 15_000, message: 'the adapter in ListProviders' });
  }, 600_000);

  afterAll(async () => {
    agent?.close();
    await adapter?.kill('SIGTERM');
    await dispatcher?.proc.kill('SIGTERM');
    await registry?.stop();
    console.log(`packed adapter: ${Object.entries(timings).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}`);
  });

  it('installs real copies of the packages, not links into the workspace', () => {
    for (const name of ['adapter-sdk', 'bus', 'contracts']) {
      const pkgDir = join(dir, 'node_modules', '@toolhub', name);
      expect(lstatSync(pkgDir).isSymbolicLink()).toBe(false);
      expect(existsSync(join(pkgDir, 'dist', 'index.d.ts'))).toBe(true);
      expect(existsSync(join(pkgDir, 'src'))).toBe(false);
    }
    expect(JSON.parse(readFileSync(join(dir, 'node_modules', '@toolhub', 'adapter-sdk', 'package.json'), 'utf8'))).toMatchObject({
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      dependencies: { '@toolhub/contracts': expect.any(String), '@toolhub/bus': expect.any(String) },
    });
  });

  it('shows up in ListProviders with its contract and SDK versions', async () => {
    const p = (await agent.listProviders({})).providers.find((x) => x.provider === provider);
    expect(p).toMatchObject({ healthy: true, incompatible: false, toolCount: 5, contractVersion: CONTRACT_VERSION, sdkVersion: expect.stringMatching(/^@toolhub\/adapter-sdk@\d+\.\d+\.\d+$/) });
  });

  it('lists its categories and tools', async () => {
    const root = await agent.listTools({ provider });
    expect(root.categories.map((c) => c.path)).toEqual(['ops', 'people']);
    const people = await agent.listTools({ provider, path: 'people' });
    expect(people.tools.map((t) => t.name)).toEqual(['check_age', 'find_user', 'greet']);
  });

  it('runs a tool, and the registry counts the calls', async () => {
    const res = await agent.runTool({ provider, name: 'greet', arguments: { name: 'Ada' } });
    expect(res.status).toBe(RunStatus.RUN_STATUS_OK);
    expect(res.structured).toEqual({ greeting: 'Hello, Ada!' });
    await agent.runTool({ provider, name: 'greet', arguments: { name: 'Alan' } });
    await waitFor(async () => (await registry!.admin.getToolStats(`${provider}:greet`))?.calls === 2, { timeoutMs: 30_000, message: 'two greet calls in the statistics' });
    expect(await registry!.admin.getToolStats(`${provider}:greet`)).toMatchObject({ calls: 2, successes: 2 });
  });

  it("delivers the adapter's invalid_argument as INVALID_ARGUMENT with its field details", async () => {
    const err = await failure(agent.runTool({ provider, name: 'check_age', arguments: { age: -3 } }));
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.info).toMatchObject({ code: ErrorCode.ERROR_CODE_INVALID_ARGUMENT, message: 'age must be 0 or more, e.g. 30.', violations: [expect.objectContaining({ field: '/age' })] });
  });

  it("delivers the adapter's not_found as NOT_FOUND with its suggestions", async () => {
    const err = await failure(agent.runTool({ provider, name: 'find_user', arguments: { id: 'grace' } }));
    expect(err.code).toBe(status.NOT_FOUND);
    expect(err.info).toMatchObject({ code: ErrorCode.ERROR_CODE_NOT_FOUND, suggestions: ['ada', 'alan'] });
    expect(err.details).toContain('known users are ada and alan');
  });

  it('delivers a tool error as TOOL_ERROR with code FAILED and the tool message', async () => {
    const res = await agent.runTool({ provider, name: 'flaky_upstream' });
    expect(res.status).toBe(RunStatus.RUN_STATUS_TOOL_ERROR);
    expect(res.error).toMatchObject({ code: ErrorCode.ERROR_CODE_FAILED, message: 'The upstream API answered 503; try again in a minute.' });
  });

  it('passes the packed conformance kit, run with npx from the team folder', async () => {
    const args = ['--no-install', '@toolhub/adapter-conformance', '--nats', nats, '--provider', provider, '--run-tool', 'greet', '--run-args', '{"name":"Kit"}', '--slow-tool', 'slow_report'];
    const { stdout } = await run('npx', args, { cwd: dir, maxBuffer: 4 * 1024 * 1024 });
    expect(stdout).toMatch(/^deadline\.honoured\s+PASS/m);
    expect(stdout).toMatch(/\d+ passed, 0 failed, 2 skipped/);
  });

  it('scaffolds an adapter with toolhub adapter init whose own tests pass on the packed packages', async () => {
    const scaffold = join(scratchDir('scaffold'), 'weather');
    const cli = await cliRunner({})(['adapter', 'init', scaffold, '--provider', 'weather']);
    expect(cli.code).toBe(0);
    // The scaffold names registry versions; here they come from the tarballs instead.
    const pkgFile = join(scaffold, 'package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    for (const deps of [pkg.dependencies, pkg.devDependencies]) for (const name of Object.keys(deps)) if (tarballs[name]) deps[name] = `file:${tarballs[name]}`;
    writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'], { cwd: scaffold, maxBuffer: 16 * 1024 * 1024 });
    const { stdout } = await run('npm', ['test'], { cwd: scaffold, maxBuffer: 16 * 1024 * 1024 });
    expect(stdout).toMatch(/# pass 2/);
    expect(stdout).toMatch(/# fail 0/);
  });

  it('delivers a run past its deadline as DEADLINE_EXCEEDED (timeout)', async () => {
    const err = await failure(agent.runTool({ provider, name: 'slow_report', timeoutMs: 1500 }, { deadlineMs: 20_000 }));
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    expect(err.info?.code).toBe(ErrorCode.ERROR_CODE_TIMEOUT);
  });
});
