/**
 * The registry: ToolHub's memory. Mirrors every provider's catalog (from adapters' announcements)
 * with the operators' overlays, keeps the preload list and per-tool statistics (from durable
 * `tool.called` events), answers tool search and the preload set, and publishes invalidation
 * events whenever what agents see changes.
 */
import { catalogVersion, errorReply, okReply, type SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus, BusMessage, BusReply, Subscription } from '@toolhub/bus';
import {
  ADAPTER_DISCOVERY_SUBJECT,
  ADAPTER_HEARTBEAT_SUBJECT,
  ADAPTER_HEARTBEAT_WILDCARD,
  catalogWildcard,
  CatalogResyncRequest,
  type CatalogSyncStatus,
  GetCatalogStatusRequest,
  GetCatalogStatusResponse,
  type SearchStatus,
  closestMatches,
  eventWildcard,
  GetPreloadSetRequest,
  HEADER_DEADLINE,
  GetPreloadSetResponse,
  GetToolRequest,
  GetToolResponse,
  type Importance,
  parseToolId,
  type PreloadSuggestion,
  ProviderBindingGuard,
  readHeartbeat,
  RegisteredTool,
  registrySubject,
  compareKeys,
  LIST_REPLY_BUDGET_BYTES,
  type ListRegisteredToolsRequest,
  type ListRegisteredToolsResponse,
  normalizePath,
  paginate,
  SearchToolsRequest,
  SearchToolsResponse,
  type GetRegistryStatusResponse,
  type ToolCalled,
  ToolHubError,
  type ToolInfo,
  toolId,
} from '@toolhub/contracts';
import { buildPreloadSet } from '@toolhub/agent-kit';
import { HybridSearch, type HybridSearchOptions, ToolSearchIndex } from '@toolhub/search';
import type { PreloadList, RegistryStore, StoredTool, ToolStats, ToolStatsSort, ToolStatsSummary } from '@toolhub/store';

import { CatalogSync, type CatalogSyncOptions } from './catalog-sync';
import { toRegisteredTool, toToolInfo } from './convert';
import { type LivenessOptions, ProviderLiveness } from './liveness';
import { ChangeEvents } from './events';
import { applyOverlaysFile, type ImportResult, parseOverlaysFile } from './overlays-file';
import { type GraceRound, ResyncGrace, type ResyncGraceOptions } from './resync-grace';
import { toWireSearchStatus } from './search-status';
import { SharedLearning } from './shared-learning';
import { StatsIngestion } from './stats-ingestion';
import { suggestPreload } from './suggest';

