/**
 * @toolhub/store/mongo — MongoRegistryStore (MongoDB 6+; FerretDB 1.24 as the test stand-in, see
 * docs/decisions/0001), the registry app's store. Its own entry point, so only what imports it
 * carries the MongoDB driver (scripts/check-boundaries.mjs checks the bundles).
 */
export { MongoRegistryStore, mongoRegistryStoreDefaults, type MongoRegistryStoreOptions } from './mongo/mongo-store';
