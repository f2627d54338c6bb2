/**
 * The dispatcher's domain logic, independent of gRPC: resolves tools (cache → registry → adapter),
 * validates and repairs arguments, routes runs to the adapter named by `provider` within the
 * caller's deadline, retries where that is safe, walks fallback chains, and turns every failure
 * into an error an LLM can act on. Every routed run emits a durable `tool.called` event.
 */
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AdapterClient, type SdkLogger } from '@toolhub/adapter-sdk';
import { ArgumentValidator } from '@toolhub/arguments';
import type { Bus } from '@toolhub/bus';
import { callerLabel, type Grants, limitKey, UNRESTRICTED_VIEW } from '@toolhub/auth';
import { type CallContext, principalOf, tracerProviderRegistered } from '@toolhub/grpc-edge';
import { type Cache, MemoryCache } from '@toolhub/cache';
import {
  AdapterRunCancel,
  adapterCancelSubject,
  type AdapterListResponse,
  type AppliedFix,
  assertProviderName,
  assertRunIdentifiers,
  assertToolName,
  type Category,
  ErrorCode,
  errorCodeToProto,
  HEADER_ACK_SUBJECT,
  type GetPreloadSetRequest,
  type GetPreloadSetResponse,
  type GetStatusResponse,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  Importance,
  type ListProvidersResponse,
  type ListToolsRequest,
  type ListToolsResponse,
  normalizePath,
  parseToolId,
  type RegisteredTool,
  RunStatus,
  type RunToolRequest,
  type RunToolResponse,
  type SearchToolsRequest,
  type SearchToolsResponse,
  isToolHubError,
  ToolHubError,
  toolId,
  type ToolInfo,
  toToolHubError,
} from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { AdmissionGate } from './admission';
import { checkArgumentDepth } from './arguments';
import { CallEventPublisher } from './call-events';
import { InflightTracker } from './inflight';
import { CallerLimiter } from './limits';
import { pageOfListing } from './list-pages';
import { MetadataCache } from './metadata-cache';
import { type DispatcherOptions, type ResolvedDispatcherOptions, withDefaults } from './options';
import { ProviderDirectory } from './providers';
import { RequestPacer } from './request-pacer';
import { hiddenToolError, Visibility } from './visibility';
import { RegistryClient } from './registry-client';
import { ReplicaProbe } from './replica-probe';
import { backoffMs, isRetrySafe, isRetryableCode, triggersFallback } from './retry';


/** Checks and repairs arguments against a tool's schema. @throws ToolHubError invalid_argument */
export interface ArgumentsValidator {
  validate(tool: ToolInfo, args: Record<string, unknown>): { args: Record<string, unknown>; fixes: AppliedFix[] };
  /** Readies the validator at warm start (see {@link Dispatcher.warmCoreTools}), so the first calls do not pay for it. */
  warmUp?(): void;
  /** Compiles `tool`'s schema ahead of its first call. */
  prepare?(tool: ToolInfo): void;
}

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
}

const tracer = trace.getTracer('@toolhub/dispatcher-core');
const silent: SdkLogger = { info() {}, warn() {}, error() {} };

export class Dispatcher {
  readonly options: ResolvedDispatcherOptions;
  /** Durable `tool.called` events; never blocks or fails a call. */
  readonly callEvents: CallEventPublisher;
  readonly metadata: MetadataCache;
  private readonly client: AdapterClient;
  /** Adapter requests per event-loop turn (`adapterRequestsPerTurn`). */
  private readonly pacer: RequestPacer;
  private readonly registry: RegistryClient;
  private readonly limiter: CallerLimiter;
  /** Global concurrency and queue limit of runs. */
  readonly admission: AdmissionGate;
  private readonly log: SdkLogger;
  private readonly validator: ArgumentsValidator | undefined;
  private probe: ReplicaProbe | undefined;
  /** Tool lookups in progress by tool id, joined by calls for the same tool (see resolveTool). */
  private readonly lookups = new Map<string, Promise<RegisteredTool>>();