export interface RegistryOptions {
  /** Paged catalog sync: page timeout and retries (see CatalogSyncOptions). */
  catalogSync?: CatalogSyncOptions;
  /** When a provider counts as down for search (heartbeat TTL, start-up grace; see LivenessOptions). */
  liveness?: LivenessOptions;
  /**
   * After the start: how long adapters have to re-announce before stored catalogs they did not
   * confirm are retired (no live replica) or asked for again (see ResyncGrace).
   * @default { graceMs: 30000, rounds: 3 }
   */
  resync?: ResyncGraceOptions;
  /** Durable consumer name of the statistics ingestion (shared by registry replicas). @default 'registry-stats' */
  statsConsumer?: string;
  /**
   * Most `tool.called` messages handed to one `store.recordCalls`. A message holds one event or a
   * dispatcher's batch (up to 64 by default), so a call gets up to 64 times as many events: at most
   * 80,000 (~12 MB raw) with the defaults. The store splits them into stored batches of
   * `maxBatchEvents` (5,000), each sharing its fixed cost and the write of each tool's statistics
   * among its events — with Zipf-distributed tools a large batch writes far fewer statistics
   * documents per event than a small one — and the consumer's in-progress acknowledgements keep a long write from
   * redelivery for up to 10 × the ack wait. Each stored batch must be written well within the
   * consumer's 30 s ack wait, past which JetStream redelivers it while it is still being written
   * (counted once all the same, but written twice): on FerretDB/PostgreSQL a full batch takes about
   * a second, on FerretDB's SQLite handler an estimated 20–30 times that — lower `maxBatchEvents`
   * there (figures: bench/registry/README.md, "Figures the code cites"). (5,000 until
   * 2026-11-27 15:00, when dispatchers sent up to 16 events per message.)
   * @default 1250
   */
  statsBatch?: number;
  /**
   * Where a NEW statistics consumer starts on an empty store: this far back (0 = the whole 7-day
   * stream). With statistics in the store (a restored snapshot) it starts just before the newest
   * call the store holds instead. An existing consumer resumes where it stopped. @default 3600000 (1 h)
   */
  statsStartWindowMs?: number;
  /**
   * How long fewer than `statsBatch` events wait for more before they are written: the store's
   * cost is mostly per batch and per tool written, so at a few hundred calls/s one write per
   * half second instead of one per event cuts the statistics' CPU per event many times over
   * (bench/registry, "trickle"). Statistics then lag calls by up to this long. @default 500
   */
  statsLingerMs?: number;
  logger?: SdkLogger;
  /**
   * Semantic search and learning from use (see @toolhub/search HybridSearch): with an `embedder`
   * (an OpenAI-compatible endpoint), searches are hybrid by default and tool vectors are kept in
   * the store; without one, lexical. `learning: false` switches learning from use off.
   * @default {} (lexical, learning on)
   */
  search?: Pick<HybridSearchOptions, 'embedder' | 'fusion' | 'learning' | 'queryTimeoutMs' | 'embedBatch'>;
}

/** Queue group of registry replicas: each request or announcement is handled by one of them. */
const QUEUE = 'toolhub-registry';
/** How often a live replica of a retired provider may make the registry ask for announcements. */
const RETIRED_RESYNC_INTERVAL_MS = 30_000;
const silent: SdkLogger = { info() {}, warn() {}, error() {} };

export class Registry {
  private readonly subs: Subscription[] = [];
  private ingestion?: StatsIngestion;
  private readonly events: ChangeEvents;
  private readonly log: SdkLogger;
  /** True while the durable tool.called consumer runs (a readiness condition). */
  get eventsConsumerRunning(): boolean {
    return this.ingestion !== undefined && !this.consumerClosed;
  }
  private consumerClosed = false;

  private readonly catalogSync: CatalogSync;
  /** Refuses catalogs and heartbeats whose subject names another provider than their payload; its counts feed the metrics. */
  readonly providerBinding: ProviderBindingGuard;
  /** Stored catalogs not confirmed since the start (settled after the resync grace period). */
  private grace?: ResyncGrace;
  /** When a live replica of each retired provider last made this registry ask for announcements. */
  private readonly retiredAskedAt = new Map<string, number>();
  /** Which providers have a live adapter replica (from heartbeats). */
  readonly liveness: ProviderLiveness;
  /** Events ingested since start (for benchmarks and health). */
  get ingested(): number {
    return this.ingestion?.ingested ?? 0;
  }
  /** Lexical + semantic search over `search`, with learning from use; serves SearchTools. */
  readonly hybrid: HybridSearch;
  /** Learning from use shared with the other replicas and kept in the store. */
  private readonly learning: SharedLearning;

  private constructor(
    readonly bus: Bus,
    readonly store: RegistryStore,
    readonly search: ToolSearchIndex,
    private readonly options: Required<Omit<RegistryOptions, 'logger' | 'catalogSync' | 'search' | 'liveness' | 'resync'>>,
    logger: SdkLogger | undefined,
    catalogSyncOptions: CatalogSyncOptions = {},
    searchOptions: RegistryOptions['search'] = {},
    livenessOptions: LivenessOptions = {},
  ) {
    this.events = new ChangeEvents(bus);
    this.log = logger ?? silent;
    this.liveness = new ProviderLiveness(Date.now(), livenessOptions);
    this.providerBinding = new ProviderBindingGuard(this.log);
    this.catalogSync = new CatalogSync(bus, (p, v, t) => this.applyCatalog(p, v, t), this.log, catalogSyncOptions, this.providerBinding);
    this.hybrid = new HybridSearch(search, { ...searchOptions, vectors: store, logger: this.log });
    this.learning = new SharedLearning(bus, store, this.hybrid, this.log);
  }

