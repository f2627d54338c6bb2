/**
 * Every cross-service request of ToolHub, made by the real services, each connected as its own
 * NATS user, against a real nats-server running deploy/nats/toolhub-auth.conf AS SHIPPED (the same
 * file docker-compose and scripts/services.sh give nats-server, passwords from its environment).
 *
 * Each service's bus counts what the server refused (`permissionViolations`); every allowed path
 * must leave that at 0, and a few forbidden ones must be refused. This is the test that was
 * missing when the registry's replies to `_INBOX_dispatcher.…` were refused and the dispatcher
 * never became ready.
 */
import { readReply, serveAdapter, staticCatalog, textResult, type AdapterService } from '@toolhub/adapter-sdk';
import { inboxPrefixOf, NatsBus } from '@toolhub/bus';
import {
  ADAPTER_DISCOVERY_SUBJECT,
  ADAPTER_HEARTBEAT_WILDCARD,
  AdapterHealthRequest,
  AdapterHealthResponse,
  adapterHeartbeatSubject,
  adapterSubject,
  CatalogAnnouncement,
  catalogWildcard,
  CONTRACT_VERSION,
  EVENTS_STREAM,
  eventSubject,
  GetCatalogStatusRequest,
  GetCatalogStatusResponse,
  learningSubject,
  PreloadFormat,
  registrySubject,
  replicaSubject,
  RunState,
  SearchMode,
} from '@toolhub/contracts';
import { type RunningDispatcher, startDispatcher } from '@toolhub/dispatcher-core';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { dispatcherReadiness } from '@toolhub/ops';
import { Registry } from '@toolhub/registry-core';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { type NatsServerHandle, scratchDir, startNatsServer } from '@toolhub/test-harness';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { usernamePasswordAuthenticator } from '@nats-io/nats-core';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const SHIPPED = join(__dirname, '..', '..', 'deploy', 'nats', 'toolhub-auth.conf');
const USERS = ['dispatcher', 'registry', 'adapter_local', 'adapter_mcp', 'adapter_cloud', 'admin'] as const;
type User = (typeof USERS)[number];
const password = (u: User) => `pw-${u}-shipped`;
const call = (id: string) => ({ deadline: Date.now() + 15_000, requestId: id });

