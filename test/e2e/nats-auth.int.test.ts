/**
 * NATS with authentication and subject permissions, enforced by a real nats-server: each service
 * connects as its own user; the server itself refuses an impostor adapter (serving another
 * provider's subjects), a fake `tool.called` publisher and a wrong password, while the real
 * services still work end to end (a run through the dispatcher is counted by the registry).
 */
import { serveAdapter, staticCatalog, textResult, type AdapterService } from '@toolhub/adapter-sdk';
import { inboxPrefixOf, NatsBus, natsAuthorizationConfig, type NatsServiceUser } from '@toolhub/bus';
import { adapterSubject, eventSubject, learningSubject, LearningObserved, ToolCalled } from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { type NatsServerHandle, scratchDir, startNatsServer, waitFor } from '@toolhub/test-harness';
import { connect } from '@nats-io/transport-node';
import { type NatsConnection, usernamePasswordAuthenticator } from '@nats-io/nats-core';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const users: NatsServiceUser[] = [
  { user: 'dispatcher', password: 'dispatcher-pw', role: 'dispatcher' },
  { user: 'registry', password: 'registry-pw', role: 'registry' },
  { user: 'adapter_local', password: 'local-pw', role: 'adapter', provider: 'local' },
  { user: 'adapter_cloud', password: 'cloud-pw', role: 'adapter', provider: 'cloud' },
];

const as = (server: NatsServerHandle, user: string, password: string, name: string) =>
  NatsBus.connect({ servers: server.url, name, credentials: { user, password }, inboxPrefix: inboxPrefixOf(user), streamStorage: 'memory', ensureStream: !user.startsWith('adapter'), connectTimeoutMs: 5000, maxReconnectAttempts: 0 });

const until = (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000) => waitFor(check, { timeoutMs, intervalMs: 50, message: what });

/** The first "permissions violation for publish" the server reports to `nc` (its text), or '' when it closes. */
async function publishViolation(nc: NatsConnection): Promise<string> {
  for await (const s of nc.status()) {
    const text = JSON.stringify(s) + String((s as { error?: unknown }).error ?? '');
    if (/permissions violation for publish/i.test(text)) return text;
  }
  return '';
}

describe('NATS with per-service users and subject permissions', () => {
  let server: NatsServerHandle;
  let dir: string;
  const closers: Array<() => Promise<unknown>> = [];
  let dispatcher: RunningDispatcher;
  let store: EmbeddedRegistryStore;

  beforeAll(async () => {
    server = await startNatsServer({ config: natsAuthorizationConfig(users) });
    dir = scratchDir('nats-auth');
    // The dispatcher creates the events stream (it may use JetStream's API).
    const dispatcherBus = await as(server, 'dispatcher', 'dispatcher-pw', 'dispatcher');
    const registryBus = await as(server, 'registry', 'registry-pw', 'registry');
    const adapterBus = await as(server, 'adapter_local', 'local-pw', 'adapter-local');
    store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
    const registry = await Registry.start(registryBus, store);
    const adapter: AdapterService = await serveAdapter(adapterBus, {
      provider: 'local',
      ...staticCatalog('local', [{ name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, run: async (a: { text?: string }) => textResult(a.text ?? '') }]),
    });
    dispatcher = await startDispatcher(dispatcherBus, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false, eventDurability: 'ack' } });
    closers.push(
      () => dispatcher.close(100),
      () => adapter.close(),
      () => registry.close(),
      () => store.close(),
      () => adapterBus.close(),
      () => registryBus.close(),
      () => dispatcherBus.close(),
    );
  });

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets the real services work: a run through the dispatcher reaches the adapter and the registry counts its tool.called event', async () => {
    await until(() => dispatcher.dispatcher.providers.has('local'), 'the adapter heartbeat');
    const res = await dispatcher.dispatcher.runTool(
      { provider: 'local', name: 'echo_text', arguments: { text: 'through auth' }, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: 'test', searchId: '' },
      { deadline: Date.now() + 15_000, requestId: 'nats-auth-1' },
    );
    expect(res.servedBy).toBe('local:echo_text');
    await until(async () => ((await store.getToolStats('local:echo_text'))?.calls ?? 0) >= 1, 'the registry to count the call');
  });

  it('refuses a wrong password at connect, saying which user was refused and what to check', async () => {
    await expect(as(server, 'adapter_local', 'guessed', 'impostor')).rejects.toThrow(/refused the credentials of user "adapter_local".*NATS_PASSWORD/);
  });

  it('refuses a client without credentials, saying how to send them', async () => {
    const err = NatsBus.connect({ servers: server.url, name: 'anonymous', credentials: null, connectTimeoutMs: 5000, maxReconnectAttempts: 0 });
    await expect(err).rejects.toThrow(/requires credentials.*NATS_USER and NATS_PASSWORD.*services\.sh up/);
  });

  it('refuses an impostor adapter: the local adapter user cannot serve the cloud provider’s run subject', async () => {
    const nc = await connect({ servers: server.url, authenticator: usernamePasswordAuthenticator('adapter_local', 'local-pw'), inboxPrefix: inboxPrefixOf('adapter_local') });
    const sub = nc.subscribe(adapterSubject('cloud', 'run'), { queue: 'toolhub-adapter-cloud' });
    // NATS.js ends the subscription with the server's error (resolved, not thrown).
    const closed = sub.closed.then(
      (err) => String(err),
      (err: unknown) => String(err),
    );
    await expect(closed).resolves.toMatch(/permissions violation for subscription/i);
    await nc.close();
  });

  it('refuses a fake tool.called publisher: an adapter user cannot publish call events, so the registry never counts them', async () => {
    const nc = await connect({ servers: server.url, authenticator: usernamePasswordAuthenticator('adapter_cloud', 'cloud-pw'), inboxPrefix: inboxPrefixOf('adapter_cloud') });
    const violation = publishViolation(nc);
    const before = (await store.getToolStats('local:echo_text'))?.calls ?? 0;
    const fake = ToolCalled.encode({
      eventId: 'fake-1',
      toolId: 'local:echo_text',
      provider: 'local',
      name: 'echo_text',
      status: 'ok',
      errorCode: 0,
      latencyMs: 1,
      attempts: 1,
      fallbackUsed: '',
      caller: 'poisoner',
      timestampUnixMs: Date.now(),
      searchId: '',
    } as never).finish();
    for (let i = 0; i < 50; i++) nc.publish(eventSubject('tool.called', 'local'), fake);
    await nc.flush();
    await expect(violation).resolves.toMatch(/tool\.called/);
    // The stream never got them: the count is unchanged after the registry had time to ingest.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await store.getToolStats('local:echo_text'))?.calls ?? 0).toBe(before);
    await nc.close();
  });

  it('refuses a search poisoner: an adapter user cannot publish learned pairs to the registry replicas', async () => {
    const nc = await connect({ servers: server.url, authenticator: usernamePasswordAuthenticator('adapter_cloud', 'cloud-pw'), inboxPrefix: inboxPrefixOf('adapter_cloud') });
    const violation = publishViolation(nc);
    const poison = LearningObserved.encode({
      origin: 'poisoner',
      observations: [{ id: 'p-1', query: 'send an email', toolId: 'cloud:steal_mail', provider: 'cloud', atUnixMs: Date.now(), vector: new Uint8Array() }],
    } as never).finish();
    nc.publish(learningSubject('learned'), poison);
    await nc.flush();
    await expect(violation).resolves.toMatch(/learning\.learned/);
    await nc.close();
  });
});
