/**
 * docker-compose.yml stays consistent with the apps: every app has a service built from the
 * Dockerfile with APP=<app>, every variable an app's config reads is set, and nothing set is unread.
 */
import { type ConfigDefinition, isConfigDefinition } from '@toolhub/config';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..');
/** The one-process mode is not a compose service: compose runs each part on its own. */
const NOT_SERVICES = new Set(['toolhub']);

interface Service {
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }> | string[];
}

const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const apps = readdirSync(join(ROOT, 'apps')).filter((a) => !NOT_SERVICES.has(a));

function appConfig(app: string): ConfigDefinition<never> | undefined {
  const file = join(ROOT, 'apps', app, 'src', 'config.ts');
  if (!existsSync(file)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(file) as Record<string, unknown>;
  return Object.values(mod).find(isConfigDefinition) as ConfigDefinition<never> | undefined;
}

describe('docker-compose.yml', () => {
  it('has infrastructure services for NATS, MongoDB and Redis', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['nats', 'mongo', 'redis']));
  });

  it.each(apps)('has a service for app %s built from the Dockerfile with APP=%s', (app) => {
    const service = compose.services[app];
    expect(service).toBeDefined();
    expect(service?.build?.args?.['APP']).toBe(app);
    expect(existsSync(join(ROOT, service?.build?.dockerfile ?? 'Dockerfile'))).toBe(true);
    expect(existsSync(join(ROOT, 'apps', app, 'src', 'main.ts'))).toBe(true);
  });

  it.each(apps)('sets every variable app %s reads, and none it does not', (app) => {
    const config = appConfig(app);
    const read = new Set((config?.vars ?? []).map((v) => v.env));
    const set = new Set(Object.keys(compose.services[app]?.environment ?? {}));
    expect([...read].filter((v) => !set.has(v))).toEqual([]);
    expect([...set].filter((v) => !read.has(v))).toEqual([]);
  });

  it.each(['nats', 'mongo', 'redis'])('gives infrastructure service %s a health check', (name) => {
    expect(compose.services[name]?.healthcheck?.test?.length).toBeGreaterThan(0);
  });

  it.each(apps)('starts app %s only after what it depends on is healthy', (app) => {
    const deps = compose.services[app]?.depends_on;
    expect(deps).toBeDefined();
    expect(Array.isArray(deps)).toBe(false);
    for (const [name, dep] of Object.entries(deps as Record<string, { condition?: string }>)) {
      expect({ name, condition: dep.condition }).toEqual({ name, condition: 'service_healthy' });
      // Every service waited on can become healthy: infrastructure has a check, apps have the image's.
      expect(compose.services[name]?.healthcheck !== undefined || apps.includes(name)).toBe(true);
    }
  });

  it.each(apps)('serves the health and metrics ports of app %s on all interfaces, as the image checks them', (app) => {
    const env = compose.services[app]?.environment ?? {};
    // 0.0.0.0 needs the explicit opt-in, or the apps refuse to start (the ops endpoints have no auth).
    expect({ host: env['TOOLHUB_OPS_HOST'], public: env['TOOLHUB_OPS_PUBLIC'], health: env['TOOLHUB_HEALTH_PORT'], metrics: env['TOOLHUB_METRICS_PORT'] }).toEqual({ host: '0.0.0.0', public: 'true', health: '9090', metrics: '9091' });
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('builds in one stage and runs from another', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(runtime).toMatch(/COPY --from=build/);
  });

  it('runs the bundle with plain node as a non-root user, never tsx', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^CMD \["node", .*"dist\/main\.js"\]$/m);
    expect(dockerfile).not.toMatch(/\btsx\b/);
  });

  it('opts into the public ops host it sets (the apps refuse 0.0.0.0 without TOOLHUB_OPS_PUBLIC)', () => {
    expect(runtime).toMatch(/TOOLHUB_OPS_HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/TOOLHUB_OPS_PUBLIC=true/);
  });

  it('declares a HEALTHCHECK against the readiness endpoint on the metrics port it sets', () => {
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/readyz/m);
    expect(runtime).toMatch(/TOOLHUB_METRICS_PORT=9091/);
  });
});

