/**
 * The dispatcher: the one object every door (gRPC, MCP, console) calls. A facade over two
 * services — the catalog ({@link CatalogService}: list, info, search, preload, as each principal
 * may see them) and the run pipeline ({@link RunPipeline}: admission, validation, routing,
 * retries, fallbacks, events) — plus what they share: provider discovery, run tracking, the
 * metadata cache and the event publisher, and their health.
 */
import { AdapterClient, type SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus } from '@toolhub/bus';
import type { Grants } from '@toolhub/auth';
import { type CallContext, EdgeCounters } from '@toolhub/grpc-edge';
import { type Cache, MemoryCache } from '@toolhub/cache';
import {
  type GetPreloadSetRequest,
  type GetPreloadSetResponse,
  type GetStatusResponse,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  Importance,
  type ListProvidersResponse,
  type ListToolsRequest,
  type ListToolsResponse,
  type RunToolRequest,
  type RunToolResponse,
  type SearchToolsRequest,
  type SearchToolsResponse,
} from '@toolhub/contracts';

import { AdmissionGate } from './admission';
import { CallEventPublisher } from './call-events';
import { CatalogService } from './catalog';
import { timeLeft } from './deadline';
import { InflightTracker } from './inflight';
import { CallerLimiter } from './limits';
import { MetadataCache } from './metadata-cache';
import { type DispatcherOptions, type ResolvedDispatcherOptions, withDefaults } from './options';
import { ProviderDirectory } from './providers';
import { RegistryClient } from './registry-client';
import { ReplicaProbe } from './replica-probe';
import { ProgressRouter } from './progress-router';
import { RunPipeline } from './run-pipeline';
import { ArgumentWorkerPool } from './argument-workers';
import { type ArgumentsValidator, defaultValidator } from './validator';
import { AsyncRuns } from './runs/async-runs';
import { QueueLimits } from './runs/queue-limits';
import { RunStats } from './runs/run-stats';
import { JetStreamRunQueue, LocalRunQueue } from './runs/run-queue';
import type { RunStore } from '@toolhub/run-store';

export { type ArgumentsValidator, mapArgumentsByName } from './validator';

/** Collaborators of the dispatcher; each has an in-process default. */
export interface DispatcherDeps {
  /** @default an in-memory cache */
  cache?: Cache;
  /** @default Ajv-based validation and safe repair (@toolhub/arguments); `false` leaves checking to the adapter */
  validator?: ArgumentsValidator | false;
  logger?: SdkLogger;
  /**
   * Which tools each principal may see and run. @default everyone sees everything (also the
   * case for the local principal, whatever the grants).
   */
  grants?: Grants;
  /** Async runs (StartRun and the rest). @default off: those methods answer FAILED_PRECONDITION */
  asyncRuns?: AsyncRunsConfig;
}

/** How a dispatcher keeps and works async runs. */
export interface AsyncRunsConfig {
  /** Where run records live: the embedded file (one process) or MongoDB (replicas). */
  store: RunStore;
  /** `local`: the store is the queue (one process); `jetstream`: the bus's work-queue stream, shared by replicas. */
  queue: 'local' | 'jetstream';
  /** Runs this dispatcher works at once. @default 8 */
  concurrency?: number;
  /** How long an ended run (and its result) is kept. @default 24 h */
  retentionMs?: number;
  /** JetStream: how long a run whose worker died waits before another replica takes it. @default 10000 */
  ackWaitMs?: number;
  /**
   * JetStream: the queue of the dispatchers sharing this store (a subject token; derive it from
   * the store's address), so dispatchers of another store on the same NATS never take its runs.
   * @default 'default'
   */
  queueName?: string;
  /** Longest `timeout_ms` one attempt of a run may ask for; StartRun refuses more. @default 3600000 (1 h) */
  maxAttemptMs?: number;
  /** Queued runs one principal may have; StartRun past it is refused (RESOURCE_EXHAUSTED). @default 1000 */
  maxQueuedPerPrincipal?: number;
  /** Queued runs in all. @default 10000 */
  maxQueued?: number;
  /** JetStream: a run still queued this long is queued again (its message may be lost). @default 60000 */
  requeueAfterMs?: number;
}

const silent: SdkLogger = { info() {}, warn() {}, error() {} };

