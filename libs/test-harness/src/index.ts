/**
 * @toolhub/test-harness — real servers and processes for integration tests, started on free
 * loopback ports and cleaned up even when the test process dies. Any new export added here
 * becomes public API.
 */
export { waitFor, type WaitForOptions } from './wait';
export { canConnect, freePort, waitForPort } from './ports';
export { killAllProcesses, scratchDir, spawnProcess, type ExitInfo, type SpawnOptions, type SpawnedProcess } from './process';
export { childrenOf, isAlive, type ProcessRow } from './children';
export { containersWanted, startMongoContainer } from './containers';
export { seededRandom } from './random';
export { repoRoot } from './repo-root';
export { startNatsServer, type NatsServerHandle, type NatsServerOptions } from './nats';
export { postgresBinDir, startPostgresServer, type PostgresServer } from './postgres';
export { startNatsCluster, type NatsClusterHandle } from './nats-cluster';
export {
  ferretdbBinaryPath,
  ferretdbHandler,
  mongoUrl,
  natsUrl,
  redisUrl,
  startMongoServer,
  startRedisServer,
  stopSharedServers,
  type ServerHandle,
} from './services';
