/**
 * The documented compose deployment, run for real: every image built offline (scripts/images.sh:
 * a base from Debian packages with Node 24 from the npm registry; podman, or docker where an engine
 * answers), docker-compose.yml + deploy/compose/offline.yml started with podman-compose (or
 * `docker compose`), NATS with the shipped per-service users and permissions
 * (deploy/nats/toolhub-auth.conf, the compose file's passwords), the apps non-root on read-only
 * root filesystems, and an agent call end to end through the published ports: search → info → run,
 * then the registry counts the call.
 */
import { connect } from '@nats-io/transport-node';
import { RunStatus } from '@toolhub/contracts';
import { freePort, waitFor } from '@toolhub/test-harness';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { agentCall, DEV_ADMIN_KEY, DEV_AGENT_KEY } from './support/clients';
import { buildImages, ComposeProject, type ImageEnv, ROOT } from './support/containers';

jest.setTimeout(20 * 60_000);

const APPS = ['registry', 'dispatcher', 'adapter-local', 'adapter-mcp', 'adapter-cloud'] as const;
const INFRA = ['nats', 'mongo', 'redis'] as const;

describe('the compose stack, built offline and run with podman (or docker)', () => {
  let images: ImageEnv;
  let project: ComposeProject;
  const ports = { nats: 0, dispatcher: 0, registry: 0, mcp: 0, console: 0 };
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    let t = Date.now();
    images = await buildImages('all');
    timings['images_s'] = (Date.now() - t) / 1000;
    Object.assign(ports, { nats: await freePort(), dispatcher: await freePort(), registry: await freePort(), mcp: await freePort(), console: await freePort() });
    project = new ComposeProject(images, {
      TOOLHUB_NATS_PUBLISH_PORT: String(ports.nats),
      TOOLHUB_DISPATCHER_PUBLISH_PORT: String(ports.dispatcher),
      TOOLHUB_REGISTRY_PUBLISH_PORT: String(ports.registry),
      TOOLHUB_MCP_PUBLISH_PORT: String(ports.mcp),
      TOOLHUB_CONSOLE_PUBLISH_PORT: String(ports.console),
    });
    t = Date.now();
    await project.up();
    timings['up_s'] = (Date.now() - t) / 1000;
  });

  afterAll(async () => {
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    writeFileSync(join(ROOT, 'tmp', 'compose-stack-timings.json'), JSON.stringify({ engine: images?.CONTAINER_ENGINE, ...timings }, null, 2));
    await project?.down();
  });

  const withLogs = async <T>(what: () => Promise<T>): Promise<T> => {
    try {
      return await what();
    } catch (err) {
      throw new Error(`${(err as Error).message}\n${await project.logs([...INFRA, ...APPS])}`, { cause: err });
    }
  };

  it.each(APPS)('%s runs as a non-root user on a read-only root filesystem, with the image HEALTHCHECK on /readyz', async (app) => {
    const c = await project.inspect(app);
    expect({ app, user: c.Config.User, readOnly: c.HostConfig.ReadonlyRootfs, healthcheck: (c.Config.Healthcheck?.Test ?? []).join(' ').includes('/readyz') }).toEqual({ app, user: 'node', readOnly: true, healthcheck: true });
    expect((await project.exec(app, ['id', '-u'])).trim()).toBe('1000');
    const write = await project.exec(app, ['sh', '-c', 'touch /app/written 2>&1 && echo WROTE || echo REFUSED']);
    expect(write.trim().split('\n').pop()).toBe('REFUSED');
  });

  it('every app becomes healthy by its image HEALTHCHECK (the dispatcher only once the registry answers it over NATS)', async () => {
    const t = Date.now();
    await withLogs(() =>
      waitFor(async () => (await Promise.all(APPS.map((a) => project.healthy(a)))).every(Boolean), { timeoutMs: 300_000, intervalMs: 2000, message: 'every app container to pass its HEALTHCHECK' }),
    );
    timings['healthy_s'] = (Date.now() - t) / 1000;
  });

  it('NATS refuses a client without credentials (the shipped per-service users are in force)', async () => {
    const refused = await connect({ servers: `127.0.0.1:${ports.nats}`, reconnect: false, timeout: 5000 }).then(
      async (nc) => {
        await nc.close();
        return 'CONNECTED';
      },
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/authorization/i);
  });

  it('completes an agent call end to end: search → info → run, counted by the registry', async () => {
    const t = Date.now();
    const result = await withLogs(() => agentCall({ dispatcher: `127.0.0.1:${ports.dispatcher}`, registry: `127.0.0.1:${ports.registry}`, agentKey: DEV_AGENT_KEY, adminKey: DEV_ADMIN_KEY }));
    timings['agent_call_s'] = (Date.now() - t) / 1000;
    expect(result.search.hits.map((h) => h.id)).toContain('local:math_calculate');
    expect(result.info).toEqual({ name: 'math_calculate', inputSchemaHasExpression: true });
    expect({ status: result.run.status, text: result.run.content.map((c) => c.text ?? '').join('') }).toEqual({ status: RunStatus.RUN_STATUS_OK, text: expect.stringContaining('42') });
    expect(Number(result.stats?.calls)).toBe(1);
  });
});
