/**
 * The RegistryStore port: everything the registry keeps — the catalog mirror of every provider's
 * tools with the operators' overlays, the versioned preload list, and per-tool call statistics.
 * Implementations: MongoRegistryStore (shared, MongoDB 6+ or FerretDB 1.24) and
 * EmbeddedRegistryStore (one process, files in a directory). Both pass `storeContractSuite`.
 */
import type { Importance, ToolCalled, ToolInfo } from '@toolhub/contracts';

import type { AuditEntry, AuditInput, AuditQuery } from './audit';

/** Where a tool's definition comes from: a provider's catalog sync, or the admin API. */
export type ToolSource = 'adapter' | 'api';

/**
 * Operator settings kept beside a tool's definition. They survive catalog syncs, and even a sync
 * that drops the tool for a while (an MCP server that was down): when the tool comes back, so do
 * its settings. Only `deleteTool` removes them.
 */
export interface ToolOverlay {
  /** Overrides the importance the source declared. */
  readonly importance?: Importance;
  /** `false` hides the tool from agents. Unset means enabled. */
  readonly enabled?: boolean;
  /** Tool ids (`<provider>:<name>`) to try, in order, when this tool fails. */
  readonly fallbacks?: readonly string[];
  /** Who changed the overlay last, as given to {@link RegistryStore.setOverlay}. */
  readonly updatedBy?: string;
  readonly updatedUnixMs?: number;
}

/**
 * A change to a tool's overlay: an omitted field stays as it is, `null` clears it (back to what
 * the source declared); an empty `fallbacks` list clears it too.
 */
export interface OverlayPatch {
  importance?: Importance | null;
  enabled?: boolean | null;
  fallbacks?: readonly string[] | null;
  /** Who makes the change (recorded as `updatedBy`). */
  changedBy?: string;
}

/**
 * A tool as the registry serves it: its definition with the overlay applied (so it can be
 * returned wherever a `ToolInfo` is expected), plus what was declared and where it came from.
 */
export interface StoredTool extends ToolInfo {
  /** The importance the source declared; `importance` is the effective one (overlay first). */
  readonly declaredImportance: Importance;
  /** Effective: the overlay's `enabled`, else true. */
  readonly enabled: boolean;
  /** Effective fallback chain (the overlay's, else empty). */
  readonly fallbacks: readonly string[];
  readonly overlay: ToolOverlay;
  readonly source: ToolSource;
  readonly createdUnixMs: number;
  /** Last change of the definition (not of the overlay). */
  readonly updatedUnixMs: number;
}

/** What a catalog sync did, as tool names, each list sorted. */
export interface SyncResult {
  readonly added: string[];
  readonly changed: string[];
  /** Adapter tools of the provider that were not in the synced list; their overlays are kept. */
  readonly removed: string[];
  readonly unchanged: string[];
  /** Names held by a tool registered through the admin API; left as they are. */
  readonly conflicts: string[];
}

/** Filter of {@link RegistryStore.listTools}; every given field must match. */
export interface ToolFilter {
  provider?: string;
  /** Category path: the tools at it or below it (`"github"` matches `github/issues`, not `githubx`). */
  pathPrefix?: string;
  /** Effective enabled state. */
  enabled?: boolean;
  source?: ToolSource;
}

/** The preload list: the tools every agent gets up front, in the operators' order. */
export interface PreloadList {
  readonly toolIds: string[];
  /** 0 before the first change; +1 per change. */
  readonly revision: number;
  readonly changedBy: string;
  readonly changedUnixMs: number;
  readonly comment: string;
}

/** One revision of the preload list with what it changed against the one before. */
export interface PreloadRevision extends PreloadList {
  readonly added: string[];
  readonly removed: string[];
}

/** Input of {@link RegistryStore.setPreloadList}. */
export interface SetPreloadListInput {
  toolIds: readonly string[];
  /** The revision the change was made on; undefined or 0 skips the check (last writer wins). */
  expectedRevision?: number;
  /** Who makes the change. Required. */
  changedBy: string;
  comment?: string;
}

/** An event {@link RegistryStore.recordCalls} refused; it changed nothing. */
export interface RejectedEvent {
  readonly index: number;
  readonly eventId: string;
  readonly reason: string;
}

