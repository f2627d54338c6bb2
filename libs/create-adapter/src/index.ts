/**
 * @toolhub/create-adapter — scaffolds a ToolHub adapter project on the published packages.
 * Any new export added here becomes public API.
 */
export { ADAPTER_EXIT, adapterFiles, type ScaffoldFiles } from './adapter-files';
export { createAdapterMain, type CreateAdapterIo } from './cli';
export { createAdapter, type CreateAdapterOptions, type CreatedAdapter, providerFromDirectory } from './create';
export { CreateAdapterError, type CreateAdapterErrorCode } from './errors';
export { PROVIDER_PATTERN, SCAFFOLD_VERSIONS, THIRD_PARTY_VERSIONS } from './versions';
