/**
 * scripts/services.sh keeps one state directory per instance, derived from its ports: two sets of
 * services on one machine (other ports) run side by side, and `status` reports each on its own.
 */
import { NatsBus } from '@toolhub/bus';
import { freePort } from '@toolhub/test-harness';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

jest.setTimeout(180_000);

const run = promisify(execFile);
const SCRIPT = join(__dirname, '..', 'scripts', 'services.sh');

interface Instance {
  env: NodeJS.ProcessEnv;
  dir: string;
}

async function instance(): Promise<Instance> {
  const [nats, redis, mongo, embeddings] = [await freePort(), await freePort(), await freePort(), await freePort()];
  // No TOOLHUB_SERVICES_DIR: the default must already separate instances. No embeddings server (optional, slow).
  const env: NodeJS.ProcessEnv = { ...process.env, NATS_PORT: String(nats), REDIS_PORT: String(redis), MONGO_PORT: String(mongo), EMBEDDINGS_PORT: String(embeddings), TOOLHUB_EMBEDDINGS: '0' };
  delete env['TOOLHUB_SERVICES_DIR'];
  return { env, dir: `/tmp/toolhub-services/${nats}-${redis}-${mongo}-${embeddings}` };
}

const services = (i: Instance, command: string) => run('bash', [SCRIPT, command], { env: i.env });
const status = (i: Instance) => services(i, 'status').then(
  (r) => ({ code: 0, stdout: r.stdout }),
  (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
);

describe('scripts/services.sh with two instances on one machine', () => {
  let a: Instance;
  let b: Instance;

  beforeAll(async () => {
    a = await instance();
    b = await instance();
  });

  afterAll(async () => {
    for (const i of [a, b]) await services(i, 'reset').catch(() => undefined);
  });

  it('starts both, each with its own state directory, and status reports each up', async () => {
    const upA = await services(a, 'up');
    const upB = await services(b, 'up');
    expect(upA.stdout).toContain(`NATS_URL=nats://127.0.0.1:${a.env['NATS_PORT']}`);
    expect(upB.stdout).toContain(`NATS_URL=nats://127.0.0.1:${b.env['NATS_PORT']}`);
    for (const i of [a, b]) {
      const s = await status(i);
      expect(s.code).toBe(0);
      expect(s.stdout).toContain(`state: ${i.dir}`);
      expect(s.stdout).toMatch(new RegExp(`^nats: up \\(pid \\d+, nats://127.0.0.1:${i.env['NATS_PORT']}\\)$`, 'm'));
      expect(s.stdout).toMatch(/^redis: up \(pid \d+/m);
      expect(s.stdout).toMatch(/^mongo: up \(pid \d+/m);
    }
  });

  it('starts NATS with authentication by default: no credentials are refused, the printed admin user connects', async () => {
    const up = await services(a, 'up'); // already up: prints the same environment again
    const user = /NATS_USER=(\S+)/.exec(up.stdout)?.[1];
    const password = /NATS_PASSWORD=(\S+)/.exec(up.stdout)?.[1];
    expect(user).toBe('admin');
    expect(password).toMatch(/^p[0-9a-f]{48}$/); // a leading letter: nats-server parses variables as config
    const servers = `nats://127.0.0.1:${a.env['NATS_PORT']}`;
    await expect(NatsBus.connect({ servers, name: 'no-credentials', credentials: null, maxReconnectAttempts: 0 })).rejects.toThrow(/requires credentials.*NATS_USER and NATS_PASSWORD/);
    const bus = await NatsBus.connect({ servers, name: 'admin', credentials: { user: user!, password: password! } });
    await bus.close();
  });

  it('stops one instance without touching the other', async () => {
    await services(a, 'down');
    expect((await status(a)).code).toBe(3);
    expect((await status(a)).stdout).toMatch(/^nats: down$/m);
    const other = await status(b);
    expect(other.code).toBe(0);
    expect(other.stdout).toMatch(/^nats: up \(pid \d+/m);
  });
});
