/**
 * Issue 31, item 5, above NATS: the registry and the dispatcher take a catalog announcement or a
 * heartbeat only when the provider in its subject (which NATS permissions bind to the sender's
 * user) is the provider in its payload. A mismatch is refused, logged and counted in the metrics;
 * the legacy shared subjects (no provider in them) are still taken, with a log line.
 * (Against a real nats-server with the shipped permissions: test/e2e/nats-permissions-shipped.int.test.ts.)
 */
import { listCatalog, serveAdapter, type AdapterService, type SdkLogger, textResult, toToolInfo } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import {
  adapterHeartbeatSubject,
  AdapterHealthResponse,
  ADAPTER_HEARTBEAT_SUBJECT,
  CatalogAnnouncement,
  catalogSubject,
  CONTRACT_VERSION,
  registrySubject,
  type ToolInfo,
} from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { registerDispatcherMetrics, registerRegistryMetrics } from '@toolhub/ops';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry as Metrics } from 'prom-client';

const tool = (provider: string, name: string): ToolInfo =>
  toToolInfo(provider, { name, path: 'demo', description: `The ${name} tool.`, inputSchema: { type: 'object', properties: {} }, run: async () => textResult('') });

const beat = (provider: string, instanceId: string) =>
  AdapterHealthResponse.encode({ provider, instanceId, healthy: true, detail: 'ok', toolCount: 0, startedUnixMs: Date.now(), catalogVersion: 'x', quarantinedCount: 0, contractVersion: CONTRACT_VERSION, sdkVersion: 'test' }).finish();

const announcement = (provider: string, tools: ToolInfo[], extra: Partial<CatalogAnnouncement> = {}) =>
  CatalogAnnouncement.encode({ provider, instanceId: 'sender-1', tools, catalogVersion: `v-${provider}-${tools.length}-${extra.pageCount ?? 0}`, announcedUnixMs: Date.now(), quarantined: [], ...extra }).finish();

/** A logger that keeps every warning, so the test can read the log lines. */
function recordingLogger(): SdkLogger & { warnings: Array<{ obj: Record<string, unknown>; msg: string }> } {
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  return { warnings, info() {}, error() {}, warn: (obj, msg) => void warnings.push({ obj: obj as Record<string, unknown>, msg: msg ?? '' }) };
}

