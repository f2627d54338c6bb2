/**
 * @toolhub/adapter-sdk — what an adapter team uses: implement list/info/run (or define tools in
 * code with staticCatalog), call serveAdapter, done. Also the dispatcher's AdapterClient.
 * Any new export added here becomes public API for every adapter team.
 */
export type { JsonSchema, RunContext, ToolResult, ListResult, AdapterOperations, AdapterDefinition, ToolDefinition } from './types';
export { type StaticCatalog, staticCatalog, listCatalog, toolNotFound, toToolInfo, toSummary, summarize } from './catalog';
export { type SdkLogger, type ServeAdapterOptions, type AdapterService, serveAdapter, catalogVersion } from './server';
export { type CallOptions, AdapterClient, type ReplicaRoute } from './client';
export { errorReply, okReply, readReply } from './wire';
export { type Redactor, redactingLogger, redactResult } from './redaction';
export { type QuarantineEntry, type ScreenedCatalog, QuarantineList, screenTool, screenCatalog, toWireQuarantine } from './quarantine';
export { type CatalogPages, type DecodedPage, cutPages, encodePage, readPage, catalogChecksum } from './catalog-pages';
export { type IdempotencyOptions, IdempotencyCache } from './idempotency';
export { textResult, jsonResult, toolError } from './results';
export { type ProgressUpdate, ProgressReporter, PROGRESS_INTERVAL_MS, PROGRESS_LOG_MAX_CHARS } from './progress-reporter';
export { type ParamNameMap, type ParamNameOptions, type ParamRename, createParamNameMap, toSnakeCase, toSnakeCaseWithSymbols } from './param-names';
export { type ToolNameMap, assignToolNames, namespacedName, renameParamsInText } from './tool-names';
export { SDK_NAME, SDK_VERSION } from './version';
export { MAX_SOURCE_DESCRIPTION_CHARS, fitDescription, schemaRuleViolation } from './tool-rules';
