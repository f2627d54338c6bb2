/**
 * @toolhub/store — the registry's storage: the RegistryStore port (catalog mirror with operator
 * overlays, versioned preload list, exactly-once per-tool call statistics). Its two
 * implementations have their own entries so a process carries only the driver it opens:
 * `@toolhub/store/mongo` (MongoRegistryStore, MongoDB 6+ / FerretDB 1.24) and
 * `@toolhub/store/embedded` (EmbeddedRegistryStore, files in a directory, for the one-process
 * mode). Any new export added here becomes public API.
 */
export type {
  HourlyStats,
  ListToolStatsOptions,
  OverlayPatch,
  PreloadList,
  PreloadRevision,
  PruneLearnedUses,
  RecordCallsResult,
  RegistryStore,
  RejectedEvent,
  SetPreloadListInput,
  StoredLearnedUse,
  StoredTool,
  SyncResult,
  ToolFilter,
  ToolOverlay,
  ToolSource,
  ToolStats,
  ToolStatsSort,
  ToolStatsSummary,
} from './store';
export type { AuditEntry, AuditInput, AuditQuery } from './audit';
export { StoreError, isStoreError, type StoreErrorCode } from './errors';
export { storeDefaults, type RecordStep, type StoreOptions } from './options';
// The per-tool checks of a sync, so the registry can quarantine one bad tool instead of losing the catalog.
export { normalizeToolInfo, MAX_TOOL_JSON_BYTES } from './validation';
export { MAX_SYNC_TOOLS } from './tools';
