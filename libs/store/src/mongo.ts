/**
 * @toolhub/store/mongo — the MongoDB backend of the RegistryStore port (MongoDB 6+; FerretDB 1.24
 * stands in for it in tests, see docs/decisions/0001-ferretdb-is-the-test-stand-in.md). Its own
 * entry so that only the process that opens it (apps/registry) carries the `mongodb` driver; the
 * port and its types stay in `@toolhub/store`. Any new export added here becomes public API.
 */
export { MongoRegistryStore, mongoRegistryStoreDefaults, type MongoRegistryStoreOptions } from './mongo/mongo-store';
