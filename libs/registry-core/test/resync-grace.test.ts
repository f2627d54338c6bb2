/**
 * The grace period after a registry start: stored catalogs nobody confirmed are retired when their
 * provider has no live replica, asked for again when a live one reports another catalog, and left
 * alone when a sync or a matching heartbeat confirms them. First the decisions with fake handlers,
 * then a registry on the in-process bus and an embedded store that outlives it.
 */
import { type AdapterService, catalogVersion, serveAdapter, staticCatalog, textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { type Bus, InProcessBus } from '@toolhub/bus';
import { CatalogAnnouncement, Importance, registrySubject, type ToolInfo } from '@toolhub/contracts';
import { EmbeddedRegistryStore } from '@toolhub/store/embedded';
import { waitFor } from '@toolhub/test-harness';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CatalogSync, type GraceHandlers, type ProviderCheck, Registry, ResyncGrace } from '../src';

const silent = { info() {}, warn() {}, error() {} };

/** Handlers answering from a table; records what the grace asked of them. */
function fakeHandlers(checks: Record<string, ProviderCheck | Error>): GraceHandlers & { retired: string[]; asked: number } {
  const h = {
    retired: [] as string[],
    asked: 0,
    inspect: async (p: string) => {
      const c = checks[p];
      if (c instanceof Error) throw c;
      return c ?? { live: false, matchesStore: false };
    },
    retire: async (p: string) => {
      h.retired.push(p);
      return true;
    },
    askAgain: () => {
      h.asked++;
    },
  };
  return h;
}

describe('ResyncGrace', () => {
  afterEach(() => jest.useRealTimers());

  it('retires providers with no live replica, keeps confirmed ones and asks live ones with another catalog again', async () => {
    const h = fakeHandlers({ gone: { live: false, matchesStore: false }, same: { live: true, matchesStore: true }, changed: { live: true, matchesStore: false } });
    const grace = new ResyncGrace(['gone', 'same', 'changed', 'synced'], h, silent, { graceMs: 60_000 });
    grace.confirm('synced');
    const round = await grace.settle();
    grace.close();
    expect(round).toEqual({ confirmed: ['same'], retired: ['gone'], pending: ['changed'], gaveUp: [] });
    expect(h.retired).toEqual(['gone']);
    expect(h.asked).toBe(1);
    expect(grace.unconfirmed).toEqual(['changed']);
  });

  it('stops asking a live provider with another catalog after the last round and leaves its tools', async () => {
    const h = fakeHandlers({ changed: { live: true, matchesStore: false } });
    const grace = new ResyncGrace(['changed'], h, silent, { graceMs: 60_000, rounds: 2 });
    expect((await grace.settle()).pending).toEqual(['changed']);
    expect((await grace.settle()).gaveUp).toEqual(['changed']);
    grace.close();
    expect(h.retired).toEqual([]);
    expect(h.asked).toBe(1);
    expect(grace.unconfirmed).toEqual([]);
  });

  it('keeps a provider whose check fails for the next round instead of throwing', async () => {
    const h = fakeHandlers({ flaky: new Error('store down'), gone: { live: false, matchesStore: false } });
    const grace = new ResyncGrace(['flaky', 'gone'], h, silent, { graceMs: 60_000 });
    const round = await grace.settle();
    grace.close();
    expect(round).toEqual({ confirmed: [], retired: ['gone'], pending: ['flaky'], gaveUp: [] });
  });

  it('does not retire a provider that announced while it was being checked', async () => {
    const h = fakeHandlers({ late: { live: false, matchesStore: false } });
    h.retire = async () => false; // an announcement arrived after the check
    const grace = new ResyncGrace(['late'], h, silent, { graceMs: 60_000 });
    expect(await grace.settle()).toEqual({ confirmed: [], retired: [], pending: ['late'], gaveUp: [] });
    grace.close();
  });

  it('settles by itself once the grace period has passed, and not before', async () => {
    jest.useFakeTimers();
    const h = fakeHandlers({});
    const grace = new ResyncGrace(['gone'], h, silent, { graceMs: 30_000 });
    grace.start();
    await jest.advanceTimersByTimeAsync(29_000);
    expect(h.retired).toEqual([]);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(h.retired).toEqual(['gone']);
    grace.close();
  });

  it('never settles when the grace period is 0 (off)', async () => {
    jest.useFakeTimers();
    const h = fakeHandlers({});
    const grace = new ResyncGrace(['gone'], h, silent, { graceMs: 0 });
    grace.start();
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(h.retired).toEqual([]);
    expect(grace.unconfirmed).toEqual(['gone']);
  });
});