  private constructor(
    readonly bus: Bus,
    readonly providers: ProviderDirectory,
    private readonly inflight: InflightTracker,
    options: ResolvedDispatcherOptions,
    private readonly deps: DispatcherDeps,
  ) {
    this.options = options;
    this.log = deps.logger ?? silent;
    this.client = new AdapterClient(bus);
    this.pacer = new RequestPacer(options.adapterRequestsPerTurn);
    this.registry = new RegistryClient(bus);
    this.callEvents = new CallEventPublisher(bus, {
      durability: options.eventDurability,
      outboxDir: options.outboxDir,
      eventsPerMessage: options.eventsPerMessage,
      claimGroups: options.claimGroups,
      // Under overload the events wait (on disk with the outbox) until the burst has been answered.
      holdWhile: () => this.admission.overloaded,
      onError: (err) => this.log.warn({ err }, 'tool.called event not stored yet; will retry'),
      onRecovered: (events, from) => this.log.info({ events, from }, 'publishing tool.called events a stopped dispatcher left in its outbox'),
    });
    this.admission = new AdmissionGate({ maxConcurrent: options.maxConcurrentRuns, maxQueued: options.maxQueuedRuns, maxQueueWaitMs: options.maxQueueWaitMs });
    this.metadata = new MetadataCache(deps.cache ?? new MemoryCache(), options.ttlMs);
    this.limiter = new CallerLimiter(options.maxConcurrentPerCaller);
    this.validator = deps.validator === false ? undefined : (deps.validator ?? defaultValidator(options.maxArgumentDepth, this.log));
  }

  /** Creates a dispatcher on `bus`: starts provider discovery, run tracking and cache invalidation. */
  static async create(bus: Bus, options: DispatcherOptions = {}, deps: DispatcherDeps = {}): Promise<Dispatcher> {
    const resolved = withDefaults(options);
    const providers = await ProviderDirectory.start(bus, resolved.providerTtlMs);
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
    return dispatcher;
  }

  /** The principal's view of the catalog (see visibility.ts); undefined when nothing is hidden from it. */
  private visibility(call: CallContext): Visibility | undefined {
    const principal = principalOf(call);
    const view = principal.method === 'local' || !this.deps.grants ? UNRESTRICTED_VIEW : this.deps.grants.viewOf(principal);
    if (view.unrestricted) return undefined;
    return new Visibility(view, {
      listAll: (provider, path) => this.listCached(provider, path, true, call).then((r) => r.tools),
      info: (provider, name) => this.resolveTool(provider, name, call).then((t) => t.tool),
    });
  }

  async listTools(req: ListToolsRequest, call: CallContext): Promise<ListToolsResponse> {
    const vis = this.visibility(call);
    if (!vis) return this.listToolsAll(req, call);
    if (req.provider === '') {
      const categories: Category[] = (await vis.providers(this.providers.status().filter((p) => !p.incompatible))).map((p) => ({ path: '', name: p.provider, toolCount: p.toolCount }));
      return {
        categories,
        tools: [],
        hint: categories.length ? `These are the providers. Call tool_list with provider set to one of: ${categories.map((c) => c.name).join(', ')}.` : 'No tools are available to you right now.',
        nextPageToken: '',
        total: 0,
      };
    }
    assertProviderName(req.provider);
    const path = normalizePath(req.path);
    // A provider with nothing visible answers before any path is looked at, and exactly like one that does not exist.
    if ((await vis.visibleUnder(req.provider, '')) === 0) {
      throw unknownProviderError(req.provider, (await vis.providers(this.providers.status().filter((p) => !p.incompatible))).map((p) => p.provider));
    }
    const res = await vis.list(req.provider, await this.listCached(req.provider, path, req.recursive, call));
    return pageOfListing({ ...req, path }, res, (whole) => listHint(req.provider, whole));
  }

  /** Lists through the metadata cache. */
  private async listCached(provider: string, path: string, recursive: boolean, call: CallContext): Promise<AdapterListResponse> {
    let res: AdapterListResponse | undefined = await this.metadata.getList(provider, path, recursive);
    if (!res) {
      res = await this.guardProvider(provider, () => this.client.list(provider, path, recursive, { timeoutMs: this.timeLeft(call, this.options.metadataTimeoutMs), requestId: call.requestId, headers: call.traceHeaders }));
      await this.metadata.setList(provider, path, recursive, res);
    }
    return res;
  }

