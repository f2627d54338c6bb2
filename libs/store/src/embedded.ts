/**
 * @toolhub/store/embedded — EmbeddedRegistryStore (files in a directory, NeDB), the one-process
 * mode's store and the tests'. Its own entry point, so only what imports it carries NeDB.
 */
export { EmbeddedRegistryStore, embeddedRegistryStoreDefaults, type EmbeddedRegistryStoreOptions } from './embedded/embedded-store';