/** What {@link RegistryStore.recordCalls} did. */
export interface RecordCallsResult {
  /** Events counted by this call. */
  readonly recorded: number;
  /** Valid events counted before (a redelivery) or twice in the input; not counted again. */
  readonly duplicates: number;
  readonly rejected: RejectedEvent[];
  /**
   * Set when the upkeep that follows a batch now and then — finishing batches of crashed writers,
   * pruning event ids past `dedupWindowMs` — failed. The events above are counted all the same;
   * the upkeep is tried again at its next interval. Log it: pruning that keeps failing lets the
   * stored event ids grow.
   */
  readonly upkeepError?: string;
}

/** Call statistics of one tool, without the hourly series. */
export interface ToolStatsSummary {
  readonly toolId: string;
  readonly provider: string;
  readonly name: string;
  readonly calls: number;
  readonly successes: number;
  /** Failures by class: the event's status (`tool_error`, `timeout`, …). */
  readonly failures: Readonly<Record<string, number>>;
  readonly failureCount: number;
  /** successes / calls. */
  readonly successRate: number;
  readonly failureRate: number;
  /** Calls that a fallback tool served. */
  readonly fallbackServed: number;
  readonly firstCallUnixMs: number;
  readonly lastCallUnixMs: number;
  readonly meanLatencyMs: number;
  /** Latency percentiles over all calls, within 1% (an HDR histogram with 2 significant digits). */
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxLatencyMs: number;
  /** Calls within the hourly window (the last 7 days by default): for preload suggestions. */
  readonly recentCalls: number;
  /** Failures within the hourly window. */
  readonly recentFailures: number;
}

/** Calls of one tool in one hour. */
export interface HourlyStats {
  readonly hourStartUnixMs: number;
  readonly calls: number;
  readonly successes: number;
  readonly failures: number;
  readonly meanLatencyMs: number;
}

/** Call statistics of one tool. */
export interface ToolStats extends ToolStatsSummary {
  /** Hours of the last 7 days that had calls, oldest first (hours without calls are left out). */
  readonly hourly: HourlyStats[];
}

/** Ranking of {@link RegistryStore.listToolStats}, highest first. */
export type ToolStatsSort = 'calls' | 'recency' | 'failure_rate' | 'latency';

/** Options of {@link RegistryStore.listToolStats}. */
export interface ListToolStatsOptions {
  /** `latency` ranks by p95. @default 'calls' */
  sortBy?: ToolStatsSort;
  /** @default 50 (at most 1000) */
  limit?: number;
  provider?: string;
  /** Leave out tools with fewer calls (useful with `failure_rate`). @default 0 */
  minCalls?: number;
}

/**
 * One learned pair of the search's learning from use (@toolhub/search UsageMemory): a search with
 * `query` was followed by a successful run of `toolId`.
 */
export interface StoredLearnedUse {
  /** Unique (the registry derives it from the run's event id): saving an id again changes nothing. */
  readonly id: string;
  readonly toolId: string;
  /** The provider of `toolId`. */
  readonly provider: string;
  readonly query: string;
  readonly atUnixMs: number;
  /** The query's embedding, when the search had one. */
  readonly vector?: Float32Array;
}

/** What {@link RegistryStore.pruneLearnedUses} deletes. */
export interface PruneLearnedUses {
  /** Uses older than this go (of `provider`, or of every provider). */
  beforeUnixMs: number;
  /** Only this provider's uses. */
  provider?: string;
  /**
   * With `provider`: all but its newest `keepNewest` uses go too (uses stamped in the same
   * millisecond as the newest one dropped go with it).
   */
  keepNewest?: number;
}

/**
 * The registry's storage. Every method validates its input first and throws `ToolHubError`
 * (`invalid_argument` naming the field and the rule) before changing anything; failures of the
 * backend are `StoreError`. Safe to call concurrently, also from several processes on one MongoDB.
 */