export class Dispatcher {
  readonly options: ResolvedDispatcherOptions;
  /** Durable `tool.called` events; never blocks or fails a call. */
  readonly callEvents: CallEventPublisher;
  readonly metadata: MetadataCache;
  /** Global concurrency and queue limit of runs. */
  readonly admission: AdmissionGate;
  /** List, info, search and preload as each principal may see them. */
  readonly catalog: CatalogService;
  /** The grants in force (GetAccess shows them); undefined: everyone sees everything. */
  readonly grants: Grants | undefined;
  /** The registry over NATS (search status for GetStatus). */
  private readonly registry: RegistryClient;
  /** Runs: admission, validation, routing, retries, fallbacks, events. */
  readonly runs: RunPipeline;
  private readonly client: AdapterClient;
  private readonly log: SdkLogger;
  private readonly validator: ArgumentsValidator | undefined;
  /** Refusals at the gRPC edge (connections, in-flight bytes, stalled requests), for the metrics. */
  readonly edgeCounters = new EdgeCounters();
  /** Worker threads validating large arguments (none with a custom validator or argumentWorkerBytes 0). */
  readonly argumentWorkers: ArgumentWorkerPool | undefined;
  private probe: ReplicaProbe | undefined;
  private readonly progress: ProgressRouter;
  /** Async runs, when configured (see {@link AsyncRunsConfig}). */
  asyncRuns: AsyncRuns | undefined;
  /** Queue wait, run time and retries of async runs. */
  readonly runStats = new RunStats();

  private constructor(
    readonly bus: Bus,
    readonly providers: ProviderDirectory,
    private readonly inflight: InflightTracker,
    options: ResolvedDispatcherOptions,
    deps: DispatcherDeps,
  ) {
    this.options = options;
    this.log = deps.logger ?? silent;
    // While some replicas of a provider are refused (another contract major), calls go to the
    // accepted replicas by their own subjects, never to the queue group the refused ones share.
    this.client = new AdapterClient(bus, (provider) => providers.route(provider));
    this.progress = new ProgressRouter(bus, inflight.dispatcherId, this.log);
    this.callEvents = new CallEventPublisher(bus, {
      durability: options.eventDurability,
      outboxDir: options.outboxDir,
      eventsPerMessage: options.eventsPerMessage,
      claimGroups: options.claimGroups,
      // Under overload the events wait (on disk with the outbox) until the burst has been answered.
      holdWhile: () => this.admission.overloaded,
      onError: (err) => this.log.warn({ err }, 'tool.called event not stored yet; will retry'),
      onRecovered: (events, from, damage) => {
        this.log.info({ events, from }, 'publishing tool.called events a stopped dispatcher left in its outbox');
        for (const d of damage) this.log.warn({ ...d }, d.kind === 'torn_tail' ? 'outbox segment ended in a torn record (cut short by a crash or a full disk); dropped it' : 'damaged outbox segment: its whole records are published, the file was moved aside');
      },
      onOutboxState: (state) =>
        state.healthy ? this.log.info({}, 'event outbox writable again') : this.log.error({ detail: state.detail }, 'event outbox not writable; calls go on, events kept in memory until it is'),
    });
    this.admission = new AdmissionGate({ maxConcurrent: options.maxConcurrentRuns, maxQueued: options.maxQueuedRuns, maxQueueWaitMs: options.maxQueueWaitMs });
    this.metadata = new MetadataCache(deps.cache ?? new MemoryCache(), options.ttlMs);
    // Large arguments are validated on worker threads, off the thread that serves every caller.
    if (deps.validator === undefined && options.argumentWorkerBytes > 0) this.argumentWorkers = new ArgumentWorkerPool(options.argumentWorkers, options.maxArgumentDepth);
    const offThread = this.argumentWorkers && { pool: this.argumentWorkers, minBytes: options.argumentWorkerBytes, minNodes: options.argumentWorkerNodes };
    this.validator = deps.validator === false ? undefined : (deps.validator ?? defaultValidator(options.maxArgumentDepth, this.log, offThread));
    this.registry = new RegistryClient(bus);
    this.grants = deps.grants;
    this.catalog = new CatalogService({ client: this.client, registry: this.registry, metadata: this.metadata, providers, options, grants: deps.grants });
    this.runs = new RunPipeline({
      bus,
      client: this.client,
      catalog: this.catalog,
      admission: this.admission,
      limiter: new CallerLimiter(options.maxConcurrentPerCaller),
      inflight,
      progress: this.progress,
      callEvents: this.callEvents,
      validator: this.validator,
      options,
      log: this.log,
    });
  }

