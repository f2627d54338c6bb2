/**
 * Serves an adapter's three operations (plus health) on the bus, in a queue group per provider so
 * replicas share the load. Honours deadlines, maps thrown errors to wire codes, continues the
 * caller's trace, replays idempotent calls, announces the catalog and publishes heartbeats.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Bus, BusMessage, BusReply, Subscription } from '@toolhub/bus';
import {
  ADAPTER_DISCOVERY_SUBJECT,
  adapterHeartbeatSubject,
  AdapterHealthResponse,
  AdapterInfoRequest,
  AdapterInfoResponse,
  AdapterListRequest,
  AdapterListResponse,
  adapterQueueGroup,
  adapterCancelSubject,
  AdapterRunCancel,
  AdapterRunRequest,
  AdapterRunResponse,
  adapterCatalogSubject,
  adapterInstanceSubject,
  adapterSubject,
  assertProviderName,
  BUS_HEADROOM_BYTES,
  CatalogPageRequest,
  assertRunIdentifiers,
  CatalogAnnouncement,
  catalogSubject,
  CONTRACT_VERSION,
  HEADER_ACK_SUBJECT,
  HEADER_DEADLINE,
  HEADER_PROGRESS_SUBJECT,
  progressPrefix,
  registrySubject,
  replicaSubject,
  RunStatus,
  RunToolProgress,
  isToolHubError,
  ToolHubError,
} from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import { type CatalogPages, cutPages, encodePage } from './catalog-pages';
import { IdempotencyCache } from './idempotency';
import { listingPart } from './list-parts';
import { ProgressReporter } from './progress-reporter';
import { RunAcks } from './run-acks';
import { type CatalogSnapshot, CatalogScreen } from './catalog-screen';
import { catalogVersion } from './catalog-version';
import { screenTool, toWireQuarantine } from './quarantine';
import { type Redactor, redactingLogger, redactResult } from './redaction';
import { tracerProviderRegistered } from './tracing';
import { SDK_NAME, SDK_VERSION } from './version';
import type { AdapterDefinition, RunContext, ToolResult } from './types';
import { errorReply, okReply } from './wire';

/** Minimal logger interface (pino-compatible), so the SDK does not force a logging library. */
export interface SdkLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ServeAdapterOptions {
  /** Unique id of this replica. @default random UUID */
  instanceId?: string;
  /** How often to publish a heartbeat. @default 5000 */
  heartbeatIntervalMs?: number;
  /** Deadline applied when a run request carries none. @default 30000 */
  defaultTimeoutMs?: number;
  /** How long close() waits for in-flight runs before aborting them. @default 10000 */
  drainTimeoutMs?: number;
  /**
   * A run that answers within this many ms is not acknowledged separately (its reply says it all);
   * longer runs are acknowledged together after it (see run-acks.ts). 0 acknowledges every run at once.
   * @default 50
   */
  runAckDelayMs?: number;
  /** Announce the catalog to the registry at start-up. @default true */
  announceOnStart?: boolean;
  logger?: SdkLogger;
  /**
   * Secrets to keep out of everything this replica sends and logs (results, errors, health detail,
   * quarantine reasons, log lines). @default the adapter's own `redactor`, else none
   */
  redactor?: Redactor;
  /**
   * Contract version announced in heartbeats. Leave it alone: it is the version this SDK was built
   * against. (Tests set it to check how dispatchers treat other versions.)
   * @default CONTRACT_VERSION of @toolhub/contracts
   */
  contractVersion?: string;
}

/** A running adapter replica. */
export interface AdapterService {
  readonly provider: string;
  readonly instanceId: string;
  /** Runs currently executing. */
  readonly inFlight: number;
  /** Publishes the current catalog to the registry (call after the tool set changes). */
  announce(): Promise<void>;
  /** Stops taking work, waits for in-flight runs (up to drainTimeoutMs), then aborts the rest. */
  close(): Promise<void>;
}