  private async listToolsAll(req: ListToolsRequest, call: CallContext): Promise<ListToolsResponse> {
    if (req.provider === '') {
      // A provider refused for its contract version cannot serve agents, so they do not see it.
      const categories: Category[] = this.providers.status().filter((p) => !p.incompatible).map((p) => ({ path: '', name: p.provider, toolCount: p.toolCount }));
      return {
        categories,
        tools: [],
        hint: categories.length
          ? `These are the providers. Call tool_list with provider set to one of: ${categories.map((c) => c.name).join(', ')}.`
          : 'No provider adapters are running right now; try again shortly.',
        nextPageToken: '',
        total: 0,
      };
    }
    assertProviderName(req.provider);
    const path = normalizePath(req.path);
    const res = await this.listCached(req.provider, path, req.recursive, call);
    return pageOfListing({ ...req, path }, res, (whole) => listHint(req.provider, whole));
  }

  async getToolInfo(req: GetToolInfoRequest, call: CallContext): Promise<GetToolInfoResponse> {
    return { tool: (await this.resolveVisible(req.provider, req.name, call)).tool };
  }

  async searchTools(req: SearchToolsRequest, call: CallContext): Promise<SearchToolsResponse> {
    const queries = req.queries.map((q) => q.trim()).filter(Boolean);
    if (queries.length === 0) {
      throw ToolHubError.invalidArgument('tool_search needs at least one non-empty query, e.g. queries=["read a file"].', [
        { field: 'queries', message: 'empty', expected: '1 to 10 non-empty strings', example: '["read a file"]' },
      ]);
    }
    if (req.provider) assertProviderName(req.provider);
    const vis = this.visibility(call);
    const limit = req.limit || 10;
    // A restricted view asks for more, so hits hidden from it do not leave the page short.
    const asked = vis ? { ...req, limit: Math.min(Math.max(limit * 4, limit + 20), 200) } : req;
    const res = await this.registry.search({ ...asked, queries, path: normalizePath(req.path) }, this.timeLeft(call, this.options.searchTimeoutMs), call.traceHeaders);
    return vis ? vis.search(res, limit) : res;
  }

  async getPreloadSet(req: GetPreloadSetRequest, call: CallContext): Promise<GetPreloadSetResponse> {
    const res = await this.registry.preload(req, this.timeLeft(call, this.options.searchTimeoutMs), call.traceHeaders);
    const vis = this.visibility(call);
    return vis ? vis.preload(res, req.format) : res;
  }

  /** Providers as this caller may see them (only those with tools visible to it, counted for it). */
  async listProvidersFor(call: CallContext): Promise<ListProvidersResponse> {
    const vis = this.visibility(call);
    return vis ? { providers: await vis.providers(this.providers.status()) } : this.listProviders();
  }

  /** {@link status} with the providers this caller may see. */
  async statusFor(call: CallContext): Promise<GetStatusResponse> {
    return { ...this.status(), providers: (await this.listProvidersFor(call)).providers };
  }