  /** Calls (attempts) listening to their tool's progress right now; 0 when no call is. */
  get progressListeners(): number {
    return this.progress.size;
  }

  /** Creates a dispatcher on `bus`: starts provider discovery, run tracking and cache invalidation. */
  static async create(bus: Bus, options: DispatcherOptions = {}, deps: DispatcherDeps = {}): Promise<Dispatcher> {
    const resolved = withDefaults(options);
    const providers = await ProviderDirectory.start(bus, resolved.providerTtlMs, deps.logger ?? silent);
    // A replica that dies loses the acks of the calls it had just received: those get a
    // second (or the TTL, if shorter) to be confirmed by a live replica before they fail too.
    const inflight = await InflightTracker.start(bus, {
      ackGraceMs: Math.min(resolved.providerTtlMs, 1000),
      onUnconfirmedFailed: (provider, failed, reason) => dispatcher.log.warn({ provider, reason, failed }, 'adapter replica gone; failed in-flight calls no live replica confirmed'),
    });
    const dispatcher: Dispatcher = new Dispatcher(bus, providers, inflight, resolved, deps);
    providers.onReplicaGone((provider, instance, reason) => {
      const failed = inflight.replicaGone(provider, instance, reason);
      if (failed) dispatcher.log.warn({ provider, instance, reason, failed }, 'adapter replica gone; failed its in-flight calls');
    });
    // A graceful stop drains: the replica's calls may still answer, so they are not failed now.
    providers.onReplicaStopping((provider, instance) =>
      inflight.replicaStopping(provider, instance, resolved.adapterDrainMs, (failed) =>
        dispatcher.log.warn({ provider, instance, failed, drainMs: resolved.adapterDrainMs }, 'stopping adapter replica did not finish its calls in time; failed them'),
      ),
    );
    await dispatcher.metadata.listen(bus, (err) => dispatcher.log.warn({ err }, 'malformed invalidation event'));
    if (resolved.replicaProbeMs > 0) {
      dispatcher.probe = new ReplicaProbe(bus, inflight, {
        intervalMs: resolved.replicaProbeMs,
        known: () => providers.instances(),
        onGone: (provider, instance, reason, failed) => dispatcher.log.warn({ provider, instance, reason, failed }, 'adapter replica gone; failed its in-flight calls'),
        onBusLost: (failed, detail) => dispatcher.log.warn({ failed, detail }, 'NATS connection lost; failed the runs in flight'),
        onUnacknowledged: (provider, failed) => dispatcher.log.warn({ provider, failed }, 'no adapter replica acknowledged runs within 3 s; failed them (a frozen replica?)'),
      });
    }
    if (deps.asyncRuns) await dispatcher.startAsyncRuns(deps.asyncRuns);
    return dispatcher;
  }

  /**
   * Turns async runs on (once): their methods answer FAILED_PRECONDITION until then. The dispatcher
   * app calls it when its runs database answers, so a database down at start delays async runs
   * without stopping RunTool.
   */
  async startAsyncRuns(runs: AsyncRunsConfig): Promise<AsyncRuns> {
    if (this.asyncRuns) return this.asyncRuns;
    const resolved = this.options;
    const concurrency = runs.concurrency ?? 8;
    const maxAttemptMs = runs.maxAttemptMs ?? 3_600_000;
    const queue =
      runs.queue === 'local'
        ? new LocalRunQueue(runs.store, concurrency)
        : new JetStreamRunQueue(this.bus, { concurrency, ackWaitMs: runs.ackWaitMs ?? 10_000, maxWorkMs: maxAttemptMs + 60_000, queue: runs.queueName ?? 'default' });
    this.asyncRuns = await AsyncRuns.start(
      {
        store: runs.store,
        queue,
        bus: this.bus,
        pipeline: this.runs,
        catalog: this.catalog,
        log: this.log,
        maxArgumentDepth: resolved.maxArgumentDepth,
        maxAttemptMs,
        queueLimits: new QueueLimits(runs.store, { perPrincipal: runs.maxQueuedPerPrincipal, total: runs.maxQueued }),
        retryBaseMs: resolved.retryBaseMs,
        retryMaxMs: resolved.retryMaxMs,
        onAttempt: (s) => this.runStats.observe(s),
      },
      // Replicas: runs of a dispatcher that died are also looked for every ack wait (see sweepOrphans).
      { retentionMs: runs.retentionMs, orphanSweepMs: runs.queue === 'jetstream' ? (runs.ackWaitMs ?? 10_000) : 0, requeueAfterMs: runs.requeueAfterMs },
    );
    return this.asyncRuns;
  }

