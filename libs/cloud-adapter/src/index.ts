/**
 * @toolhub/cloud-adapter — serves the operations of OpenAPI 3.0/3.1 documents as tools of one
 * ToolHub provider (default `cloud`): load a configuration, create the adapter, serve it with
 * `serveAdapter` from '@toolhub/adapter-sdk'. Calls go only to allowlisted hosts, with redirects
 * and resolved addresses checked, size caps, deadlines and 429/503 retries.
 * Any new export added here becomes public API.
 */
export {
  ALIAS_PATTERN,
  type CloudAdapterConfig,
  type CloudDocumentConfig,
  type AuthConfig,
  type BearerAuthConfig,
  type ApiKeyAuthConfig,
  type BasicAuthConfig,
  type CloudConfigLoadOptions,
  parseCloudConfig,
  loadCloudConfig,
} from './config';
export { CloudConfigError, type CloudConfigErrorCode, type CloudConfigIssue, findCloudConfigError } from './errors';
export { type CloudAdapter, type CloudAdapterOptions, createCloudAdapter } from './adapter';
export type { CloudLogger } from './logger';
export type { HostRule } from './hosts';
export type { HostResolver } from './http';
export { type AddressClass, classifyAddress } from './address';
export { parseRetryAfter } from './retry';
export { type MappedDocument, type MappingOptions, type OperationEntry, type ParamSpec, type BodySpec, mapOperations } from './operations';
export { type LoadedDocument, type LoadDocumentOptions, loadOpenApiDocument } from './openapi';
export { defaultConfigPath } from './default-config';
