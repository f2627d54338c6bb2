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
});