  listTools(req: ListToolsRequest, call: CallContext): Promise<ListToolsResponse> {
    return this.catalog.listTools(req, call);
  }

  getToolInfo(req: GetToolInfoRequest, call: CallContext): Promise<GetToolInfoResponse> {
    return this.catalog.getToolInfo(req, call);
  }

  searchTools(req: SearchToolsRequest, call: CallContext): Promise<SearchToolsResponse> {
    return this.catalog.searchTools(req, call);
  }

  getPreloadSet(req: GetPreloadSetRequest, call: CallContext): Promise<GetPreloadSetResponse> {
    return this.catalog.getPreloadSet(req, call);
  }

  /** Providers as this caller may see them (only those with tools visible to it, counted for it). */
  listProvidersFor(call: CallContext): Promise<ListProvidersResponse> {
    return this.catalog.listProvidersFor(call);
  }

  /** {@link status} with the providers this caller may see. */
  async statusFor(call: CallContext): Promise<GetStatusResponse> {
    const [providers, search] = await Promise.all([this.listProvidersFor(call), this.registry.searchStatus(timeLeft(call, 2000))]);
    return { ...this.status(), providers: providers.providers, search };
  }

  runTool(req: RunToolRequest, call: CallContext): Promise<RunToolResponse> {
    return this.runs.runTool(req, call);
  }

  listProviders(): ListProvidersResponse {
    return { providers: this.providers.status() };
  }

  /** Health detail for operators: cache state, event backlog, in-flight runs, providers. */
  status(): GetStatusResponse {
    const cache = this.metadata.cache.health();
    return {
      cacheHealthy: cache.healthy,
      cacheDetail: cache.detail,
      pendingEvents: this.callEvents.backlog,
      droppedEvents: this.callEvents.dropped,
      inflightRuns: this.inflight.size,
      providers: this.providers.status(),
      ...this.busStatus(),
      activeRuns: this.admission.running,
      queuedRuns: this.admission.queued,
      shedRuns: this.admission.shed,
      eventDurability: this.callEvents.durability,
      recoveredEvents: this.callEvents.recovered,
    };
  }

  /** The NATS connection as health checks see it. */
  busStatus(): { busConnected: boolean; busDetail: string } {
    const c = this.bus.connection?.();
    return c ? { busConnected: c.connected, busDetail: c.detail } : { busConnected: true, busDetail: 'in-process bus' };
  }

  /**
   * Loads the info of every core-importance tool of the live providers into the cache, so the
   * first agents after a restart do not all miss at once. Returns how many tools were warmed.
   */
  async warmCoreTools(timeoutMs = 5000): Promise<number> {
    const call: CallContext = { deadline: Date.now() + timeoutMs, requestId: 'warm-start' };
    // The validator's first use costs 100–200 ms of CPU (Ajv builds its meta-schema): here, not
    // in the middle of the first burst of calls.
    this.validator?.warmUp?.();
    let warmed = 0;
    for (const provider of this.providers.known()) {
      try {
        const list = await this.client.list(provider, '', true, { timeoutMs: timeLeft(call, this.options.metadataTimeoutMs) });
        for (const t of list.tools.filter((t) => t.importance === Importance.IMPORTANCE_CORE)) {
          const tool = await this.catalog.resolveTool(provider, t.name, call);
          if (tool.tool) this.validator?.prepare?.(tool.tool);
          warmed++;
        }
      } catch (err) {
        this.log.warn({ err, provider }, 'warm start skipped a provider');
      }
    }
    return warmed;
  }

  async close(): Promise<void> {
    // First: running async runs are handed back (another replica, or the next start, takes them).
    await this.asyncRuns?.close();
    this.probe?.close();
    await this.argumentWorkers?.close();
    await this.callEvents.close();
    await this.metadata.close();
    await this.inflight.close();
    await this.progress.close();
    await this.providers.close();
  }
}