  /** Loads the catalog into the search index, starts serving and consuming, asks adapters to re-announce. */
  static async start(bus: Bus, store: RegistryStore, options: RegistryOptions = {}): Promise<Registry> {
    const registry = new Registry(
      bus,
      store,
      new ToolSearchIndex(),
      { statsConsumer: options.statsConsumer ?? 'registry-stats', statsBatch: options.statsBatch ?? 1250, statsStartWindowMs: options.statsStartWindowMs ?? 3_600_000, statsLingerMs: options.statsLingerMs ?? 500 },
      options.logger,
      options.catalogSync,
      options.search,
      options.liveness,
    );
    const stored = await store.listTools();
    registry.search.upsert(stored.filter((t) => t.enabled).map(toToolInfo));
    registry.grace = registry.resyncGrace(stored, options.resync);
    // In the background: vectors of unchanged tools come from the store; searches meanwhile are
    // lexical for tools without one (the reply's note says so).
    void registry.hybrid.syncVectors();
    const serve = (op: 'search' | 'preload' | 'info' | 'status', fn: (msg: BusMessage) => Promise<Uint8Array>) =>
      bus.serve(registrySubject(op), async (msg): Promise<BusReply> => {
        try {
          return okReply(await fn(msg));
        } catch (err) {
          if (!(err instanceof ToolHubError)) registry.log.error({ err, op }, 'registry request failed');
          return errorReply(err);
        }
      }, { queue: QUEUE });
    registry.subs.push(
      await serve('search', async (m) => {
        // The dispatcher's deadline for this request: a slow embeddings endpoint must not outlast it.
        const deadlineUnixMs = Number(m.headers[HEADER_DEADLINE]) || undefined;
        return SearchToolsResponse.encode(registry.liveness.markHits(await registry.hybrid.search({ ...SearchToolsRequest.decode(m.data), deadlineUnixMs }))).finish();
      }),
      // Heartbeats tell which providers have a live replica: hits of the others rank last, marked.
      // Per-provider subjects (bound to the sender by NATS permissions) and the legacy shared one.
      await bus.subscribe(ADAPTER_HEARTBEAT_WILDCARD, (m) => registry.onHeartbeat(m)),
      await bus.subscribe(ADAPTER_HEARTBEAT_SUBJECT, (m) => registry.onHeartbeat(m)),
      await serve('preload', async (m) => GetPreloadSetResponse.encode(await registry.preloadSet(GetPreloadSetRequest.decode(m.data))).finish()),
      await serve('info', async (m) => {
        const req = GetToolRequest.decode(m.data);
        return GetToolResponse.encode({ tool: await registry.getTool(req.provider, req.name) }).finish();
      }),
      // Announcements on each provider's own subject, and on the legacy shared ones (adapters
      // built before per-provider subjects, where NATS permissions let them publish there).
      // Paged catalogs: the replica that takes the announcement pulls the pages (see CatalogSync).
      ...(await Promise.all(
        [catalogWildcard('sync'), registrySubject('sync'), catalogWildcard('catalog'), registrySubject('catalog')].map((s) => bus.subscribe(s, (m) => registry.onAnnouncement(m), { queue: QUEUE })),
      )),
      await serve('status', async (m) => GetCatalogStatusResponse.encode({ providers: registry.catalogStatus(GetCatalogStatusRequest.decode(m.data).provider), search: registry.searchStatus() }).finish()),
      // Every replica keeps its own search index: follow changes made through any replica.
      await bus.subscribe(eventWildcard('catalog.changed'), (m) => registry.onCatalogChanged(m.subject.slice(m.subject.lastIndexOf('.') + 1))),
      await bus.subscribe(eventWildcard('tool.invalidated'), (m) => registry.refreshProvider(m.subject.slice(m.subject.lastIndexOf('.') + 1))),
      // Learning from use: what other replicas learn, and what the store kept (before runs arrive).
      ...(await registry.learning.start()),
    );
    registry.ingestion = await StatsIngestion.start(bus, store, {
      durable: registry.options.statsConsumer,
      maxBatch: registry.options.statsBatch,
      lingerMs: registry.options.statsLingerMs,
      startWindowMs: registry.options.statsStartWindowMs,
      log: registry.log,
      // Learning from use: runs that carry the search id of the search that found them.
      onRecorded: (events) => registry.learnFrom(events),
    });
    registry.askForAnnouncements('registry started');
    bus.publish(ADAPTER_DISCOVERY_SUBJECT, new Uint8Array()); // heartbeats now, not in up to 5 s
    registry.grace.start();
    return registry;
  }