describe('CatalogSync.retire', () => {
  it('retires a provider with an empty catalog unless it announced at or after the check', async () => {
    const applied: Array<[string, number]> = [];
    const sync = new CatalogSync(new InProcessBus(), async (provider, _version, tools) => void applied.push([provider, tools.length]), silent);
    const checkedAt = Date.now();
    const ann = CatalogAnnouncement.encode({ provider: 'late', instanceId: 'late-1', tools: [], catalogVersion: 'v1', announcedUnixMs: 0, quarantined: [] } as unknown as CatalogAnnouncement).finish();
    await sync.onAnnouncement({ subject: registrySubject('sync'), data: ann, headers: {} });
    expect(await sync.retire('late', checkedAt, 'gone')).toBe(false);
    expect(sync.statuses('late')[0]?.state).toBe('synced');

    expect(await sync.retire('quiet', checkedAt, 'no adapter re-announced within the grace period')).toBe(true);
    expect(applied).toEqual([['late', 0], ['quiet', 0]]);
    expect(sync.statuses('quiet')[0]).toMatchObject({ state: 'retired', toolCount: 0, error: 'no adapter re-announced within the grace period' });
  });

  it('reports a retirement the store refused as failed, and rejects', async () => {
    const sync = new CatalogSync(new InProcessBus(), async () => Promise.reject(new Error('store down')), silent);
    await expect(sync.retire('quiet', Date.now(), 'gone')).rejects.toThrow('store down');
    expect(sync.statuses('quiet')[0]).toMatchObject({ state: 'failed', error: 'retiring the stored catalog failed: store down' });
  });
});

const def = (name: string): ToolDefinition<never> => ({
  name,
  path: 'ops',
  description: `Operation ${name} of the test provider.`,
  inputSchema: { type: 'object', properties: {} },
  run: async () => textResult(name),
});

const apiTool = (provider: string, name: string): ToolInfo => ({
  id: `${provider}:${name}`,
  provider,
  name,
  path: 'hand',
  description: 'Registered by an operator through the admin API.',
  inputSchema: { type: 'object', properties: {} },
  outputDescription: '',
  examples: [],
  importance: Importance.IMPORTANCE_NORMAL,
  annotations: {},
  version: '',
  tags: [],
  defaultTimeoutMs: 0,
});

