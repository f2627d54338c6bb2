/**
 * @toolhub/store/embedded — the embedded backend of the RegistryStore port (NeDB files in a
 * directory, for the one-process mode). Its own entry so that only the process that opens it
 * (apps/toolhub) carries `@seald-io/nedb`; the port and its types stay in `@toolhub/store`.
 * Any new export added here becomes public API.
 */
export { EmbeddedRegistryStore, embeddedRegistryStoreDefaults, type EmbeddedRegistryStoreOptions } from './embedded/embedded-store';
