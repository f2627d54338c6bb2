/**
 * The RegistryStore logic, written once over the small {@link Backend} interface; MongoDB and
 * NeDB only supply the collections. Tracks calls in flight so `close()` can drain them.
 */
import type { ToolCalled, ToolInfo } from '@toolhub/contracts';

import { type AuditDoc, type AuditEntry, type AuditInput, AuditLog, type AuditQuery } from './audit';
import type { Backend } from './backend';
import { StoreError } from './errors';
import type { ResolvedStoreOptions } from './options';
import { type PreloadDoc, PreloadLists, toPreloadList } from './preload';
import type { StatsDoc } from './stats/fold';
import { packedBatchCollection, packedStatsCollection, type StoredBatchDoc, type StoredStatsDoc } from './stats/packing';
import { StatsQueries } from './stats/queries';
import { type ClaimDoc, type ClaimLedger, FlatClaims } from './stats/claims';
import { type BatchDoc, CallRecorder } from './stats/recorder';
import type {
  ListToolStatsOptions,
  OverlayPatch,
  PreloadList,
  PreloadRevision,
  PruneLearnedUses,
  RecordCallsResult,
  RegistryStore,
  SetPreloadListInput,
  StoredLearnedUse,
  StoredTool,
  SyncResult,
  ToolFilter,
  ToolStats,
  ToolStatsSummary,
} from './store';
import { type OverlayDoc, type ToolDoc, ToolCatalog } from './tools';
import { type VectorDoc, ToolVectors } from './vectors';
import { type LearnedUseDoc, LearnedUses } from './learning';

/** A RegistryStore over any {@link Backend}. */
export class DocumentRegistryStore implements RegistryStore {
  private readonly catalog: ToolCatalog;
  private readonly preload: PreloadLists;
  private readonly recorder: CallRecorder;
  private readonly queries: StatsQueries;
  private readonly audit: AuditLog;
  private readonly vectors: ToolVectors;
  private readonly learned: LearnedUses;
  private closing: Promise<void> | undefined;
  private inFlight = 0;
  private drained: (() => void) | undefined;

  protected constructor(
    private readonly backend: Backend,
    options: ResolvedStoreOptions,
    private readonly description: string,
    /** Store statistics' nested arrays and batches' records as text (see stats/packing.ts): for FerretDB. */
    packStatistics = false,
    /** Where claims are kept; default: the `call_claims` collection, pruned by age. */
    claims?: ClaimLedger,
    /** Memory the backend holds per event whose statistics wait (NeDB: the batch's document); see recorder.ts. */
    backendBytesPerEvent = 0,
  ) {
    const clock = options.clock;
    this.catalog = new ToolCatalog(backend.collection<ToolDoc>('tools'), backend.collection<OverlayDoc>('overlays'), clock);
    this.preload = new PreloadLists(backend.collection<PreloadDoc>('preload_revisions'), clock);
    const stats = packStatistics ? packedStatsCollection(backend.collection<StoredStatsDoc>('tool_stats')) : backend.collection<StatsDoc>('tool_stats');
    const batches = packStatistics ? packedBatchCollection(backend.collection<StoredBatchDoc>('call_batches')) : backend.collection<BatchDoc>('call_batches');
    this.recorder = new CallRecorder(stats, batches, claims ?? new FlatClaims(backend.collection<ClaimDoc>('call_claims')), options, backendBytesPerEvent);
    this.queries = new StatsQueries(stats, clock, options.hourlyRetentionHours);
    this.audit = new AuditLog(backend.collection<AuditDoc>('audit_log'), clock);
    this.vectors = new ToolVectors(backend.collection<VectorDoc>('tool_vectors'));
    this.learned = new LearnedUses(backend.collection<LearnedUseDoc>('learned_uses'));
  }

  /** Finishes every batch a crashed writer left behind (run once at start-up). */
  protected async recoverPending(): Promise<number> {
    return this.run(() => this.recorder.recover());
  }

  upsertTools(provider: string, tools: readonly ToolInfo[]): Promise<SyncResult> {
    return this.run(() => this.catalog.sync(provider, tools));
  }

  getTool(provider: string, name: string): Promise<StoredTool | undefined> {
    return this.run(() => this.catalog.get(provider, name));
  }

  listTools(filter?: ToolFilter): Promise<StoredTool[]> {
    return this.run(() => this.catalog.list(filter));
  }

  registerTool(tool: ToolInfo): Promise<StoredTool> {
    return this.run(() => this.catalog.register(tool));
  }

  updateTool(tool: ToolInfo): Promise<StoredTool> {
    return this.run(() => this.catalog.update(tool));
  }

  deleteTool(provider: string, name: string): Promise<void> {
    return this.run(() => this.catalog.delete(provider, name));
  }

  setOverlay(provider: string, name: string, patch: OverlayPatch): Promise<StoredTool> {
    return this.run(() => this.catalog.setOverlay(provider, name, patch));
  }

  getPreloadList(): Promise<PreloadList> {
    return this.run(async () => toPreloadList(await this.preload.current()));
  }

  setPreloadList(input: SetPreloadListInput): Promise<PreloadRevision> {
    return this.run(() => this.preload.set(input));
  }

  preloadHistory(limit?: number): Promise<PreloadRevision[]> {
    return this.run(() => this.preload.history(limit));
  }

  recordCalls(events: readonly ToolCalled[]): Promise<RecordCallsResult> {
    return this.run(() => this.recorder.record(events));
  }

  // Statistics waiting for their write (statsFlushMs) are written first, so a read sees every counted call.
  getToolStats(toolId: string): Promise<ToolStats | undefined> {
    return this.run(async () => {
      await this.recorder.flush();
      return this.queries.get(toolId);
    });
  }

  listToolStats(options?: ListToolStatsOptions): Promise<ToolStatsSummary[]> {
    return this.run(async () => {
      await this.recorder.flush();
      return this.queries.list(options);
    });
  }

  appendAudit(entry: AuditInput): Promise<AuditEntry> {
    return this.run(() => this.audit.append(entry));
  }

  listAudit(query?: AuditQuery): Promise<AuditEntry[]> {
    return this.run(() => this.audit.list(query));
  }

  loadVectors(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>> {
    return this.run(() => this.vectors.load(model, keys));
  }

  saveVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void> {
    return this.run(() => this.vectors.save(model, vectors));
  }

  saveLearnedUse(use: StoredLearnedUse): Promise<boolean> {
    return this.run(() => this.learned.save(use));
  }

  listLearnedUses(sinceUnixMs: number): Promise<StoredLearnedUse[]> {
    return this.run(() => this.learned.list(sinceUnixMs));
  }

  pruneLearnedUses(options: PruneLearnedUses): Promise<number> {
    return this.run(() => this.learned.prune(options));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      // Statistics still waiting are written now; if that fails their batches stay stored and the
      // next start-up finishes them, so closing goes on.
      await this.recorder.stop().catch(() => undefined);
      await this.backend.close();
    })();
    return this.closing;
  }

  /** Runs `op` unless the store is closing, counting it as in flight. */
  private async run<T>(op: () => Promise<T>): Promise<T> {
    if (this.closing) throw new StoreError('closed', `The registry store (${this.description}) is closed.`, { retryable: false });
    this.inFlight++;
    try {
      return await op();
    } finally {
      if (--this.inFlight === 0) this.drained?.();
    }
  }
}