export interface RegistryStore {
  /**
   * Replaces the catalog of `provider` with `tools` (a full sync): adds new tools, replaces changed
   * definitions, removes adapter tools not in the list. Overlays are kept. Tools registered through
   * the admin API are never touched (their names are reported as `conflicts`).
   * Each tool's `provider` must be empty or `provider`; its `path` is normalised; an empty
   * `version` is filled with a content hash.
   * @throws ToolHubError invalid_argument (field `tools[i].name` etc.), nothing written.
   */
  upsertTools(provider: string, tools: readonly ToolInfo[]): Promise<SyncResult>;
  /** The tool, or undefined. @throws ToolHubError invalid_argument for a malformed provider or name. */
  getTool(provider: string, name: string): Promise<StoredTool | undefined>;
  /** Tools matching `filter`, sorted by id. */
  listTools(filter?: ToolFilter): Promise<StoredTool[]>;
  /**
   * Adds a tool by hand (source `api`).
   * @throws ToolHubError already_exists when the provider already has a tool of that name.
   */
  registerTool(tool: ToolInfo): Promise<StoredTool>;
  /**
   * Replaces the definition of a tool registered through the API; its overlay is kept.
   * @throws ToolHubError not_found (with close matches); failed_precondition for an adapter tool,
   *   whose definition the next sync would overwrite (change its overlay instead).
   */
  updateTool(tool: ToolInfo): Promise<StoredTool>;
  /** Deletes a tool and its overlay (statistics are kept). @throws ToolHubError not_found. */
  deleteTool(provider: string, name: string): Promise<void>;
  /**
   * Changes the operator overlay of an existing tool.
   * @throws ToolHubError not_found; invalid_argument for a bad importance or fallback id.
   */
  setOverlay(provider: string, name: string, patch: OverlayPatch): Promise<StoredTool>;

  /** The current preload list (revision 0 and no tools before the first change). */
  getPreloadList(): Promise<PreloadList>;
  /**
   * Saves a new revision of the preload list. Saving the same ids in the same order again
   * returns the current revision unchanged. Tools need not exist yet (a provider may sync later).
   * @throws ToolHubError failed_precondition when `expectedRevision` is not the current revision;
   *   invalid_argument for a malformed or repeated id or a missing `changedBy`.
   */
  setPreloadList(input: SetPreloadListInput): Promise<PreloadRevision>;
  /** The latest `limit` revisions, newest first. @default limit 20 */
  preloadHistory(limit?: number): Promise<PreloadRevision[]>;

  /**
   * Counts `tool.called` events, exactly once per `eventId`: events already counted (a
   * redelivered or overlapping batch) are skipped, also after a crash in the middle of an earlier
   * call. Resolve means written: acknowledge the events only then. Malformed events are skipped
   * and reported in `rejected` (so one bad event cannot block a consumer).
   */
  recordCalls(events: readonly ToolCalled[]): Promise<RecordCallsResult>;
  /** Statistics of a tool, or undefined when it was never called. */
  getToolStats(toolId: string): Promise<ToolStats | undefined>;
  /** Statistics of the top tools by `sortBy`. */
  listToolStats(options?: ListToolStatsOptions): Promise<ToolStatsSummary[]>;

  /**
   * Stored search vectors of these keys under `model` (keys without one are absent from the map).
   * Keys are content hashes (see @toolhub/search `embeddingKey`), so a stored vector never goes stale.
   */
  loadVectors(model: string, keys: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Stores search vectors under `model`; a key already stored is left as it is (same content, same vector). */
  saveVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): Promise<void>;

  /**
   * Keeps one learned pair of learning from use: one insert. False (and nothing changed) when a
   * use with its id is stored already.
   * @throws ToolHubError invalid_argument for a malformed use (id, tool id, provider, query, time).
   */
  saveLearnedUse(use: StoredLearnedUse): Promise<boolean>;
  /** The learned pairs stamped at or after `sinceUnixMs`, oldest first. */
  listLearnedUses(sinceUnixMs: number): Promise<StoredLearnedUse[]>;
  /**
   * Deletes learned pairs: older than `beforeUnixMs`, and beyond a provider's newest `keepNewest`.
   * Returns how many. Deletes at most 10,000 per command (FerretDB refuses more than 65,535).
   * @throws ToolHubError invalid_argument for `keepNewest` without `provider`, or bad numbers.
   */
  pruneLearnedUses(options: PruneLearnedUses): Promise<number>;

  /** Appends one admin change to the audit log (append-only). */
  appendAudit(entry: AuditInput): Promise<AuditEntry>;
  /** Audit entries, newest first, filtered by target and/or principal. */
  listAudit(query?: AuditQuery): Promise<AuditEntry[]>;
  /** Waits for calls in flight, then releases the connection or the files. Idempotent. */
  close(): Promise<void>;
}
