/**
 * @toolhub/registry-core — the registry's logic (catalog mirror, change events, statistics
 * ingestion, search, preload set and suggestions) and its operator gRPC API.
 */
export { Registry, type RegistryOptions } from './registry';
export { searchConfigFields, searchBannerLine, searchOptions, type SearchConfig } from './search-setup';
export { DEFAULT_STATS_FLUSH_MS, statsConfigFields } from './stats-setup';
export { startAdminServer, type AdminServerOptions, type RunningAdminServer } from './admin-server';
export { adminJsonLimitConfigFields, adminJsonLimitError, adminJsonLimitsFromConfig, checkOverlaysContent, DEFAULT_ADMIN_JSON_LIMITS } from './admin-json-limits';
// Moved to agent-kit (shared with the dispatcher); re-exported for existing importers.
export { buildPreloadSet, compactTool, keyParameters } from '@toolhub/agent-kit';
export { suggestPreload, preloadScore } from './suggest';
export { parseOverlaysFile, applyOverlaysFile, overlaysFileSchema, type OverlaysFile } from './overlays-file';
export { toRegisteredTool, toToolInfo, toWireStats } from './convert';
export { CatalogSync, type CatalogSyncOptions, screenForStore } from './catalog-sync';
export { ProviderLiveness, type LivenessOptions } from './liveness';
export { ResyncGrace, type GraceHandlers, type GraceRound, type ProviderCheck, type ResyncGraceOptions } from './resync-grace';