  async runTool(req: RunToolRequest, call: CallContext): Promise<RunToolResponse> {
    assertProviderName(req.provider);
    assertToolName(req.name);
    // Timeouts count from the call's arrival at the edge, so time spent queued is part of them.
    const started = call.arrivedUnixMs ?? Date.now();
    const id = toolId(req.provider, req.name);
    const wanted = Math.min(req.timeoutMs || this.options.defaultRunTimeoutMs, this.options.maxRunTimeoutMs);
    const deadline = Math.min(started + wanted, call.deadline);
    const principal = principalOf(call);
    const caller = callerLabel(principal, req.caller);
    const args = req.arguments ?? {};
    let release: (() => void) | undefined;
    let admitted: (() => void) | Promise<() => void>;
    try {
      checkArgumentDepth(args, this.options.maxArgumentDepth);
      assertRunIdentifiers(req);
      this.assertBusConnected();
      release = this.limiter.acquire(limitKey(principal, req.caller));
      admitted = this.admission.admit(deadline, call.signal);
    } catch (err) {
      // Refused before any run was set up (shed under overload, an invalid request, the bus down):
      // answered and recorded without the run's span or anything else per run, because under
      // overload most calls end here and what they cost delays the calls that were admitted.
      release?.();
      const e = toToolHubError(err);
      await this.recordCall(req, call, id, caller, started, { status: e.code, code: errorCodeToProto(e.code), attempts: 0, fallback: '' });
      throw e;
    }
    let outcome = { status: 'internal', code: ErrorCode.ERROR_CODE_INTERNAL, attempts: 0, fallback: '' };
    const run = async (span: Span | undefined): Promise<RunToolResponse> => {
      let slot: (() => void) | undefined;
      try {
        slot = typeof admitted === 'function' ? admitted : await admitted;
        const primary = await this.resolveVisible(req.provider, req.name, call);
        const info = primary.tool!;
        if (req.expectedVersion && req.expectedVersion !== info.version) {
          throw new ToolHubError(
            'failed_precondition',
            `Tool ${id} changed since you loaded it (you have version ${req.expectedVersion}, it is now ${info.version}): ${info.description.split(/(?<=[.!?])\s/)[0]} ` +
              'Call tool_info again and build the arguments from the new schema.',
          );
        }
        // Without a timeout from the caller, the tool's own default applies (a cloud document's
        // `timeout`, an MCP server's), within the dispatcher's maximum and the caller's deadline.
        const runDeadline = req.timeoutMs || !info.defaultTimeoutMs ? deadline : Math.min(started + Math.min(info.defaultTimeoutMs, this.options.maxRunTimeoutMs), call.deadline);
        const result = await this.runChain(primary, args, req, call, runDeadline, (attempts, fallback) => (outcome = { ...outcome, attempts, fallback }));
        const toolError = result.status === RunStatus.RUN_STATUS_TOOL_ERROR;
        outcome = { ...outcome, status: toolError ? 'tool_error' : 'ok', code: toolError ? ErrorCode.ERROR_CODE_FAILED : ErrorCode.ERROR_CODE_UNSPECIFIED };
        return { ...result, latencyMs: Date.now() - started };
      } catch (err) {
        const e = toToolHubError(err);
        outcome = { ...outcome, status: e.code, code: errorCodeToProto(e.code) };
        span?.recordException(e);
        span?.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
        throw e;
      } finally {
        slot?.();
        release?.();
        span?.end();
        await this.recordCall(req, call, id, caller, started, outcome);
      }
    };
    // No tracer provider registered (nothing recorded): no span; the caller's trace context still
    // reaches the adapter in `call.traceHeaders`.
    if (!tracerProviderRegistered()) return run(undefined);
    return tracer.startActiveSpan(`dispatcher.run ${id}`, { kind: SpanKind.INTERNAL, attributes: { 'toolhub.tool_id': id } }, context.active(), run);
  }

