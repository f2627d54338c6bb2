/**
 * A registry restarted while adapters changed, every part in its own process over a real
 * nats-server: the registry (on MongoDB), the dispatcher, adapter-mcp as provider `shifty` (the
 * fixture MCP server, tools fx_pid and fx_cancellations) and adapter-local (provider `local`).
 * The registry stops; shifty restarts with fx_pid and fx_fail (its announcement is lost: no
 * registry listens) and adapter-local stops for good. The restarted registry (resync grace 5 s)
 * must sync shifty's new catalog and, after the grace period, retire local's stored catalog: no
 * stale tool is listed, found or described any more, by the registry or through the dispatcher.
 */
import { status } from '@grpc/grpc-js';
import { mongoUrl, type NatsServerHandle, scratchDir, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { type AgentClient, connectAgent, FIXTURE_SERVER, type RegistryProcess, startApp, startDispatcherProcess, startRegistry } from './support/stack';

jest.setTimeout(240_000);

const GRACE_MS = 5000;

function shiftyConfig(dir: string, tools: string[]): string {
  const file = join(dir, `shifty-${tools.join('-')}.yaml`);
  writeFileSync(file, ['provider: shifty', 'servers:', `  - { alias: fx, transport: stdio, command: node, args: ["${FIXTURE_SERVER}"], mount: test/fixture, include: [${tools.join(', ')}] }`, ''].join('\n'));
  return file;
}

describe('registry restart while an adapter changed its catalog and another went away', () => {
  let natsServer: NatsServerHandle;
  let nats: string;
  let mongo: string;
  let registry: RegistryProcess | undefined;
  let dispatcher: SpawnedProcess | undefined;
  let shifty: SpawnedProcess | undefined;
  let local: SpawnedProcess | undefined;
  let agent: AgentClient;
  let configDir: string;

  const registered = async (provider: string) => (await registry!.admin.listRegisteredTools(provider)).map((t) => t.tool?.name ?? '').sort();
  const searchIds = async (query: string) => (await agent.searchTools({ queries: [query], limit: 20 })).hits.map((h) => h.id);
  const infoCode = (provider: string, name: string) =>
    agent.getToolInfo({ provider, name }).then(
      () => status.OK,
      (err: { code: number }) => err.code,
    );

  beforeAll(async () => {
    // A private nats-server: this test stops and restarts apps on it.
    natsServer = await startNatsServer();
    nats = natsServer.url;
    mongo = await mongoUrl();
    configDir = scratchDir('e2e-registry-restart');
    const root = scratchDir('e2e-registry-restart-root');
    let started: { proc: SpawnedProcess; address: string };
    [registry, started] = await Promise.all([startRegistry(nats, mongo, 'restart', { env: { TOOLHUB_RESYNC_GRACE: `${GRACE_MS}ms` } }), startDispatcherProcess(nats)]);
    dispatcher = started.proc;
    agent = connectAgent(started.address);
    [shifty, local] = await Promise.all([
      startApp('adapter-mcp', { NATS_URL: nats, TOOLHUB_MCP_CONFIG: shiftyConfig(configDir, ['pid', 'cancellations']) }, /adapter-mcp ready/),
      startApp('adapter-local', { NATS_URL: nats, TOOLHUB_LOCAL_ROOT: root }, /adapter-local ready/),
    ]);
    await waitFor(async () => ((await registered('shifty')).join() === 'fx_cancellations,fx_pid' ? true : undefined), { timeoutMs: 60_000, intervalMs: 250, message: "shifty's first catalog in the registry" });
    await waitFor(async () => ((await registered('local')).includes('math_calculate') ? true : undefined), { timeoutMs: 60_000, intervalMs: 250, message: "local's catalog in the registry" });
  }, 180_000);

  afterAll(async () => {
    agent?.close();
    await Promise.allSettled([shifty?.kill('SIGTERM'), local?.kill('SIGTERM'), dispatcher?.kill('SIGTERM')]);
    await registry?.stop();
    await natsServer?.dispose();
  });

  it('serves no stale tool after the grace period: the changed catalog is synced and the vanished adapter retired', async () => {
    // Agents have seen the tools that are about to go (the dispatcher caches their info).
    expect(await infoCode('shifty', 'fx_cancellations')).toBe(status.OK);
    expect(await infoCode('local', 'math_calculate')).toBe(status.OK);

    await registry!.halt();
    await Promise.all([shifty!.kill('SIGTERM'), local!.kill('SIGTERM')]);
    local = undefined;
    shifty = await startApp('adapter-mcp', { NATS_URL: nats, TOOLHUB_MCP_CONFIG: shiftyConfig(configDir, ['pid', 'fail']) }, /adapter-mcp ready/);

    const restartedAt = Date.now();
    registry = await startRegistry(nats, mongo, 'restart', { restartOf: registry, env: { TOOLHUB_RESYNC_GRACE: `${GRACE_MS}ms` } });

    // The live adapter answers the resync: its vanished tool goes, its new one comes.
    await waitFor(async () => ((await registered('shifty')).join() === 'fx_fail,fx_pid' ? true : undefined), { timeoutMs: 60_000, intervalMs: 250, message: "shifty's changed catalog after the restart" });
    // The stopped adapter's stored catalog is retired, once the grace period has passed.
    const retired = await waitFor(async () => {
      const s = await registry!.admin.getCatalogStatus('local');
      return s?.state === 'retired' ? s : undefined;
    }, { timeoutMs: 90_000, intervalMs: 250, message: "local's stored catalog retired" });
    expect(Number(retired.updatedUnixMs)).toBeGreaterThanOrEqual(restartedAt + GRACE_MS);
    expect(retired.error).toMatch(/grace period/);
    expect(await registered('local')).toEqual([]);
    expect(await registered('shifty')).toEqual(['fx_fail', 'fx_pid']);

    // Agents: nothing stale is found or described; the new tool is.
    await waitFor(async () => ((await searchIds('calculate a math expression')).some((id) => id.startsWith('local:')) ? undefined : true), { timeoutMs: 30_000, intervalMs: 250, message: 'local tools gone from search' });
    expect(await searchIds('how many calls were cancelled by the client')).not.toContain('shifty:fx_cancellations');
    expect(await searchIds('always reports an error')).toContain('shifty:fx_fail');
    await waitFor(async () => ((await infoCode('shifty', 'fx_cancellations')) === status.NOT_FOUND ? true : undefined), { timeoutMs: 30_000, intervalMs: 250, message: 'fx_cancellations info gone' });
    // Neither the registry nor any adapter knows it now: an unknown provider, as for any name.
    await waitFor(async () => ((await infoCode('local', 'math_calculate')) === status.NOT_FOUND ? true : undefined), { timeoutMs: 30_000, intervalMs: 250, message: 'math_calculate info gone' });
    expect(await infoCode('shifty', 'fx_fail')).toBe(status.OK);
  });
});
