/**
 * MongoDB in a container via testcontainers, for machines with a Docker engine (developer laptops,
 * CI runners with Docker). Machines without one use FerretDB (services.ts) instead.
 */
import { existsSync } from 'node:fs';

import type { ServerHandle } from './services';

/**
 * Whether to use containers: `TOOLHUB_TESTCONTAINERS=1` forces them, `=0` turns them off; otherwise
 * yes when DOCKER_HOST is set or the Docker socket exists.
 */
export function containersWanted(env: NodeJS.ProcessEnv = process.env, socketExists = existsSync('/var/run/docker.sock')): boolean {
  const setting = env['TOOLHUB_TESTCONTAINERS'];
  if (setting === '1' || setting === 'true') return true;
  if (setting === '0' || setting === 'false') return false;
  return Boolean(env['DOCKER_HOST']) || socketExists;
}

/**
 * Starts MongoDB (`TOOLHUB_MONGO_IMAGE`, default `mongo:7`; a single-node replica set) with
 * testcontainers and returns its handle; `pid` is -1 (the server runs in the container).
 * @throws Error saying how to do without Docker when the container does not start.
 */
export async function startMongoContainer(image = process.env['TOOLHUB_MONGO_IMAGE'] ?? 'mongo:7'): Promise<ServerHandle> {
  // Loaded on demand: testcontainers is large, and most runs here never need it.
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  let container: Awaited<ReturnType<InstanceType<typeof MongoDBContainer>['start']>>;
  try {
    container = await new MongoDBContainer(image).start();
  } catch (err) {
    throw new Error(
      `A Docker engine seems to be there (DOCKER_HOST or /var/run/docker.sock), but the ${image} container did not start: ${err instanceof Error ? err.message : String(err)}. ` +
        'Fix Docker, or set TOOLHUB_TESTCONTAINERS=0 to use FerretDB, or MONGO_URL to a running server.',
      { cause: err },
    );
  }
  const port = container.getMappedPort(27017);
  return {
    url: container.getConnectionString(),
    port,
    pid: -1,
    output: () => `MongoDB ${image} in container ${container.getId()} (port ${port})`,
    stop: async () => void (await container.stop()),
    kill: async () => void (await container.stop({ timeout: 0 })),
  };
}