export { catalogVersion } from './catalog-version';

const silentLogger: SdkLogger = { info() {}, warn() {}, error() {} };
/** Room left in a reply for its headers (trace context, request id, service-error headers). */
const REPLY_HEADROOM_BYTES = 8 * 1024;
/** Room left in a catalog page for its envelope (version, page numbers). */
const PAGE_ENVELOPE_BYTES = 256;
const tracer = trace.getTracer('@toolhub/adapter-sdk');

/** Starts serving `adapter` on `bus`. @throws ToolHubError invalid_argument for a bad provider name. */
export async function serveAdapter(bus: Bus, adapter: AdapterDefinition, options: ServeAdapterOptions = {}): Promise<AdapterService> {
  assertProviderName(adapter.provider);
  const server = new AdapterServer(bus, adapter, options);
  await server.start();
  return server;
}

/** One replica of an adapter on the bus (see {@link serveAdapter}). */
class AdapterServer implements AdapterService {
  readonly provider: string;
  readonly instanceId: string;
  private readonly heartbeatIntervalMs: number;
  private readonly defaultTimeoutMs: number;
  private readonly drainTimeoutMs: number;
  private readonly redactor: Redactor | undefined;
  private readonly log: SdkLogger;
  private readonly startedUnixMs = Date.now();
  private readonly idempotency = new IdempotencyCache<Uint8Array>();
  private readonly running = new Set<AbortController>();
  /** Runs by their acknowledgement subject, which a dispatcher names when it cancels one. */
  private readonly byCallRef = new Map<string, AbortController>();
  private readonly acks: RunAcks;
  // Catalog rules: a tool past a limit is quarantined, never announced; its neighbours serve.
  private readonly pageBytes: number;
  private readonly maxToolBytes: number;
  private readonly catalog: CatalogScreen;
  private readonly quarantinedNames = new Map<string, string>();
  private readonly logged = new Set<string>();
  private paged: CatalogPages | undefined;
  private closing = false;
  private closed: Promise<void> | undefined;
  private readonly subs: Subscription[] = [];
  private probeSub: Subscription | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly adapter: AdapterDefinition,
    private readonly options: ServeAdapterOptions,
  ) {
    this.provider = adapter.provider;
    this.instanceId = options.instanceId ?? randomUUID();
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5000;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
    this.redactor = options.redactor ?? adapter.redactor;
    this.log = this.redactor ? redactingLogger(options.logger ?? silentLogger, this.redactor) : (options.logger ?? silentLogger);
    this.acks = new RunAcks(bus, new TextEncoder().encode(this.instanceId), options.runAckDelayMs);
    this.pageBytes = bus.maxPayload - BUS_HEADROOM_BYTES;
    this.maxToolBytes = this.pageBytes - PAGE_ENVELOPE_BYTES;
    this.catalog = new CatalogScreen(adapter, this.maxToolBytes, (text) => this.redactText(text));
    // Callers pass these around unbound (e.g. to a shutdown hook), as they could the old closure's.
    this.announce = this.announce.bind(this);
    this.close = this.close.bind(this);
  }

  get inFlight(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    const { bus, provider, instanceId } = this;
    const queue = adapterQueueGroup(provider);
    this.subs.push(
      await bus.serve(adapterSubject(provider, 'list'), this.guard((msg) => this.list(msg)), { queue }),
      await bus.serve(adapterSubject(provider, 'info'), this.guard((msg) => this.info(msg)), { queue }),
      // The registry pulls the pages of a paged catalog from the replica that announced it.
      await bus.serve(adapterCatalogSubject(provider, instanceId), this.guard(async (msg) => this.page(msg))),
      await bus.serve(adapterSubject(provider, 'run'), this.guard((msg) => context.with(ROOT_CONTEXT, () => this.handleRun(msg))), { queue }),
      await bus.serve(adapterSubject(provider, 'health'), this.guard(async () => AdapterHealthResponse.encode(await this.health()).finish()), { queue }),
      // The same operations addressed to this replica alone: a dispatcher that refused some of the
      // provider's replicas (contract major) sends to the ones it accepted here, not to the queue group.
      await bus.serve(adapterInstanceSubject(provider, instanceId, 'list'), this.guard((msg) => this.list(msg))),
      await bus.serve(adapterInstanceSubject(provider, instanceId, 'info'), this.guard((msg) => this.info(msg))),
      await bus.serve(adapterInstanceSubject(provider, instanceId, 'run'), this.guard((msg) => context.with(ROOT_CONTEXT, () => this.handleRun(msg)))),
      await bus.subscribe(ADAPTER_DISCOVERY_SUBJECT, () => this.heartbeat()),
      // Cancellations go to every replica; only the one running the call has it in byCallRef.
      await bus.subscribe(adapterCancelSubject(provider), (msg) => this.cancel(msg)),
      // A (re)starting registry asks for every catalog; each replica answers, the registry de-duplicates.
      await bus.subscribe(registrySubject('resync'), () => this.announce().catch((err) => this.log.warn({ err }, 'catalog re-announcement failed'))),
    );
    // Answered by this replica alone: dispatchers probe it to learn within a second that it is gone
    // (NATS answers "no responders" once its connection is). Kept apart from `subs`: a stopping
    // replica answers probes until its last run is finished, so dispatchers do not take its drain for a death.
    // An instance id that is no subject token (custom ids may hold dots) just goes unprobed.
    let probeSubject: string | undefined;
    try {
      probeSubject = replicaSubject(provider, instanceId);
    } catch {
      probeSubject = undefined;
    }
    this.probeSub = probeSubject ? await bus.serve(probeSubject, () => ({ data: new Uint8Array(0), headers: {} })) : undefined;

    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.heartbeatIntervalMs);
    this.heartbeatTimer.unref();
    await this.heartbeat();
    if (this.options.announceOnStart ?? true) await this.announce().catch((err) => this.log.warn({ err }, 'catalog announcement failed'));
    this.log.info({ provider, instanceId }, 'adapter serving');
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      clearInterval(this.heartbeatTimer);
      await this.heartbeat(); // tells dispatchers this replica is going, so they stop routing to it
      this.acks.flush(); // the dispatchers learn now which calls this replica is draining
      // Stop taking work first; closing a subscription waits for its in-flight handlers.
      const unsubscribed = Promise.all(this.subs.map((s) => s.close()));
      const deadline = Date.now() + this.drainTimeoutMs;
      while (this.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const c of this.running) c.abort(new Error('adapter shutting down'));
      await unsubscribed;
      await this.probeSub?.close();
    })();
    return this.closed;
  }

  /** Publishes the current catalog to the registry (call after the tool set changes). */
  async announce(): Promise<void> {
    const { provider, instanceId, bus } = this;
    const { screened, quarantined, version } = await this.catalog.snapshot();
    this.quarantinedNames.clear();
    for (const q of quarantined) {
      if (q.tool) this.quarantinedNames.set(q.tool, q.reason);
      // One log line per quarantined tool or source (not again on every re-announcement).
      const key = `${q.source}\u0000${q.tool ?? ''}\u0000${q.reason}`;
      if (!this.logged.has(key)) {
        this.logged.add(key);
        this.log.warn({ provider, source: q.source, tool: q.tool, rule: q.rule, reason: q.reason }, q.tool ? 'tool quarantined' : 'source quarantined');
      }
    }
    // A duplicate name's first tool serves: do not refuse it for its twin's quarantine.
    for (const t of screened.tools) this.quarantinedNames.delete(t.name);
    const base: CatalogAnnouncement = {
      provider,
      instanceId,
      tools: [],
      catalogVersion: version,
      announcedUnixMs: Date.now(),
      quarantined: toWireQuarantine(quarantined),
      quarantinedTotal: quarantined.length,
      toolCount: screened.tools.length,
    };
    const pages = cutPages(version, screened.encoded, this.pageBytes - PAGE_ENVELOPE_BYTES);
    base.checksum = pages.checksum;
    base.totalBytes = pages.totalBytes;
    if (pages.pages.length === 1 && pages.totalBytes + 64 * 1024 <= this.pageBytes) {
      // Small catalogs travel inline, as they always did (readers older than paging understand it).
      // On the provider's own subject: NATS lets only this provider's user publish there.
      bus.publish(catalogSubject('sync', provider), CatalogAnnouncement.encode({ ...base, tools: screened.tools }).finish());
      return;
    }
    this.paged = pages;
    base.pageCount = pages.pages.length;
    bus.publish(catalogSubject('catalog', provider), CatalogAnnouncement.encode(base).finish());
    this.log.info({ provider, tools: pages.toolCount, pages: pages.pages.length, bytes: pages.totalBytes, catalogVersion: version }, 'paged catalog announced');
  }

  private redactText(text: string): string {
    return this.redactor && !this.redactor.empty ? this.redactor.redact(text) : text;
  }

  private guard(handler: (msg: BusMessage) => Promise<Uint8Array>) {
    return async (msg: BusMessage): Promise<BusReply> => {
      if (this.closing) return errorReply(ToolHubError.unavailable(`Adapter ${this.provider} replica ${this.instanceId} is shutting down; retry to reach another replica.`));
      try {
        return okReply(await handler(msg));
      } catch (err) {
        const reply = errorReply(err, this.redactor);
        if (!isToolHubError(err)) this.log.error({ err, subject: msg.subject }, 'adapter handler failed unexpectedly');
        return reply;
      }
    };
  }

  private assertNotQuarantined(name: string): void {
    const reason = this.quarantinedNames.get(name);
    if (reason !== undefined) {
      throw new ToolHubError('failed_precondition', `Tool ${this.provider}:${name} is quarantined: ${reason}. It is left out of the catalog until its provider fixes it; use another tool (tool_search).`);
    }
  }

  private async list(msg: BusMessage): Promise<Uint8Array> {
    const req = decode(AdapterListRequest, msg.data, 'list request');
    const listed = await this.adapter.listTools(req.path, req.recursive);
    if (this.quarantinedNames.size > 0) listed.tools = listed.tools.filter((t) => !this.quarantinedNames.has(t.name));
    return AdapterListResponse.encode(listingPart(listed, this.pageBytes, req.offset, req.acceptParts)).finish();
  }

  private async info(msg: BusMessage): Promise<Uint8Array> {
    const req = decode(AdapterInfoRequest, msg.data, 'info request');
    this.assertNotQuarantined(req.name);
    const tool = await this.adapter.getToolInfo(req.name);
    const screened = screenTool(tool, this.maxToolBytes);
    if ('entry' in screened) {
      throw new ToolHubError('failed_precondition', `Tool ${this.provider}:${req.name} is quarantined: ${screened.entry.reason}. Use another tool (tool_search).`);
    }
    return AdapterInfoResponse.encode({ tool }).finish();
  }

  private page(msg: BusMessage): Uint8Array {
    const { paged, instanceId, provider } = this;
    const req = decode(CatalogPageRequest, msg.data, 'catalog page request');
    if (!paged || paged.catalogVersion !== req.catalogVersion) {
      throw new ToolHubError('failed_precondition', `Replica ${instanceId} of ${provider} no longer has catalog ${req.catalogVersion}${paged ? ` (it now has ${paged.catalogVersion}, announced separately)` : ''}.`);
    }
    if (req.page >= paged.pages.length) throw ToolHubError.invalidArgument(`Catalog ${req.catalogVersion} has ${paged.pages.length} pages; page ${req.page} does not exist.`, [{ field: 'page', message: 'out of range' }]);
    return encodePage(paged, req.page);
  }

  private cancel(msg: BusMessage): void {
    let cancel: AdapterRunCancel;
    try {
      cancel = AdapterRunCancel.decode(msg.data);
    } catch {
      return;
    }
    const controller = this.byCallRef.get(cancel.callRef);
    if (!controller) return;
    this.byCallRef.delete(cancel.callRef);
    controller.abort(new Error(cancel.reason || 'cancelled by the caller'));
  }

  private async health(): Promise<AdapterHealthResponse> {
    const { adapter, closing } = this;
    const h = adapter.health ? await adapter.health().catch((e: Error) => ({ healthy: false, detail: e.message })) : { healthy: true, detail: 'ok' };
    // Cached per catalog version: a heartbeat does not screen the catalog again.
    const snap: CatalogSnapshot | undefined = await this.catalog.snapshot().catch(() => undefined);
    return {
      provider: this.provider,
      healthy: h.healthy && !closing,
      detail: closing ? 'stopping' : this.redactText(h.detail),
      instanceId: this.instanceId,
      toolCount: snap?.screened.tools.length ?? 0,
      startedUnixMs: this.startedUnixMs,
      catalogVersion: snap?.version ?? catalogVersion([]),
      quarantinedCount: snap?.quarantined.length ?? 0,
      contractVersion: this.options.contractVersion ?? CONTRACT_VERSION,
      sdkVersion: `${SDK_NAME}@${SDK_VERSION}`,
    };
  }

  private async heartbeat(): Promise<void> {
    try {
      this.bus.publish(adapterHeartbeatSubject(this.provider), AdapterHealthResponse.encode(await this.health()).finish());
    } catch (err) {
      this.log.warn({ err }, 'heartbeat publish failed');
    }
  }

  /**
   * The reporter of a run whose request asked for progress, publishing where it said — only below
   * this provider's progress prefix (what NATS permissions allow it anyway).
   */
  private progressReporter(subject: string | undefined): ProgressReporter | undefined {
    if (!subject || !subject.startsWith(progressPrefix(this.provider)) || /[\s*>]/.test(subject)) return undefined;
    const redact = this.redactor && !this.redactor.empty;
    return new ProgressReporter((update) => {
      // Progress leaves the process like results do: the same redaction.
      const sent = redact ? { ...update, message: this.redactText(update.message), log: this.redactText(update.log) } : update;
      try {
        this.bus.publish(subject, RunToolProgress.encode(sent).finish());
      } catch {
        // A full or closed connection loses an update, never the run.
      }
    });
  }

  private async handleRun(msg: BusMessage): Promise<Uint8Array> {
    const ack = msg.headers[HEADER_ACK_SUBJECT];
    if (!ack) return this.handleRunAcked(msg);
    this.acks.arrived(ack);
    try {
      return await this.handleRunAcked(msg);
    } finally {
      this.acks.answered(ack);
    }
  }

  private async handleRunAcked(msg: BusMessage): Promise<Uint8Array> {
    const { provider } = this;
    const req = decode(AdapterRunRequest, msg.data, 'run request');
    // Nothing would record a span here: run without one (the trace headers stay in `msg`).
    if (!tracerProviderRegistered()) return this.runChecked(msg, req);
    const parent = propagation.extract(ROOT_CONTEXT, msg.headers);
    return tracer.startActiveSpan(
      `adapter.run ${provider}:${req.name}`,
      { kind: SpanKind.SERVER, attributes: { 'toolhub.provider': provider, 'toolhub.tool': req.name, 'toolhub.instance': this.instanceId } },
      parent,
      async (span) => {
        try {
          return await this.runChecked(msg, req);
        } catch (err) {
          // Traces leave the process too: the same redaction as the reply.
          const message = this.redactText((err as Error).message ?? String(err));
          span.recordException({ name: (err as Error).name ?? 'Error', message });
          span.setStatus({ code: SpanStatusCode.ERROR, message });
          throw err;
        } finally {
          span.end();
        }
      },
    );
  }

  private runChecked(msg: BusMessage, req: AdapterRunRequest): Promise<Uint8Array> {
    const exec = () => this.runOnce(msg, req);
    // Keys are remembered (up to 10,000 of them): a huge one would be a memory sink.
    assertRunIdentifiers(req);
    return req.idempotencyKey ? this.idempotency.run(`${req.name}\u0000${req.idempotencyKey}`, exec) : exec();
  }

  private async runOnce(msg: BusMessage, req: AdapterRunRequest): Promise<Uint8Array> {
    const { provider, bus, redactor } = this;
    const headerDeadline = Number(msg.headers[HEADER_DEADLINE] ?? 0);
    const deadline = req.deadlineUnixMs || headerDeadline || Date.now() + this.defaultTimeoutMs;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw ToolHubError.timeout(`The deadline of ${req.name} passed before the adapter could start it; give the call more time (timeout_ms).`);
    const controller = new AbortController();
    this.running.add(controller);
    const callRef = msg.headers[HEADER_ACK_SUBJECT];
    if (callRef) this.byCallRef.set(callRef, controller);
    let timer: NodeJS.Timeout | undefined;
    const reporter = this.progressReporter(msg.headers[HEADER_PROGRESS_SUBJECT]);
    const base: RunContext = { signal: controller.signal, deadline, caller: req.caller, idempotencyKey: req.idempotencyKey };
    const ctx: RunContext = reporter
      ? { ...base, progress: (update) => reporter.progress(update), log: (line) => reporter.log(line) }
      : base;
    try {
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Reject first: the abort below also settles `cancelled`, and the timeout must win the race.
          reject(ToolHubError.timeout(`Tool ${provider}:${req.name} did not finish within ${remaining} ms and was cancelled. Retry with a larger timeout_ms or smaller input.`));
          controller.abort(new Error('deadline exceeded'));
        }, remaining);
      });
      // A cancellation from the dispatcher aborts the signal: the tool stops, and nobody reads the reply.
      const cancelled = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(ToolHubError.unavailable(`Run of ${provider}:${req.name} cancelled: ${String((controller.signal.reason as Error)?.message ?? controller.signal.reason)}.`)), { once: true }),
      );
      cancelled.catch(() => undefined);
      this.assertNotQuarantined(req.name);
      const raw: ToolResult = await Promise.race([this.adapter.runTool(req.name, req.arguments ?? {}, ctx), expired, cancelled]);
      const result = redactor ? redactResult(raw, redactor) : raw;
      const encoded = AdapterRunResponse.encode({
        status: result.isError ? RunStatus.RUN_STATUS_TOOL_ERROR : RunStatus.RUN_STATUS_OK,
        content: result.content,
        errorMessage: result.isError ? (result.errorMessage ?? 'The tool reported an error.') : '',
        structured: result.structured,
      }).finish();
      // A result the bus cannot carry would arrive as a bare internal error; say what happened instead.
      const limit = bus.maxPayload - REPLY_HEADROOM_BYTES;
      if (encoded.byteLength <= limit) return encoded;
      return AdapterRunResponse.encode({
        status: RunStatus.RUN_STATUS_TOOL_ERROR,
        content: [],
        errorMessage:
          `The result of ${provider}:${req.name} is ${encoded.byteLength} bytes, more than the ${limit} bytes one reply can carry. ` +
          'Ask for less: a page or a range, fewer rows or columns, or write the output to a file.',
      }).finish();
    } finally {
      // Before the reply: the last update reaches the dispatcher while it still listens.
      reporter?.end();
      clearTimeout(timer);
      this.running.delete(controller);
      if (callRef && this.byCallRef.get(callRef) === controller) this.byCallRef.delete(callRef);
    }
  }
}

function decode<T>(decoder: { decode(b: Uint8Array): T }, data: Uint8Array, what: string): T {
  try {
    return decoder.decode(data);
  } catch (err) {
    throw new ToolHubError('invalid_argument', `Malformed ${what} message: ${(err as Error).message}`, { cause: err });
  }
}