  /** Providers whose stored adapter catalogs must be confirmed after the start (see ResyncGrace). */
  private resyncGrace(stored: readonly StoredTool[], options: ResyncGraceOptions = {}): ResyncGrace {
    const providers = new Set(stored.filter((t) => t.source === 'adapter').map((t) => t.provider));
    return new ResyncGrace(
      providers,
      {
        inspect: async (provider) => {
          const live = this.liveness.liveCatalogVersions(provider);
          if (live.length === 0) return { live: false, matchesStore: false };
          const tools = (await this.store.listTools({ provider })).filter((t) => t.source === 'adapter');
          return { live: true, matchesStore: live.includes(catalogVersion(tools)) };
        },
        retire: (provider, checkedAt) => this.catalogSync.retire(provider, checkedAt, 'no adapter replica re-announced this catalog within the grace period after the registry started; its tools were retired'),
        askAgain: () => this.askForAnnouncements('catalog not confirmed after the registry started'),
      },
      this.log,
      options,
    );
  }

  /**
   * A replica of `provider` was heard from. If its catalog was retired (no replica was heard during
   * the grace period after the start, e.g. heartbeats lost while the bus reconnected), ask for
   * announcements again, at most every {@link RETIRED_RESYNC_INTERVAL_MS}: an adapter that was
   * running all along does not announce on its own, and its tools would stay retired.
   */
  private onLiveReplica(provider: string | undefined): void {
    if (!provider || !this.catalogSync.isRetired(provider)) return;
    const now = Date.now();
    if (now - (this.retiredAskedAt.get(provider) ?? -Infinity) < RETIRED_RESYNC_INTERVAL_MS) return;
    this.retiredAskedAt.set(provider, now);
    this.log.info({ provider }, 'a replica of a retired provider is live: asking adapters to announce their catalogs');
    this.askForAnnouncements(`provider ${provider} was retired and has a live replica`);
  }

  /** Asks every adapter to announce its catalog again (a broadcast; unchanged catalogs are skipped on arrival). */
  private askForAnnouncements(reason: string): void {
    this.bus.publish(registrySubject('resync'), CatalogResyncRequest.encode({ reason }).finish());
  }

  /** Stored providers not confirmed since the start (empty once the resync grace period settled them). */
  get unconfirmedProviders(): string[] {
    return this.grace?.unconfirmed ?? [];
  }

  /** Settles the stored catalogs now instead of at the end of the grace period (tests, operators). */
  settleStoredCatalogs(): Promise<GraceRound> {
    return this.grace?.settle() ?? Promise.resolve({ confirmed: [], retired: [], pending: [], gaveUp: [] });
  }

  /** A heartbeat whose subject names another provider than its payload is refused (counted in providerBinding). */
  private onHeartbeat(msg: BusMessage): void {
    const read = readHeartbeat(msg.subject, msg.data);
    if (!read || !this.providerBinding.accept('heartbeat', read.binding, read.health.provider, msg.subject)) return;
    this.onLiveReplica(this.liveness.onHealth(read.health));
  }

