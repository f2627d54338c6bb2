/**
 * @toolhub/contracts — the wire contract of ToolHub: messages and services generated from
 * `proto/toolhub/v1` (ts-proto), NATS subjects and headers, naming rules and error codes.
 * Any new export added here becomes public API for every adapter team.
 */
export {
  Importance,
  ToolAnnotations,
  ToolExample,
  ToolSummary,
  ToolInfo,
  Category,
  ContentBlock,
  BinaryContent,
  ResourceContent,
} from './gen/toolhub/v1/tool';
export { ErrorCode, FieldViolation, AppliedFix, ErrorInfo } from './gen/toolhub/v1/errors';
export {
  ToolHubService,
  ToolHubClient,
  type ToolHubServer,
  ListToolsRequest,
  ListToolsResponse,
  GetToolInfoRequest,
  GetToolInfoResponse,
  RunToolRequest,
  RunToolResponse,
  RunStatus,
  SearchToolsRequest,
  SearchToolsResponse,
  SearchHit,
  PreloadFormat,
  GetPreloadSetRequest,
  GetPreloadSetResponse,
  PreloadTool,
  ListProvidersRequest,
  ListProvidersResponse,
  ProviderStatus,
} from './gen/toolhub/v1/agent';
export {
  AdapterListRequest,
  AdapterListResponse,
  AdapterInfoRequest,
  AdapterInfoResponse,
  AdapterRunRequest,
  AdapterRunResponse,
  AdapterHealthRequest,
  AdapterHealthResponse,
  CatalogAnnouncement,
} from './gen/toolhub/v1/adapter';
export { ToolCalled, ToolInvalidated, CatalogChanged } from './gen/toolhub/v1/events';
export {
  RegistryAdminService,
  RegistryAdminClient,
  type RegistryAdminServer,
  RegisterToolRequest,
  RegisterToolResponse,
  UpdateToolRequest,
  UpdateToolResponse,
  DeleteToolRequest,
  DeleteToolResponse,
  GetPreloadListRequest,
  GetPreloadListResponse,
  SetPreloadListRequest,
  SetPreloadListResponse,
  PreloadList,
} from './gen/toolhub/v1/registry';

export {
  SUBJECT_ROOT,
  type AdapterOperation,
  adapterQueueGroup,
  adapterSubject,
  ADAPTER_WILDCARD,
  ADAPTER_DISCOVERY_SUBJECT,
  ADAPTER_HEARTBEAT_SUBJECT,
  type RegistryOperation,
  registrySubject,
  type EventKind,
  EVENTS_STREAM,
  EVENTS_WILDCARD,
  eventSubject,
  eventWildcard,
  parseEventSubject,
} from './subjects';
export {
  HEADER_TRACEPARENT,
  HEADER_TRACESTATE,
  HEADER_DEADLINE,
  HEADER_REQUEST_ID,
  HEADER_MSG_ID,
  HEADER_ERROR_CODE,
  HEADER_ERROR,
  GRPC_ERROR_TRAILER,
} from './headers';
export {
  TOOL_NAME_PATTERN,
  PROVIDER_NAME_PATTERN,
  PATH_SEGMENT_PATTERN,
  MAX_PATH_DEPTH,
  isValidToolName,
  assertToolName,
  assertProviderName,
  toToolName,
  normalizePath,
  isWithinPath,
  parentPath,
  toolId,
  parseToolId,
  closestMatches,
} from './names';
export {
  type ToolHubErrorCode,
  type ToolHubErrorDetails,
  TOOLHUB_ERROR_CODES,
  isToolHubErrorCode,
  grpcStatusOf,
  codeFromGrpcStatus,
  errorCodeToProto,
  errorCodeFromProto,
  ToolHubError,
  findToolHubError,
  isToolHubError,
  toToolHubError,
} from './errors';
export { canonicalJson, contentHash } from './canonical';
export { type ImportanceName, importanceFromName, importanceName } from './importance';
export { contractDescriptorSet } from './proto-files';
