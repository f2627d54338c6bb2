/**
 * @toolhub/mcp-adapter — serves the tools of any number of MCP servers (stdio, Streamable HTTP,
 * SSE) as one ToolHub provider: load a configuration, create the adapter, serve it with
 * `serveAdapter` from '@toolhub/adapter-sdk'. Any new export added here becomes public API.
 */
export {
  type McpAdapterConfig,
  type McpServerConfig,
  type TransportConfig,
  type StdioTransportConfig,
  type HttpTransportConfig,
  type McpConfigLoadOptions,
  parseMcpConfig,
  loadMcpConfig,
} from './config';
export { McpConfigError, type McpConfigErrorCode, type McpConfigIssue, findMcpConfigError } from './errors';
export { type McpAdapter, type McpAdapterOptions, type CatalogChangeEvent, createMcpAdapter } from './adapter';
export type { BackoffOptions, ConnectionState, ConnectionStatus, ToolsReason } from './connection';
export type { McpLogger } from './logger';
export { ALIAS_PATTERN } from './names';
export { defaultConfigPath } from './default-config';