  /** Applies an adapter's catalog announcement (inline or paged): see CatalogSync. */
  onAnnouncement(msg: BusMessage): Promise<void> {
    return this.catalogSync.onAnnouncement(msg);
  }

  /** Sync state and quarantined tools/sources per provider (all providers when `provider` is ''). */
  catalogStatus(provider = ''): CatalogSyncStatus[] {
    return this.catalogSync.statuses(provider);
  }

  /** The search mode in force and why, as GetStatus and GetCatalogStatus carry it. */
  searchStatus(): SearchStatus {
    return toWireSearchStatus(this.hybrid.status());
  }

  /** Switches a provider to a screened catalog: store, events, search index. */
  private async applyCatalog(provider: string, catalogVersion: string, tools: ToolInfo[]): Promise<void> {
    const res = await this.store.upsertTools(provider, tools);
    this.grace?.confirm(provider);
    const versions = new Map(tools.map((t) => [t.name, t.version]));
    const id = (n: string) => toolId(provider, n);
    await this.events.invalidated([
      ...res.changed.map((n) => ({ toolId: id(n), newVersion: versions.get(n) ?? '', reason: 'definition changed' })),
      ...res.removed.map((n) => ({ toolId: id(n), newVersion: '', reason: 'removed from the catalog' })),
    ]);
    if (res.added.length || res.removed.length || res.changed.length) {
      await this.events.catalogChanged(provider, catalogVersion, res.added.map(id), res.removed.map(id), res.changed.map(id));
    }
    if (res.conflicts.length) this.log.warn({ provider, conflicts: res.conflicts }, 'adapter tools clash with tools registered through the API; the API tools were kept');
    await this.refreshProvider(provider);
    this.log.info({ provider, added: res.added.length, changed: res.changed.length, removed: res.removed.length }, 'catalog synced');
  }

  /** A provider's catalog changed through any replica: refresh the index, and notice a retirement by another replica. */
  private async onCatalogChanged(provider: string): Promise<void> {
    await this.refreshProvider(provider);
    try {
      const adapterTools = (await this.store.listTools({ provider })).filter((t) => t.source === 'adapter').length;
      this.catalogSync.forgetIfEmptied(provider, adapterTools);
    } catch (err) {
      this.log.warn({ err, provider }, 'could not check the stored catalog after a change');
    }
  }

  /** Reloads one provider's enabled tools into the search index (and embeds changed ones in the background). */
  async refreshProvider(provider: string): Promise<void> {
    try {
      const change = this.search.replaceProvider(provider, (await this.store.listTools({ provider, enabled: true })).map(toToolInfo));
      if (change.added || change.updated || change.removed) void this.hybrid.syncVectors();
    } catch (err) {
      this.log.warn({ err, provider }, 'search index refresh failed');
    }
  }

  /**
   * Learning from use: a successful run that carries the search id of the search that found it
   * teaches the search (see HybridSearch.learnRun) — here when this replica answered the search,
   * else on the replica that did (the run is broadcast to it). The replica that learns stores the
   * pairs and broadcasts them to the others (see SharedLearning). A run whose search no live
   * replica remembers (answered before a restart, or over an hour ago) teaches nothing.
   */
  learnFrom(events: readonly ToolCalled[]): void {
    this.learning.learnFrom(events);
  }

  async getTool(provider: string, name: string): Promise<RegisteredTool> {
    const t = await this.store.getTool(provider, name);
    if (!t) throw await this.notFound(provider, name);
    return toRegisteredTool(t);
  }

  /** Every tool of `provider` (all when empty) at or below `path`, in tool id order. */
  async listRegisteredTools(provider: string, path: string): Promise<RegisteredTool[]> {
    const tools = (await this.store.listTools({ provider: provider || undefined, pathPrefix: path || undefined })).map(toRegisteredTool);
    // Sorted here too, so paging does not depend on each store backend's collation.
    return tools.sort((a, b) => compareKeys([registeredId(a)], [registeredId(b)]));
  }