describe('a restarted registry settles the catalogs it stored', () => {
  let dir: string;
  let bus: InProcessBus;
  let store: EmbeddedRegistryStore;
  let registry: Registry | undefined;
  const adapters: AdapterService[] = [];
  const searchNames = (r: Registry, provider: string) => r.search.search({ queries: ['operation test provider'], provider, path: '', limit: 10 } as never).hits.map((h) => h.name).sort();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resync-grace-'));
    bus = new InProcessBus();
    store = await EmbeddedRegistryStore.open({ dir });
  });
  afterEach(async () => {
    await Promise.all(adapters.splice(0).map((a) => a.close()));
    await registry?.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('retires the tools of a provider whose adapter did not come back, and serves a changed catalog without its vanished tool', async () => {
    // Before the restart: two adapters synced, and an operator registered a tool by hand.
    registry = await Registry.start(bus, store, { resync: { graceMs: 0 } });
    const shifty = await serveAdapter(bus, { provider: 'shifty', ...staticCatalog('shifty', [def('alpha'), def('beta')]) }, { instanceId: 'shifty-1' });
    const gone = await serveAdapter(bus, { provider: 'gone', ...staticCatalog('gone', [def('orphan')]) }, { instanceId: 'gone-1' });
    await registry.registerTool(apiTool('gone', 'by_hand'));
    await waitFor(async () => ((await store.listTools()).length === 4 ? true : undefined), { timeoutMs: 10_000 });
    await registry.close();
    await Promise.all([shifty.close(), gone.close()]);

    // While no registry runs, shifty's catalog changes (beta vanishes, gamma comes) and gone stays away.
    adapters.push(await serveAdapter(bus, { provider: 'shifty', ...staticCatalog('shifty', [def('alpha'), def('gamma')]) }, { instanceId: 'shifty-2' }));
    registry = await Registry.start(bus, store, { resync: { graceMs: 60_000 } });
    const r = registry;
    await waitFor(async () => ((await store.listTools({ provider: 'shifty' })).map((t) => t.name).join() === 'alpha,gamma' ? true : undefined), { timeoutMs: 10_000 });
    expect(r.unconfirmedProviders).toEqual(['gone']);
    // Within the grace period the stored catalog of gone is still served.
    expect(searchNames(r, 'gone')).toEqual(['by_hand', 'orphan']);

    expect(await r.settleStoredCatalogs()).toEqual({ confirmed: [], retired: ['gone'], pending: [], gaveUp: [] });
    await expect(r.getTool('gone', 'orphan')).rejects.toMatchObject({ code: 'not_found' });
    await expect(r.getTool('shifty', 'beta')).rejects.toMatchObject({ code: 'not_found' });
    expect(searchNames(r, 'gone')).toEqual(['by_hand']);
    expect(searchNames(r, 'shifty')).toEqual(['alpha', 'gamma']);
    // The operator's own tool of that provider stays; the status says why the rest went.
    expect((await r.getTool('gone', 'by_hand')).tool?.name).toBe('by_hand');
    expect(r.catalogStatus('gone')[0]).toMatchObject({ state: 'retired', toolCount: 0 });
    expect(r.catalogStatus('gone')[0]?.error).toMatch(/grace period/);

    // When the adapter comes back, its tools do too.
    adapters.push(await serveAdapter(bus, { provider: 'gone', ...staticCatalog('gone', [def('orphan')]) }, { instanceId: 'gone-2' }));
    await waitFor(async () => ((await store.getTool('gone', 'orphan')) ? true : undefined), { timeoutMs: 10_000 });
  });

  it('asks a retired provider to announce again when one of its replicas is heard from, so a replica missed during the grace comes back without a restart', async () => {
    registry = await Registry.start(bus, store, { resync: { graceMs: 0 } });
    const first = await serveAdapter(bus, { provider: 'quiet', ...staticCatalog('quiet', [def('alpha')]) }, { instanceId: 'quiet-1' });
    await waitFor(async () => ((await store.getTool('quiet', 'alpha')) ? true : undefined), { timeoutMs: 10_000 });
    await registry.close();
    await first.close();

    const second = await Registry.start(bus, store, { resync: { graceMs: 60_000 } });
    registry = second;
    expect(await second.settleStoredCatalogs()).toMatchObject({ retired: ['quiet'] });
    expect(await store.getTool('quiet', 'alpha')).toBeUndefined();
    // A replica that does not announce on its own (it was running all along, only unheard):
    // its heartbeat makes the registry ask for the catalog, and the tools are served again.
    adapters.push(await serveAdapter(bus, { provider: 'quiet', ...staticCatalog('quiet', [def('alpha')]) }, { instanceId: 'quiet-2', announceOnStart: false }));
    await waitFor(async () => ((await store.getTool('quiet', 'alpha')) ? true : undefined), { timeoutMs: 20_000, message: 'the retired provider stored again' });
    // The status turns 'synced' once the whole catalog is applied, a moment after its first tool is stored.
    await waitFor(() => (second.catalogStatus('quiet')[0]?.state === 'synced' ? true : undefined), { timeoutMs: 20_000, message: 'the retired provider synced again' });
    expect(second.catalogStatus('quiet')[0]).toMatchObject({ state: 'synced', toolCount: 1 });
  }, 30_000);

  it('lets another registry replica apply the returning adapter after one replica retired its provider', async () => {
    const other = await Registry.start(bus, store, { resync: { graceMs: 0 } });
    try {
      const first = await serveAdapter(bus, { provider: 'twice', ...staticCatalog('twice', [def('alpha')]) }, { instanceId: 'twice-1' });
      await waitFor(() => (other.catalogStatus('twice')[0]?.state === 'synced' ? true : undefined), { timeoutMs: 10_000 });
      await first.close();

      // A replica (re)started while the adapter was away retires it in the shared store, then stops.
      const retiring = await Registry.start(bus, store, { resync: { graceMs: 60_000 } });
      expect(await retiring.settleStoredCatalogs()).toMatchObject({ retired: ['twice'] });
      await retiring.close();
      await waitFor(async () => ((await store.getTool('twice', 'alpha')) ? undefined : true), { timeoutMs: 10_000 });

      // The same catalog announced again reaches the replica that had synced it before: applied, not skipped.
      adapters.push(await serveAdapter(bus, { provider: 'twice', ...staticCatalog('twice', [def('alpha')]) }, { instanceId: 'twice-2' }));
      await waitFor(async () => ((await store.getTool('twice', 'alpha')) ? true : undefined), { timeoutMs: 10_000, message: 'the returning catalog stored again' });
    } finally {
      await other.close();
    }
  }, 30_000);

  it("confirms a stored catalog from a live replica's heartbeat when another registry replica took the re-announcement", async () => {
    registry = await Registry.start(bus, store, { resync: { graceMs: 0 } });
    const first = await serveAdapter(bus, { provider: 'steady', ...staticCatalog('steady', [def('alpha'), def('beta')]) }, { instanceId: 'steady-1' });
    await waitFor(async () => ((await store.listTools({ provider: 'steady' })).length === 2 ? true : undefined), { timeoutMs: 10_000 });
    await registry.close();
    await first.close();

    // This replica of the same catalog never hears the resync: as if another registry replica took
    // its re-announcement and skipped it as the catalog in place. Its heartbeats still arrive.
    adapters.push(await serveAdapter(deafToResync(bus), { provider: 'steady', ...staticCatalog('steady', [def('alpha'), def('beta')]) }, { instanceId: 'steady-2', announceOnStart: false }));
    const second = await Registry.start(bus, store, { resync: { graceMs: 60_000 } });
    registry = second;
    const stored = (await store.listTools({ provider: 'steady' })).map((t) => ({ name: t.name, version: t.version }));
    await waitFor(() => (second.liveness.liveCatalogVersions('steady').includes(catalogVersion(stored)) ? true : undefined), { timeoutMs: 10_000 });
    expect(second.unconfirmedProviders).toEqual(['steady']);
    expect((await second.settleStoredCatalogs()).confirmed).toEqual(['steady']);
    expect((await store.listTools({ provider: 'steady' })).map((t) => t.name)).toEqual(['alpha', 'beta']);
  });
});

/** `bus`, except that subscriptions to the registry's resync request hear nothing. */
function deafToResync(bus: Bus): Bus {
  return new Proxy(bus, {
    get(target, prop) {
      if (prop === 'subscribe') {
        return (subject: string, ...rest: unknown[]) =>
          subject === registrySubject('resync') ? Promise.resolve({ close: async () => undefined }) : (target.subscribe as (...a: unknown[]) => unknown).call(target, subject, ...rest);
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