const until = async (check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000) => {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** A catalog too big to travel inline (the server's max_payload is lowered below), so the registry pulls its pages. */
const manyTools = Array.from({ length: 150 }, (_, i) => ({
  name: `bulk_tool_${i}`,
  path: 'bulk',
  description: `Bulk tool number ${i}. ${'It exists so the catalog is paged and pulled by the registry. '.repeat(16)}`,
  inputSchema: { type: 'object', properties: {} },
  run: async () => textResult(`bulk ${i}`),
}));

describe('the shipped NATS permissions (deploy/nats/toolhub-auth.conf): every cross-service request', () => {
  let server: NatsServerHandle;
  let dir: string;
  const buses = new Map<User, NatsBus>();
  const adapters = new Map<string, AdapterService>();
  let registry: Registry;
  let store: EmbeddedRegistryStore;
  let dispatcher: RunningDispatcher;
  let cancelledWith: string | undefined;
  let slowStarted = false;

  const as = (user: User, ensureStream = false) =>
    NatsBus.connect({ servers: server.url, name: user, credentials: { user, password: password(user) }, inboxPrefix: inboxPrefixOf(user), streamStorage: 'memory', ensureStream, connectTimeoutMs: 5000, maxReconnectAttempts: 0 });

  beforeAll(async () => {
    const conf = readFileSync(SHIPPED, 'utf8');
    // nats-server reads `$NATS_<USER>_PASSWORD` from its environment, as in compose and services.sh.
    const env = Object.fromEntries(USERS.map((u) => [`NATS_${u.toUpperCase()}_PASSWORD`, password(u)]));
    // The permissions exactly as shipped; only the payload limit is lowered so a catalog gets paged.
    server = await startNatsServer({ config: `${conf}\nmax_payload: 131072\n`, env });
    dir = scratchDir('nats-shipped');
    // The dispatcher creates the events stream; adapters connect with ensureStream false (as their apps do).
    buses.set('dispatcher', await as('dispatcher', true));
    buses.set('registry', await as('registry', true));
    for (const u of ['adapter_local', 'adapter_mcp', 'adapter_cloud'] as const) buses.set(u, await as(u));
    store = await EmbeddedRegistryStore.open({ dir: join(dir, 'registry') });
    registry = await Registry.start(buses.get('registry')!, store, { statsLingerMs: 0 });
    adapters.set(
      'local',
      await serveAdapter(buses.get('adapter_local')!, {
        provider: 'local',
        ...staticCatalog('local', [
          { name: 'echo_text', path: 'text', description: 'Echoes text back.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, run: async (a: { text?: string }) => textResult(a.text ?? '') },
          {
            name: 'wait_for_cancel',
            path: 'text',
            description: 'Waits until it is cancelled.',
            inputSchema: { type: 'object', properties: {} },
            run: (_a: unknown, ctx) =>
              new Promise((resolve) => {
                slowStarted = true;
                ctx.signal.addEventListener('abort', () => {
                  cancelledWith = String((ctx.signal.reason as Error)?.message ?? ctx.signal.reason);
                  resolve(textResult('cancelled'));
                });
              }),
          },
          ...manyTools,
        ]),
      }, { instanceId: 'local-1', runAckDelayMs: 0 }),
    );
    for (const p of ['mcp', 'cloud'] as const) {
      adapters.set(
        p,
        await serveAdapter(buses.get(`adapter_${p}`)!, {
          provider: p,
          ...staticCatalog(p, [{ name: `${p}_ping`, path: 'net', description: `Answers pong from ${p}.`, inputSchema: { type: 'object', properties: {} }, run: async () => textResult('pong') }]),
        }, { instanceId: `${p}-1` }),
      );
    }
    dispatcher = await startDispatcher(buses.get('dispatcher')!, { grpc: { port: 0 }, dispatcher: { warmCoreTools: false, eventDurability: 'ack' } });
  }, 60_000);

  afterAll(async () => {
    await dispatcher?.close(100).catch(() => undefined);
    for (const a of adapters.values()) await a.close().catch(() => undefined);
    await registry?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    for (const b of buses.values()) await b.close().catch(() => undefined);
    await server?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads the file the deployment uses: per-service users with passwords from the environment', () => {
    const conf = readFileSync(SHIPPED, 'utf8');
    for (const u of USERS) expect(conf).toContain(`user: "${u}", password: $NATS_${u.toUpperCase()}_PASSWORD`);
  });

  it('adapter → registry: every catalog arrives (inline sync for mcp and cloud, a paged catalog the registry pulls from the local replica)', async () => {
    await until(async () => (await store.listTools({ provider: 'local' })).length === 152, 'the paged local catalog in the registry');
    await until(async () => (await store.listTools({ provider: 'mcp' })).length === 1 && (await store.listTools({ provider: 'cloud' })).length === 1, 'the mcp and cloud catalogs');
  });

  it('adapter heartbeats reach the dispatcher and the registry; a discovery ping from the dispatcher is answered', async () => {
    await until(() => ['local', 'mcp', 'cloud'].every((p) => dispatcher.dispatcher.providers.has(p)), 'heartbeats of every provider at the dispatcher');
    let heard = 0;
    const sub = await buses.get('registry')!.subscribe(ADAPTER_HEARTBEAT_WILDCARD, () => void heard++);
    buses.get('dispatcher')!.publish(ADAPTER_DISCOVERY_SUBJECT, new Uint8Array());
    await until(() => heard >= 3, 'heartbeats answering the ping');
    await sub.close();
  });

  it('dispatcher → registry: the readiness probe, search, info, preload and status all get answers', async () => {
    for (const check of dispatcherReadiness(buses.get('dispatcher')!)) await check.check();
    const found = await dispatcher.dispatcher.searchTools({ queries: ['echo text back'], provider: '', path: '', limit: 5, mode: SearchMode.SEARCH_MODE_UNSPECIFIED, explain: false }, call('s-1'));
    expect(found.hits.map((h) => h.id)).toContain('local:echo_text');
    const info = await dispatcher.dispatcher.getToolInfo({ provider: 'cloud', name: 'cloud_ping' }, call('i-1'));
    expect(info.tool?.id).toBe('cloud:cloud_ping');
    const preload = await dispatcher.dispatcher.getPreloadSet({ format: PreloadFormat.PRELOAD_FORMAT_UNSPECIFIED }, call('p-1'));
    expect(preload.fingerprint).not.toBe('');
    const status = readReply(
      await buses.get('dispatcher')!.request(registrySubject('status'), GetCatalogStatusRequest.encode({ provider: 'local' }).finish(), { timeoutMs: 5000 }),
      (b) => GetCatalogStatusResponse.decode(b),
    );
    expect(status.providers.map((p) => p.provider)).toContain('local');
  });

  it('dispatcher → adapters: list, info, run (with its acknowledgement) and health of every provider, and the per-replica probe', async () => {
    const d = dispatcher.dispatcher;
    const listed = await d.listTools({ provider: 'local', path: 'text', recursive: false, pageSize: 0, pageToken: '' }, call('l-1'));
    expect(listed.tools.map((t) => t.name)).toContain('echo_text');
    for (const p of ['mcp', 'cloud']) {
      const run = await d.runTool({ provider: p, name: `${p}_ping`, arguments: {}, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: 'test', searchId: '' } as never, call(`r-${p}`));
      expect(run.servedBy).toBe(`${p}:${p}_ping`);
      expect(run.error).toBeUndefined();
    }
    const echoed = await d.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'through the shipped permissions' }, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: 'test', searchId: '' } as never, call('r-local'));
    expect(JSON.stringify(echoed.content)).toContain('through the shipped permissions');
    for (const p of ['local', 'mcp', 'cloud']) {
      const health = AdapterHealthResponse.decode((await buses.get('dispatcher')!.request(adapterSubject(p, 'health'), AdapterHealthRequest.encode({}).finish(), { timeoutMs: 5000 })).data);
      expect(health.healthy).toBe(true);
      await buses.get('dispatcher')!.request(replicaSubject(p, `${p}-1`), new Uint8Array(), { timeoutMs: 5000 });
    }
  });

  it('dispatcher → adapter: a caller giving up cancels the run on the replica running it', async () => {
    const caller = new AbortController();
    const run = dispatcher.dispatcher.runTool(
      { provider: 'local', name: 'wait_for_cancel', arguments: {}, timeoutMs: 20_000, idempotencyKey: '', expectedVersion: '', caller: 'test', searchId: '' } as never,
      { ...call('c-1'), signal: caller.signal },
    );
    await until(() => slowStarted, 'the slow run to start');
    caller.abort();
    await run.catch(() => undefined);
    await until(() => cancelledWith !== undefined, 'the cancellation to reach the adapter');
  });

  it('JetStream: the dispatcher’s tool.called events are consumed by the registry; the registry’s change events are stored', async () => {
    await until(async () => ((await store.getToolStats('local:echo_text'))?.calls ?? 0) >= 1, 'the registry to count the call');
    expect(registry.eventsConsumerRunning).toBe(true);
    const nc = await connect({ servers: server.url, authenticator: usernamePasswordAuthenticator('admin', password('admin')) });
    try {
      const jsm = await jetstreamManager(nc);
      const stored = await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: eventSubject('catalog.changed', 'local') });
      expect(stored?.subject).toBe(eventSubject('catalog.changed', 'local'));
    } finally {
      await nc.close();
    }
  });

  it('registry → adapters: a resync broadcast makes every replica announce again; registry replicas share what they learn', async () => {
    const announced = new Set<string>();
    const reg = buses.get('registry')!;
    const subs = [await reg.subscribe(catalogWildcard('sync'), () => void announced.add('sync')), await reg.subscribe(catalogWildcard('catalog'), () => void announced.add('catalog'))];
    let learned = 0;
    subs.push(await reg.subscribe(learningSubject('learned'), () => void learned++));
    reg.publish(registrySubject('resync'), new Uint8Array());
    reg.publish(learningSubject('learned'), new Uint8Array());
    await until(() => announced.has('sync') && announced.has('catalog') && learned === 1, 'the re-announcements and the learned pair');
    for (const s of subs) await s.close();
  });

  it('async runs on the JetStream work queue as the dispatcher user: queued, taken, acknowledged', async () => {
    const runs = await dispatcher.dispatcher.startAsyncRuns({ store: await openEmbeddedRunStore({ dir: join(dir, 'runs') }), queue: 'jetstream', queueName: 'shipped', ackWaitMs: 2000 });
    const { run } = await runs.startRun({ call: { provider: 'local', name: 'echo_text', arguments: { text: 'queued' }, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '' } }, { deadline: Infinity, requestId: 'async' });
    await until(async () => (await runs.getRun({ runId: run!.runId }, { deadline: Infinity, requestId: 'get' })).run!.state === RunState.RUN_STATE_SUCCEEDED, 'the async run to succeed');
    expect((await runs.getRun({ runId: run!.runId }, { deadline: Infinity, requestId: 'get' })).run!.result!.content[0]!.text).toBe('queued');
  });

  it('none of the above was refused: every service’s permission-violation count is 0', async () => {
    // One round trip per connection (each on a subject it may publish on) so any refusal has arrived.
    const roundTrip = (u: User) => (u.startsWith('adapter_') ? adapterSubject(u.slice('adapter_'.length), 'health') : registrySubject('info'));
    for (const [u, b] of buses) await b.request(roundTrip(u), new Uint8Array(), { timeoutMs: 5000 }).catch(() => undefined);
    expect(Object.fromEntries([...buses].map(([u, b]) => [u, b.permissionViolations]))).toEqual({ dispatcher: 0, registry: 0, adapter_local: 0, adapter_mcp: 0, adapter_cloud: 0 });
  });

  describe('and refuses what a service must not do', () => {
    const refused = async (user: User, act: (bus: NatsBus) => Promise<unknown> | unknown) => {
      const bus = await as(user);
      try {
        await act(bus);
        await until(() => bus.permissionViolations > 0, `the server to refuse ${user}`);
      } finally {
        await bus.close();
      }
    };

    it('an adapter user cannot serve another provider', () => refused('adapter_local', (b) => b.serve(adapterSubject('cloud', 'run'), () => ({ data: new Uint8Array(), headers: {} }))));
    it('an adapter user cannot read the dispatcher’s replies', () => refused('adapter_mcp', (b) => b.subscribe('_INBOX_dispatcher.>', () => undefined)));
    it('an adapter user cannot report progress into another provider’s calls', () => refused('adapter_mcp', (b) => b.publish('toolhub.v1.progress.local.d1.c1', new Uint8Array([1]))));
    it('an adapter user cannot publish tool.called', () => refused('adapter_cloud', (b) => b.publish(eventSubject('tool.called', 'cloud'), new Uint8Array([1]))));
    it('the registry cannot publish tool.called either', () => refused('registry', (b) => b.publish(eventSubject('tool.called', 'local'), new Uint8Array([1]))));
    it('the dispatcher cannot write into another service’s inbox unasked', () => refused('dispatcher', (b) => b.publish('_INBOX_registry.forged', new Uint8Array([1]))));

    describe('an adapter user cannot speak for another provider (issue 31, item 5)', () => {
      // adapter_mcp forging provider `local`: an empty catalog (it would retire local's tools) and a fake replica.
      const forgedCatalog = CatalogAnnouncement.encode({ provider: 'local', instanceId: 'forged', tools: [], catalogVersion: 'forged', announcedUnixMs: Date.now(), quarantined: [] }).finish();
      const forgedBeat = AdapterHealthResponse.encode({ provider: 'local', instanceId: 'forged-local', healthy: true, detail: 'ok', toolCount: 0, startedUnixMs: Date.now(), catalogVersion: 'forged', quarantinedCount: 0, contractVersion: CONTRACT_VERSION, sdkVersion: 'forged' }).finish();
      // Literal subjects: the shared ones every adapter could publish on before, and `local`'s own.
      for (const subject of ['toolhub.v1.registry.sync', 'toolhub.v1.registry.catalog', 'toolhub.v1.registry.sync.local', 'toolhub.v1.registry.catalog.local']) {
        it(`adapter_mcp cannot announce a catalog for local on ${subject}`, () => refused('adapter_mcp', (b) => b.publish(subject, forgedCatalog)));
      }
      for (const subject of ['toolhub.v1.discovery.heartbeat', 'toolhub.v1.discovery.heartbeat.local']) {
        it(`adapter_mcp cannot publish a heartbeat for local on ${subject}`, () => refused('adapter_mcp', (b) => b.publish(subject, forgedBeat)));
      }
      it('after the forgeries local’s catalog is intact, no forged replica is known, and mcp still announces and beats on its own subjects', async () => {
        const registryBus = buses.get('registry')!;
        let heardMcp = 0;
        const sub = await registryBus.subscribe(adapterHeartbeatSubject('mcp'), () => void heardMcp++);
        buses.get('dispatcher')!.publish(ADAPTER_DISCOVERY_SUBJECT, new Uint8Array());
        await adapters.get('mcp')!.announce();
        await until(() => heardMcp > 0, 'a heartbeat of mcp on its own subject');
        await sub.close();
        expect((await store.listTools({ provider: 'local' })).length).toBe(152);
        expect(registry.catalogStatus('local')[0]?.catalogVersion).not.toBe('forged');
        expect(dispatcher.dispatcher.providers.instances()).not.toContainEqual(['local', 'forged-local']);
        expect((await store.listTools({ provider: 'mcp' })).map((t) => t.name)).toEqual(['mcp_ping']);
        expect(buses.get('adapter_mcp')!.permissionViolations).toBe(0);
      });
    });
  });
});