  /**
   * One page of {@link listRegisteredTools} (see `paginate` in @toolhub/contracts: keyset tokens,
   * at most MAX_PAGE_SIZE tools and LIST_REPLY_BUDGET_BYTES per reply; a request without page fields
   * gets the whole list when it fits).
   * @throws ToolHubError invalid_argument for a bad or expired token; failed_precondition when an
   *   unpaged list is over the reply budget.
   */
  async listRegisteredToolsPage(req: ListRegisteredToolsRequest, budgetBytes = LIST_REPLY_BUDGET_BYTES): Promise<ListRegisteredToolsResponse> {
    const all = await this.listRegisteredTools(req.provider, req.path);
    const page = paginate(all, req, {
      rpc: 'ListRegisteredTools',
      scope: `provider=${JSON.stringify(req.provider)} path=${JSON.stringify(normalizePath(req.path))}`,
      key: (t) => [registeredId(t)],
      compare: compareKeys,
      size: (t) => RegisteredTool.encode(t).finish().length,
      label: (t) => `tool ${registeredId(t)}`,
      budgetBytes,
    });
    return { tools: page.items, nextPageToken: page.nextPageToken, total: page.total };
  }

  async registerTool(tool: ToolInfo): Promise<RegisteredTool> {
    const stored = await this.store.registerTool(tool);
    await this.events.catalogChanged(stored.provider, stored.version, [stored.id], [], []);
    await this.refreshProvider(stored.provider);
    return toRegisteredTool(stored);
  }

  async updateTool(tool: ToolInfo): Promise<RegisteredTool> {
    const stored = await this.store.updateTool(tool);
    await this.changed(stored, 'definition updated by an operator');
    return toRegisteredTool(stored);
  }

  async deleteTool(provider: string, name: string): Promise<void> {
    await this.store.deleteTool(provider, name);
    const id = toolId(provider, name);
    await this.events.invalidated([{ toolId: id, newVersion: '', reason: 'deleted by an operator' }]);
    await this.events.catalogChanged(provider, '', [], [id], []);
    await this.refreshProvider(provider);
  }

  async setOverlay(id: string, patch: { importance?: Importance; enabled?: boolean; fallbacks?: string[] }, changedBy = ''): Promise<RegisteredTool> {
    const ref = parseToolId(id);
    if (!ref) throw ToolHubError.invalidArgument(`${JSON.stringify(id)} is not a tool id; use "<provider>:<name>", e.g. "local:file_read".`, [{ field: 'tool_id', message: 'malformed', example: '"local:file_read"' }]);
    const stored = await this.store.setOverlay(ref.provider, ref.name, { ...patch, changedBy });
    await this.changed(stored, 'overlay changed by an operator');
    return toRegisteredTool(stored);
  }

  getPreloadList(): Promise<PreloadList> {
    return this.store.getPreloadList();
  }

  async setPreloadList(toolIds: string[], expectedRevision: number, changedBy: string, comment: string): Promise<PreloadList> {
    if (!changedBy) throw ToolHubError.invalidArgument('changed_by is required: say who changes the preload list (it is versioned).', [{ field: 'changed_by', message: 'required', example: '"alice"' }]);
    return this.store.setPreloadList({ toolIds, expectedRevision, changedBy, comment });
  }

  async preloadSet(req: GetPreloadSetRequest): Promise<GetPreloadSetResponse> {
    const list = await this.store.getPreloadList();
    const tools: ToolInfo[] = [];
    for (const id of list.toolIds) {
      const ref = parseToolId(id);
      const t = ref ? await this.store.getTool(ref.provider, ref.name) : undefined;
      if (t?.enabled) tools.push(toToolInfo(t));
    }
    return buildPreloadSet(tools, req.format);
  }

  async getToolStats(id: string): Promise<ToolStats> {
    const stats = await this.store.getToolStats(id);
    if (!stats) {
      const ref = parseToolId(id);
      if (ref && !(await this.store.getTool(ref.provider, ref.name))) throw await this.notFound(ref.provider, ref.name);
      throw ToolHubError.notFound(`Tool ${id} has not been called yet, so it has no statistics.`);
    }
    return stats;
  }