  /**
   * Records the `tool.called` event of a RunTool with the outcome the caller saw: a caller that
   * went away saw no result at all, and one whose gRPC deadline passed got DEADLINE_EXCEEDED from
   * grpc-js whatever we found. (grpc-js also signals "cancelled" when it ends a call at its
   * deadline: that is checked first.) With durability 'ack' this waits until JetStream has it.
   */
  private async recordCall(
    req: RunToolRequest,
    call: CallContext,
    id: string,
    caller: string,
    started: number,
    outcome: { status: string; code: ErrorCode; attempts: number; fallback: string },
  ): Promise<void> {
    let { status, code } = outcome;
    if (Date.now() >= call.deadline) [status, code] = ['timeout', ErrorCode.ERROR_CODE_TIMEOUT];
    else if (call.signal?.aborted) [status, code] = ['cancelled', ErrorCode.ERROR_CODE_UNSPECIFIED];
    const stored = this.callEvents.record({
      eventId: randomUUID(),
      toolId: id,
      provider: req.provider,
      name: req.name,
      status,
      errorCode: code,
      latencyMs: Date.now() - started,
      attempts: Math.max(1, outcome.attempts),
      fallbackUsed: outcome.fallback,
      caller,
      timestampUnixMs: started,
      searchId: req.searchId,
      claimGroup: '', // stamped by the publisher when it publishes grouped
    });
    // Durability 'ack': the reply waits until JetStream has the event (outbox: already on disk).
    if (stored) await stored;
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

  /** Fails a run at once while the bus is down, instead of letting it wait for its whole deadline. */
  private assertBusConnected(): void {
    const c = this.bus.connection?.();
    if (c && !c.connected) {
      const e = ToolHubError.unavailable(
        `ToolHub's message bus (NATS) is unreachable (${c.detail}), so no tool can run right now. Retry in a few seconds; nothing was run.`,
      );
      throw new ToolHubError(e.code, e.message, { retryAfterMs: 1000, retryable: true });
    }
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
        const list = await this.client.list(provider, '', true, { timeoutMs: this.timeLeft(call, this.options.metadataTimeoutMs) });
        for (const t of list.tools.filter((t) => t.importance === Importance.IMPORTANCE_CORE)) {
          const tool = await this.resolveTool(provider, t.name, call);
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
    this.probe?.close();
    await this.callEvents.close();
    await this.metadata.close();
    await this.inflight.close();
    await this.providers.close();
  }

  /** Runs the primary tool, then its fallbacks in order, retrying each where that is safe. */
  private async runChain(
    primary: RegisteredTool,
    args: Record<string, unknown>,
    req: RunToolRequest,
    call: CallContext,
    deadline: number,
    progress: (attempts: number, fallback: string) => void,
  ): Promise<Omit<RunToolResponse, 'latencyMs'>> {
    const chain: Array<RegisteredTool | string> = [primary, ...(primary.overlay?.fallbacks ?? [])];
    const tried: string[] = [];
    let attempts = 0;
    let lastError: ToolHubError | undefined;
    for (const [index, entry] of chain.entries()) {
      if (Date.now() >= deadline || call.signal?.aborted) break;
      let candidate: RegisteredTool;
      let candidateArgs = args;
      if (typeof entry === 'string') {
        const ref = parseToolId(entry);
        if (!ref) continue;
        try {
          // A fallback outside the caller's grants is skipped like a missing one.
          candidate = await this.resolveVisible(ref.provider, ref.name, call);
        } catch {
          continue; // An unreachable fallback is skipped, not fatal: the next one may work.
        }
        candidateArgs = mapArgumentsByName(args, candidate.tool!);
      } else candidate = entry;
      const info = candidate.tool!;
      let validated: { args: Record<string, unknown>; fixes: AppliedFix[] };
      try {
        validated = this.validator ? this.validator.validate(info, candidateArgs) : { args: candidateArgs, fixes: [] };
      } catch (err) {
        if (index === 0) throw err; // The caller's own mistake: report it, do not paper over it.
        continue;
      }
      tried.push(info.id);
      for (let attempt = 1; ; attempt++) {
        attempts++;
        progress(attempts, index > 0 ? info.id : '');
        try {
          const res = await this.runOnce(info, validated.args, req, call, deadline);
          const toolError = res.status === RunStatus.RUN_STATUS_TOOL_ERROR;
          return {
            status: toolError ? RunStatus.RUN_STATUS_TOOL_ERROR : RunStatus.RUN_STATUS_OK,
            content: res.content,
            error: toolError
              ? { code: ErrorCode.ERROR_CODE_FAILED, message: res.errorMessage, violations: [], suggestions: [], parentPath: '', fixes: [], retryable: false, retryAfterMs: 0 }
              : undefined,
            fixes: validated.fixes,
            attempts,
            servedBy: info.id,
            structured: res.structured,
          };
        } catch (err) {
          lastError = toToolHubError(err);
          const wait = backoffMs(attempt, this.options.retryBaseMs, this.options.retryMaxMs, lastError.retryAfterMs);
          const canRetry =
            attempt < this.options.maxAttempts && isRetryableCode(lastError) && isRetrySafe(info, req.idempotencyKey) && Date.now() + wait < deadline && !call.signal?.aborted;
          if (!canRetry) break;
          await sleep(wait);
        }
      }
      if (!lastError || !triggersFallback(lastError)) break;
    }
    if (!lastError) throw ToolHubError.timeout(`The deadline of ${toolId(req.provider, req.name)} passed before it could run; retry with a larger timeout_ms.`);
    if (tried.length > 1) {
      throw new ToolHubError(lastError.code, `${lastError.message} (tried ${tried.join(', then ')}; ${attempts} attempts in all)`, { cause: lastError, suggestions: lastError.suggestions });
    }
    throw lastError;
  }

  private async runOnce(info: ToolInfo, args: Record<string, unknown>, req: RunToolRequest, call: CallContext, deadline: number) {
    const paced = this.pacer.turn();
    if (paced) await paced;
    const tracked = this.inflight.begin(info.provider);
    // The caller went away: tell the replica running the call to stop it (and through it the MCP
    // server or HTTP API), and stop waiting for its answer.
    let onAbort: (() => void) | undefined;
    const abandoned = call.signal
      ? new Promise<never>((_, reject) => {
          onAbort = () => {
            this.cancelRun(info.provider, tracked.headers[HEADER_ACK_SUBJECT]!, 'the caller cancelled the call');
            reject(ToolHubError.unavailable('The caller cancelled the call; the adapter was asked to stop it.'));
          };
          if (call.signal!.aborted) onAbort();
          else call.signal!.addEventListener('abort', onAbort, { once: true });
        })
      : undefined;
    abandoned?.catch(() => undefined);
    try {
      // A lost replica's error stays as it is (not "unknown provider"), even when it was the last one.
      return await Promise.race([
        this.guardProvider(info.provider, () =>
          this.client.run(
            info.provider,
            { name: info.name, arguments: args, deadlineUnixMs: deadline, idempotencyKey: req.idempotencyKey, caller: callerLabel(principalOf(call), req.caller) },
            // The bus timeout outlives the adapter's own deadline a little, so the adapter's
            // precise TIMEOUT reply wins over a generic bus timeout.
            { timeoutMs: Math.max(1, deadline - Date.now() + 250), requestId: call.requestId, headers: call.traceHeaders ? { ...call.traceHeaders, ...tracked.headers } : tracked.headers },
          ),
          { name: info.name },
        ),
        tracked.lost,
        ...(abandoned ? [abandoned] : []),
      ]);
    } finally {
      if (onAbort) call.signal?.removeEventListener('abort', onAbort);
      tracked.end();
    }
  }

  /** Fan-out to the provider's replicas; the one holding `callRef` aborts the run. Best effort. */
  private cancelRun(provider: string, callRef: string, reason: string): void {
    try {
      this.bus.publish(adapterCancelSubject(provider), AdapterRunCancel.encode({ callRef, reason }).finish());
    } catch (err) {
      this.log.warn({ err, provider }, 'could not send a run cancellation to the adapter');
    }
  }

  /**
   * The tool with its operator overlay: cache, then the registry (which applies overlays), then the
   * adapter itself (when the registry is not running or does not know the tool yet).
   * @throws ToolHubError not_found (unknown provider or tool, or disabled), invalid_argument
   */
  private async resolveVisible(provider: string, name: string, call: CallContext): Promise<RegisteredTool> {
    const vis = this.visibility(call);
    if (!vis) return this.resolveTool(provider, name, call);
    let tool: RegisteredTool;
    try {
      tool = await this.resolveTool(provider, name, call);
    } catch (err) {
      // Every "no such tool" answer looks the same, with only visible suggestions, so it cannot tell hidden from missing.
      if (err instanceof ToolHubError && err.code === 'not_found') throw hiddenToolError(provider, name, await vis.suggestions(err.suggestions));
      throw err;
    }
    if (!vis.permits(tool.tool!)) throw hiddenToolError(provider, name);
    return tool;
  }

  private async resolveTool(provider: string, name: string, call: CallContext): Promise<RegisteredTool> {
    assertProviderName(provider);
    assertToolName(name);
    const key = toolId(provider, name);
    let tool: RegisteredTool;
    const shared = this.lookups.get(key);
    if (shared) {
      try {
        tool = await shared;
      } catch (err) {
        // The shared lookup ran within its first caller's deadline: a caller with time left tries again on its own.
        if (!isToolHubError(err, 'timeout') || Date.now() >= call.deadline) throw err;
        tool = await this.lookUpTool(provider, name, call);
      }
    } else {
      // Calls that need the same tool at the same moment (a burst after a start or an eviction) share
      // one cache read, registry request and cache write instead of making one each.
      const lookup = this.lookUpTool(provider, name, call).finally(() => this.lookups.delete(key));
      this.lookups.set(key, lookup);
      tool = await lookup;
    }
    if (tool.overlay && !tool.overlay.enabled) {
      throw ToolHubError.notFound(`Tool ${toolId(provider, name)} is disabled by the operators; use tool_search to find an alternative.`, [], tool.tool?.path ?? '');
    }
    return tool;
  }

  /** The tool from the cache, else the registry, else its adapter (then cached). */
  private async lookUpTool(provider: string, name: string, call: CallContext): Promise<RegisteredTool> {
    let tool = await this.metadata.getInfo(provider, name);
    if (!tool) {
      tool = await this.registry.info(provider, name, this.timeLeft(call, this.options.registryTimeoutMs), call.traceHeaders).catch((err: unknown) => {
        if (isToolHubError(err, 'unavailable') || isToolHubError(err, 'timeout')) return undefined;
        throw err;
      });
      if (!tool?.tool) {
        const info = await this.guardProvider(provider, () => this.client.info(provider, name, { timeoutMs: this.timeLeft(call, this.options.metadataTimeoutMs), requestId: call.requestId, headers: call.traceHeaders }));
        tool = { tool: info, overlay: { importance: info.importance, enabled: true, fallbacks: [] }, origin: 1, updatedUnixMs: Date.now() };
      }
      await this.metadata.setInfo(tool);
    }
    return tool;
  }

  private timeLeft(call: CallContext, cap: number): number {
    const remaining = call.deadline - Date.now();
    if (remaining <= 0) throw ToolHubError.timeout('The call deadline had already passed when it reached the dispatcher; send it with a longer deadline.');
    return Math.min(cap, remaining);
  }

  /**
   * Refuses a provider of another contract major (FAILED_PRECONDITION, saying what to upgrade) and
   * turns "nobody serves this provider" into NOT_FOUND naming the providers that do exist.
   */
  private async guardProvider<T>(provider: string, fn: () => Promise<T>, knownTool?: { name: string }): Promise<T> {
    // Replicas of another contract major are heard but never called: their messages may differ.
    const refusal = this.providers.refusal(provider);
    if (refusal) throw new ToolHubError('failed_precondition', `${refusal} Ask the operators; other providers still work.`);
    try {
      return await fn();
    } catch (err) {
      if (isToolHubError(err, 'unavailable') && !this.providers.has(provider) && knownTool) {
        // The tool exists (the registry or the cache knows it): its provider is down, not unknown.
        const since = this.providers.downSince(provider);
        throw ToolHubError.unavailable(
          `Provider ${JSON.stringify(provider)} has no live replica${since !== undefined ? ` since ${new Date(since).toISOString()}` : ''}, so ${toolId(provider, knownTool.name)} cannot run now. ` +
            'Retry later, or use tool_search to find an equivalent tool of another provider.',
          err,
        );
      }
      if (isToolHubError(err, 'unavailable') && !this.providers.has(provider)) throw unknownProviderError(provider, this.providers.known());
      throw err;
    }
  }
}

/**
 * The one NOT_FOUND for a provider that does not exist or is hidden from the caller; `known` must be
 * the providers this caller may see, so the list cannot reveal a hidden one.
 */
function unknownProviderError(provider: string, known: string[]): ToolHubError {
  return ToolHubError.notFound(
    `Unknown provider ${JSON.stringify(provider)}. ` + (known.length ? `Known providers: ${known.join(', ')}. ` : 'No providers are running right now. ') + 'Call tool_list with no provider to see them.',
    known,
    '',
  );
}

/** What to do next after a tool_list answer. */
function listHint(provider: string, res: AdapterListResponse): string {
  const hintParts: string[] = [];
  const first = res.tools[0];
  if (first) hintParts.push(`Call tool_info with provider=${JSON.stringify(provider)} and name=${JSON.stringify(first.name)} (or another tool above) for its full schema.`);
  if (res.categories[0]) hintParts.push(`Call tool_list with path=${JSON.stringify(res.categories[0].path)} (or another category) to go deeper.`);
  return hintParts.join(' ') || 'This category is empty.';
}

/** Validation and safe repair against each tool's JSON Schema, compiled once per tool version. */
function defaultValidator(maxArgumentDepth: number, log: SdkLogger): ArgumentsValidator {
  const validator = new ArgumentValidator({
    maxArgumentDepth,
    // A third-party schema Ajv cannot use is reported once; such calls are checked by the adapter only.
    onSchemaProblem: (p) => log.warn({ tool: p.toolId, version: p.version, code: p.code, detail: p.message }, 'tool schema unusable for validation'),
  });
  return {
    validate: (tool, args) => {
      const res = validator.validateAndRepair(tool.id, tool.version, tool.inputSchema ?? { type: 'object' }, args);
      return { args: res.args, fixes: res.fixes };
    },
    warmUp: () => validator.warmUp(),
    prepare: (tool) => validator.prepare(tool.id, tool.version, tool.inputSchema ?? { type: 'object' }),
  };
}

/** Keeps the arguments whose names the fallback tool's schema knows (fallbacks are "equivalent tools"). */
export function mapArgumentsByName(args: Record<string, unknown>, target: ToolInfo): Record<string, unknown> {
  const props = (target.inputSchema?.['properties'] ?? {}) as Record<string, unknown>;
  const names = Object.keys(props);
  if (names.length === 0) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => names.includes(k)));
}
