/**
 * @toolhub/store — the registry's storage: the RegistryStore port (catalog mirror with operator
 * overlays, versioned preload list, exactly-once per-tool call statistics) and its two
 * implementations, MongoRegistryStore (MongoDB 6+ / FerretDB 1.24) and EmbeddedRegistryStore
 * (files in a directory, for the one-process mode). Any new export added here becomes public API.
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
export { MongoRegistryStore, mongoRegistryStoreDefaults, type MongoRegistryStoreOptions } from './mongo/mongo-store';
export { EmbeddedRegistryStore, embeddedRegistryStoreDefaults, type EmbeddedRegistryStoreOptions } from './embedded/embedded-store';
// The per-tool checks of a sync, so the registry can quarantine one bad tool instead of losing the catalog.
export { normalizeToolInfo, MAX_TOOL_JSON_BYTES } from './validation';
export { MAX_SYNC_TOOLS } from './tools';