  listToolStats(sortBy: ToolStatsSort, limit: number, provider: string): Promise<ToolStatsSummary[]> {
    return this.store.listToolStats({ sortBy, limit: limit || 50, provider: provider || undefined });
  }

  async suggestPreload(limit: number): Promise<{ suggestions: PreloadSuggestion[]; removals: PreloadSuggestion[] }> {
    const [stats, list] = await Promise.all([this.store.listToolStats({ sortBy: 'calls', limit: 1000 }), this.store.getPreloadList()]);
    return suggestPreload({ stats, preloaded: list.toolIds, now: Date.now(), limit: limit || 10 });
  }

  /**
   * What an overlays file would change, as it is now (for the audit's before-state): the current
   * overlay of each tool the file names (null when it has none or the tool is unknown) and, when
   * the file sets the preload list, the current list.
   */
  async overlaysBefore(content: string, format: string): Promise<{ tools: Record<string, unknown>; preload?: string[] }> {
    const file = parseOverlaysFile(content, format);
    const tools: Record<string, unknown> = {};
    for (const id of Object.keys(file.tools ?? {})) {
      const ref = parseToolId(id);
      tools[id] = (ref && (await this.store.getTool(ref.provider, ref.name))?.overlay) ?? null;
    }
    return file.preload ? { tools, preload: (await this.store.getPreloadList()).toolIds } : { tools };
  }

  async importOverlays(content: string, format: string, changedBy: string, dryRun: boolean): Promise<ImportResult> {
    const file = parseOverlaysFile(content, format);
    const result = await applyOverlaysFile(this.store, file, changedBy || 'import', dryRun);
    if (!dryRun) {
      for (const id of result.toolIds) {
        const ref = parseToolId(id)!;
        const t = await this.store.getTool(ref.provider, ref.name);
        if (t) await this.changed(t, 'overlay imported');
      }
    }
    return result;
  }

  /** Statistics ingestion health: lag behind the calls, store failures, where the consumer started. */
  async statsStatus(): Promise<GetRegistryStatusResponse> {
    const s = this.ingestion?.status();
    const lag = await this.ingestion?.lag();
    return {
      statsLagEvents: lag?.events ?? 0,
      statsLagSeconds: lag?.seconds ?? 0,
      ingestedEvents: s?.ingested ?? 0,
      storeHealthy: s?.storeHealthy ?? true,
      storeFailures: s?.storeFailures ?? 0,
      storeFailuresTotal: s?.storeFailuresTotal ?? 0,
      storeDetail: (s?.storeDetail ?? 'ok') + (lag ? '' : '; consumer lag unknown (NATS unreachable or in-process bus)'),
      statsStart: s?.start ?? '',
    };
  }

  async close(): Promise<void> {
    this.grace?.close();
    this.consumerClosed = true;
    await this.ingestion?.close();
    await Promise.all(this.subs.splice(0).map((s) => s.close()));
    await this.learning.close();
    this.hybrid.close();
  }

  private async changed(stored: StoredTool, reason: string): Promise<void> {
    await this.events.invalidated([{ toolId: stored.id, newVersion: stored.version, reason }]);
    await this.refreshProvider(stored.provider);
  }

  private async notFound(provider: string, name: string): Promise<ToolHubError> {
    const names = (await this.store.listTools({ provider })).map((t) => t.name);
    const suggestions = closestMatches(name, names);
    return ToolHubError.notFound(
      `The registry has no tool ${toolId(provider, name)}.` + (suggestions.length ? ` Did you mean ${suggestions.join(' or ')}?` : ''),
      suggestions.map((s) => toolId(provider, s)),
    );
  }
}

function registeredId(t: RegisteredTool): string {
  return toolId(t.tool?.provider ?? '', t.tool?.name ?? '');
}