describe('provider identity: the subject’s provider must be the payload’s', () => {
  const bus = new InProcessBus();
  const registryLog = recordingLogger();
  const dispatcherLog = recordingLogger();
  let dir: string;
  let store: EmbeddedRegistryStore;
  let registry: Registry;
  let running: RunningDispatcher;
  let local: AdapterService;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'provider-binding-'));
    store = await EmbeddedRegistryStore.open({ dir });
    registry = await Registry.start(bus, store, { statsLingerMs: 0, logger: registryLog });
    running = await startDispatcher(bus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false }, deps: { logger: dispatcherLog } });
    const tools = [tool('local', 'echo_text'), tool('local', 'read_file')];
    local = await serveAdapter(bus, { provider: 'local', catalog: async () => tools, listTools: async (p, r) => listCatalog(tools, p, r), getToolInfo: async (n) => tools.find((t) => t.name === n)!, runTool: async () => textResult('') }, { instanceId: 'local-1' });
    await waitFor(async () => (await store.listTools({ provider: 'local' })).length === 2, { timeoutMs: 20_000, message: 'local’s catalog in the registry' });
    await waitFor(() => running.dispatcher.providers.has('local'), { timeoutMs: 20_000, message: 'local’s heartbeat at the dispatcher' });
  });

  afterAll(async () => {
    await local?.close();
    await running?.close(100);
    await registry?.close();
    await store?.close();
    await bus.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the SDK announces and beats on the provider’s own subjects', async () => {
    const seen: string[] = [];
    const subs = [
      await bus.subscribe(catalogSubject('sync', 'local'), (m) => void seen.push(m.subject)),
      await bus.subscribe(adapterHeartbeatSubject('local'), (m) => void seen.push(m.subject)),
    ];
    await local.announce();
    bus.publish('toolhub.v1.discovery.ping', new Uint8Array());
    await waitFor(() => seen.includes(catalogSubject('sync', 'local')) && seen.includes(adapterHeartbeatSubject('local')), { timeoutMs: 10_000, message: 'the announcement and a heartbeat on local’s subjects' });
    for (const s of subs) await s.close();
  });

  it('refuses a catalog announced for local on mcp’s subject (inline and paged), leaving local’s catalog intact', async () => {
    bus.publish(catalogSubject('sync', 'mcp'), announcement('local', []));
    bus.publish(catalogSubject('catalog', 'mcp'), announcement('local', [], { pageCount: 3, toolCount: 300 }));
    await waitFor(() => registry.providerBinding.refused.catalog === 2, { timeoutMs: 10_000, message: 'both forged announcements refused' });
    // A later genuine announcement on mcp's subject is processed after the forged ones (one bus, in order).
    bus.publish(catalogSubject('sync', 'mcp'), announcement('mcp', [tool('mcp', 'mcp_ping')]));
    await waitFor(async () => (await store.listTools({ provider: 'mcp' })).length === 1, { timeoutMs: 10_000, message: 'mcp’s own catalog' });
    expect((await store.listTools({ provider: 'local' })).map((t) => t.name).sort()).toEqual(['echo_text', 'read_file']);
    expect(registry.catalogStatus('local')[0]?.instanceId).toBe('local-1');
    const line = registryLog.warnings.find((w) => w.obj['kind'] === 'catalog' && w.obj['subjectProvider'] === 'mcp');
    expect(line?.obj).toMatchObject({ payloadProvider: 'local', subject: catalogSubject('sync', 'mcp') });
    expect(line?.msg).toContain('an adapter may speak only for its own provider');
  });

  it('refuses a heartbeat for local on mcp’s subject at the registry and the dispatcher: no forged replica', async () => {
    bus.publish(adapterHeartbeatSubject('mcp'), beat('local', 'forged-local'));
    await waitFor(() => registry.providerBinding.refused.heartbeat === 1 && running.dispatcher.providers.binding.refused.heartbeat === 1, { timeoutMs: 10_000, message: 'the forged heartbeat refused by both' });
    // A genuine heartbeat after it is recorded: the forged one would have been too, had it been taken.
    bus.publish(adapterHeartbeatSubject('local'), beat('local', 'local-2'));
    await waitFor(() => running.dispatcher.providers.instances().some(([p, i]) => p === 'local' && i === 'local-2'), { timeoutMs: 10_000, message: 'the genuine heartbeat' });
    expect(running.dispatcher.providers.instances()).not.toContainEqual(['local', 'forged-local']);
    expect(dispatcherLog.warnings.find((w) => w.obj['kind'] === 'heartbeat')?.obj).toMatchObject({ subjectProvider: 'mcp', payloadProvider: 'local' });
  });

  it('counts the refusals in the registry’s and the dispatcher’s metrics', async () => {
    const metrics = new Metrics();
    registerRegistryMetrics(metrics, registry);
    registerDispatcherMetrics(metrics, running.dispatcher);
    const text = await metrics.metrics();
    expect(text).toContain('toolhub_registry_provider_mismatch_total{kind="catalog"} 2');
    expect(text).toContain('toolhub_registry_provider_mismatch_total{kind="heartbeat"} 1');
    expect(text).toContain('toolhub_dispatcher_provider_mismatch_total{kind="heartbeat"} 1');
  });

  it('still takes the legacy shared subjects (no provider in them to check), with a log line', async () => {
    bus.publish(registrySubject('sync'), announcement('legacy_p', [tool('legacy_p', 'old_tool')]));
    bus.publish(ADAPTER_HEARTBEAT_SUBJECT, beat('legacy_p', 'old-1'));
    await waitFor(async () => (await store.listTools({ provider: 'legacy_p' })).length === 1, { timeoutMs: 10_000, message: 'the legacy announcement applied' });
    await waitFor(() => running.dispatcher.providers.has('legacy_p'), { timeoutMs: 10_000, message: 'the legacy heartbeat recorded' });
    expect(registry.providerBinding.legacy.catalog).toBe(1);
    expect(registryLog.warnings.some((w) => w.obj['provider'] === 'legacy_p' && w.obj['kind'] === 'catalog' && w.msg.includes('legacy shared subject'))).toBe(true);
    expect(dispatcherLog.warnings.some((w) => w.obj['provider'] === 'legacy_p' && w.obj['kind'] === 'heartbeat')).toBe(true);
  });
});
