/**
 * @toolhub/agent-kit — what agent fleets embed: a gRPC client for the ToolHub API, the four
 * meta-tools and the preload set rendered byte-stable for OpenAI (Chat Completions, Responses),
 * Anthropic Messages and MCP, an executor for the model's tool calls, and the loaded-tools manager.
 * Any new export added here becomes public API.
 */
export { ToolHubAgentClient, type ToolHubApi, type CallOptions, type RunCallOptions, errorInfoOf } from './client';
export {
  type ToolHubAgentClientOptions,
  type RetryOptions,
  type ClientTlsOptions,
  CLIENT_DEFAULTS,
  withClientDefaults,
  clientOptionsFromEnv,
  tlsChannelCredentials,
} from './client-options';
export { assertTokenTransport, isLoopbackHost, targetHost } from './plaintext-token';
export { backoffDelay } from './retry';
export {
  ToolHubCallError,
  AgentKitError,
  type AgentKitErrorCode,
  findToolHubCallError,
  isToolHubCallError,
  hasAgentKitError,
} from './errors';
export { META_TOOLS, META_TOOL_NAMES, type MetaToolName, isMetaToolName, type ExposedTool, type JsonObjectSchema, ASYNC_META_TOOLS, ASYNC_META_TOOL_NAMES, type AsyncMetaToolName, isAsyncMetaToolName } from './meta-tools';
export {
  EXPOSED_NAME_SEPARATOR,
  MAX_EXPOSED_NAME_LENGTH,
  EXPOSED_NAME_PATTERN,
  type ToolRef,
  exposedToolName,
  parseExposedToolName,
  ExposedNameTable,
} from './tool-names';
export {
  TOOL_FORMATS,
  type ToolFormat,
  type OpenAIChatTool,
  type OpenAIResponsesTool,
  type AnthropicTool,
  type McpTool,
  type RenderedToolByFormat,
  type RenderedTools,
  renderTools,
  toolsFingerprint,
  normalizeInputSchema,
} from './render';
export {
  LoadedTools,
  type LoadedToolsOptions,
  type DiscoveredTool,
  type LoadResult,
  type TokenCounter,
  estimateTokens,
  exposedToolFromInfo,
  exposedToolFromPreload,
  isPreloadedMetaTool,
  META_TOOL_PROVIDER,
} from './loaded-tools';
export { outputSchemaOf } from './output-schema';
export { buildPreloadSet, compactTool, keyParameters } from './preload-set';
export { formatFailure, formatInfo, formatListing, formatRun, formatSearch, truncate } from './format-result';
export { ToolCallExecutor, type ToolCall, type ToolCallResult, type ExecutorOptions } from './execute';
export { AgentToolkit, type AgentToolkitOptions } from './toolkit';
export { SearchMemory, type SearchMemoryOptions } from './search-memory';
