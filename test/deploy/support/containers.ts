/**
 * Container images and compose for the deployment tests: builds every image offline with
 * scripts/images.sh (base from Debian packages + Node 24 from npm, cached per machine), and runs
 * docker-compose.yml with deploy/compose/offline.yml through `docker compose` or podman-compose.
 */
import { execFile, type ExecFileOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = join(__dirname, '..', '..', '..');

/** What scripts/images.sh exported. */
export interface ImageEnv {
  CONTAINER_ENGINE: 'docker' | 'podman';
  COMPOSE: string;
  BASE_IMAGE: string;
  TOOLHUB_INFRA_IMAGE: string;
  TOOLHUB_IMAGE_TAG: string;
  CONTAINERS_CONF?: string;
}

function parseExports(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) out[m[1]!] = m[2]!.replace(/^'(.*)'$/, '$1');
  return out;
}

/** Runs scripts/images.sh (`all` by default); throws with its output when it fails. */
export async function buildImages(what = 'all'): Promise<ImageEnv> {
  try {
    const { stdout } = await run('bash', ['scripts/images.sh', what], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: process.env });
    return parseExports(stdout) as unknown as ImageEnv;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`scripts/images.sh ${what} failed: ${e.message}\n${(e.stderr ?? '').slice(-6000)}`);
  }
}

export function engineEnv(images: ImageEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...images, ...extra };
}

/** `podman …` or `docker …` with the images' settings (containers.conf). */
export async function engine(images: ImageEnv, args: string[], options: ExecFileOptions = {}): Promise<string> {
  const { stdout } = await run(images.CONTAINER_ENGINE, args, { cwd: ROOT, env: engineEnv(images), maxBuffer: 16 * 1024 * 1024, ...options });
  return String(stdout);
}

/** A compose project of docker-compose.yml + deploy/compose/offline.yml under a unique name. */
export class ComposeProject {
  readonly name = `toolhub-t${randomUUID().slice(0, 8)}`;
  constructor(
    private readonly images: ImageEnv,
    private readonly env: Record<string, string>,
  ) {}

  private async compose(args: string[], timeout = 600_000): Promise<string> {
    const [cmd, ...pre] = this.images.COMPOSE.split(' ');
    const files = ['-f', 'docker-compose.yml', '-f', 'deploy/compose/offline.yml'];
    const argv = [...pre, '-p', this.name, ...files, ...args];
    try {
      const { stdout, stderr } = await run(cmd!, argv, { cwd: ROOT, env: engineEnv(this.images, this.env), maxBuffer: 64 * 1024 * 1024, timeout });
      return `${String(stdout)}${String(stderr)}`;
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${this.images.COMPOSE} ${args.join(' ')} failed: ${e.message}\n${String(e.stdout ?? '').slice(-3000)}\n${String(e.stderr ?? '').slice(-3000)}`);
    }
  }

  up(): Promise<string> {
    return this.compose(['up', '-d']);
  }

  async down(): Promise<void> {
    await this.compose(['down', '-v', '-t', '20']).catch(() => undefined);
  }

  /** The container of `service` (compose names it <project>_<service>_1 or <project>-<service>-1). */
  async container(service: string): Promise<string> {
    const names = (await engine(this.images, ['ps', '-a', '--format', '{{.Names}}'])).split('\n');
    const found = names.find((n) => n === `${this.name}_${service}_1` || n === `${this.name}-${service}-1`);
    if (!found) throw new Error(`no container for service ${service} of ${this.name} (have: ${names.filter((n) => n.startsWith(this.name)).join(', ')})`);
    return found;
  }

  /**
   * Whether the container's HEALTHCHECK (the image's) passes now. podman runs health checks from
   * systemd timers, which a CI container has not: there the check is run on demand
   * (`podman healthcheck run`, the same command); docker runs them itself.
   */
  async healthy(service: string): Promise<boolean> {
    const ctr = await this.container(service);
    if (this.images.CONTAINER_ENGINE === 'podman') {
      return engine(this.images, ['healthcheck', 'run', ctr], { timeout: 30_000 }).then(
        () => true,
        () => false,
      );
    }
    return (await engine(this.images, ['inspect', '--format', '{{.State.Health.Status}}', ctr])).trim() === 'healthy';
  }

  async inspect(service: string): Promise<ContainerInspect> {
    return (JSON.parse(await engine(this.images, ['inspect', await this.container(service)])) as ContainerInspect[])[0]!;
  }

  exec(service: string, command: string[]): Promise<string> {
    return this.container(service).then((c) => engine(this.images, ['exec', c, ...command], { timeout: 30_000 }));
  }

  /** The last lines each service logged, for a failure message. */
  async logs(services: readonly string[], lines = 40): Promise<string> {
    const parts: string[] = [];
    for (const s of services) {
      const c = await this.container(s).catch(() => '');
      if (!c) continue;
      const out = await run(this.images.CONTAINER_ENGINE, ['logs', '--tail', String(lines), c], { env: engineEnv(this.images), maxBuffer: 16 * 1024 * 1024 }).then(
        (r) => `${String(r.stdout)}${String(r.stderr)}`,
        (e: Error) => e.message,
      );
      parts.push(`--- ${s} ---\n${out}`);
    }
    return parts.join('\n');
  }
}

export interface ContainerInspect {
  Config: { User: string; Healthcheck?: { Test?: string[] }; Image: string };
  HostConfig: { ReadonlyRootfs: boolean };
  State: { Running: boolean };
}
