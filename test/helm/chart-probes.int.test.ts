/**
 * The chart starts what it declares: each component chart is rendered with `helm template`, and its
 * container's command and environment (Secrets and ConfigMaps resolved, volumes mapped to scratch
 * directories, the image's /app mapped to this checkout's built JS) run as local processes against
 * local NATS, Redis and FerretDB. NATS runs with the shipped users and permissions
 * (deploy/nats/toolhub-auth.conf, passwords generated here) and each chart connects as its own user
 * (nats.auth: the password from the Secret the chart makes). Then the probes the Deployment declares
 * (native gRPC: startup, readiness, liveness) must pass, grpcurl must answer SERVING through
 * reflection on every app, an agent call goes end to end (search → info → run, counted by the
 * registry), and a scrape of /metrics after a short load must count exactly the RunTool calls made.
 *
 * Needs helm and grpcurl: `eval "$(bash scripts/k8s-tools.sh install)"` (scripts/test-all.sh does).
 */
import { connectAgent, type AgentClient } from '../e2e/support/stack';
import { freePort, mongoUrl, type NatsServerHandle, redisUrl, startNatsServer, waitFor } from '@toolhub/test-harness';
import { Metadata } from '@grpc/grpc-js';
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { healthClient } from '../../libs/ops/test/health-client';
import { agentCall } from '../deploy/support/clients';
import { type Component, COMPONENTS, NATS_USERS, render, ROOT, run, type Running, shippedNatsConfig, start, tool } from './support/chart-runner';

jest.setTimeout(240_000);

describe('the Helm chart starts what it declares', () => {
  let helm: string;
  let grpcurl: string;
  let nats: NatsServerHandle;
  const running = new Map<Component, Running>();
  let agent: AgentClient;
  // The chart's API-serving components refuse to start without auth: one agent key for this test.
  const apiKey = `chart-test-${randomUUID()}`;
  const auth = { metadata: new Metadata() };
  auth.metadata.set('x-api-key', apiKey);
  const adminKey = `chart-admin-${randomUUID()}`;
  const sha = (k: string) => createHash('sha256').update(k).digest('hex');
  const apiKeys = JSON.stringify({ keys: [{ name: 'chart-test', sha256: sha(apiKey), roles: ['agent'] }, { name: 'chart-admin', sha256: sha(adminKey), roles: ['admin'] }] });
  const natsPasswords = Object.fromEntries(['dispatcher', 'registry', 'adapter_local', 'adapter_mcp', 'adapter_cloud', 'admin'].map((u) => [u, `${u}-${randomUUID()}`]));

  beforeAll(async () => {
    helm = tool('HELM', 'helm');
    grpcurl = tool('GRPCURL', 'grpcurl');
    // The production runtime: each app's esbuild bundle, run with plain node.
    execFileSync(process.execPath, ['scripts/build-apps.mjs', ...COMPONENTS], { cwd: ROOT, stdio: 'pipe' });
    for (const c of COMPONENTS) await run(helm, ['dependency', 'build', join(ROOT, 'deploy/helm', c)]);
    nats = await startNatsServer({ config: shippedNatsConfig(natsPasswords) });
    const [mongo, redis] = await Promise.all([mongoUrl(), redisUrl()]);
    const suffix = randomUUID().slice(0, 8);
    for (const component of COMPONENTS) {
      const user = NATS_USERS[component];
      const values: Record<string, unknown> = { nats: { url: nats.url, auth: { enabled: true, user, password: natsPasswords[user] } }, ports: { health: await freePort(), metrics: await freePort() } };
      if (component === 'dispatcher' || component === 'registry') {
        Object.assign(values, { auth: { existingSecret: '', apiKeys } });
        (values['ports'] as Record<string, number>)['api'] = await freePort();
      }
      if (component === 'dispatcher') values['secret'] = { values: { REDIS_URL: redis } };
      if (component === 'registry') Object.assign(values, { secret: { values: { MONGO_URL: mongo } }, env: { TOOLHUB_MONGO_DB: `chart_${suffix}`, TOOLHUB_STATS_CONSUMER: `chart_${suffix}` } });
      running.set(component, await start(component, await render(helm, component, values)));
    }
    agent = connectAgent(`127.0.0.1:${running.get('dispatcher')!.port('grpc-api')}`);
  });

  afterAll(async () => {
    agent?.close();
    await Promise.all([...running.values()].map((r) => r.proc.kill('SIGTERM')));
    await nats?.stop();
  });

  it.each(COMPONENTS)('%s passes its declared startup, readiness and liveness probes', async (component) => {
    const r = running.get(component)!;
    const declared = ports(r);
    for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
      const probe = r.container[kind]?.grpc;
      expect({ kind, declared: probe !== undefined }).toEqual({ kind, declared: true });
      // The probe's port is one the container declares (the kubelet dials the pod IP on it).
      expect(declared).toContain(probe!.port);
      const client = healthClient(`127.0.0.1:${probe!.port}`);
      try {
        await waitFor(async () => (await client.check(probe!.service ?? '').catch(() => 'UNREACHABLE')) === 'SERVING', { timeoutMs: 120_000, intervalMs: 500 }).catch((err: Error) => {
          throw new Error(`${component} ${kind} (service "${probe!.service}") is not SERVING (${err.message}); its output:\n${r.proc.output().slice(-3000)}`);
        });
      } finally {
        client.close();
      }
    }
  });

  it('answers SERVING to grpcurl through reflection on every health port and API port', async () => {
    const targets = [...running.values()].flatMap((r) => [r.port('grpc-health'), ...(r.container.ports.some((p) => p.name === 'grpc-api') ? [r.port('grpc-api')] : [])]);
    for (const port of targets) {
      // An API port's health follows the app's readiness (polled every 250 ms), so it may trail the probe just passed.
      let answer: unknown;
      await waitFor(
        async () => {
          answer = JSON.parse((await run(grpcurl, ['-plaintext', `127.0.0.1:${port}`, 'grpc.health.v1.Health/Check'])).stdout);
          return (answer as { status?: string }).status === 'SERVING';
        },
        { timeoutMs: 15_000, intervalMs: 250 },
      ).catch(() => undefined);
      expect({ port, answer }).toEqual({ port, answer: { status: 'SERVING' } });
    }
  });

  it('connects every component to NATS as its own user, with the password from the Secret the chart makes', () => {
    for (const [component, r] of running) {
      const env = Object.fromEntries(r.container.env.map((e) => [e.name, e]));
      expect({ component, user: env['NATS_USER']?.value, password: env['NATS_PASSWORD']?.valueFrom?.secretKeyRef !== undefined, url: env['NATS_URL']?.value }).toEqual({ component, user: NATS_USERS[component], password: true, url: nats.url });
    }
  });

  it('completes an agent call end to end with the shipped NATS permissions: search → info → run, counted by the registry', async () => {
    const result = await agentCall({ dispatcher: `127.0.0.1:${running.get('dispatcher')!.port('grpc-api')}`, registry: `127.0.0.1:${running.get('registry')!.port('grpc-api')}`, agentKey: apiKey, adminKey }).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${[...running.values()].map((r) => `--- ${r.component} ---\n${r.proc.output().slice(-2000)}`).join('\n')}`);
    });
    expect(result.search.hits.map((h) => h.id)).toContain('local:math_calculate');
    expect(result.info).toEqual({ name: 'math_calculate', inputSchemaHasExpression: true });
    expect(result.run.content.map((c) => c.text ?? '').join('')).toContain('42');
    expect(Number(result.stats?.calls)).toBe(1);
  });

  it('counts the RunTool calls of a short load in the dispatcher metrics, and every app serves /metrics', async () => {
    await waitFor(async () => (await agent.listProviders({}, auth)).providers.some((p) => p.provider === 'local' && p.healthy), { timeoutMs: 60_000 });
    const scrapeBefore = await (await fetch(`http://127.0.0.1:${running.get('dispatcher')!.port('http-metrics')}/metrics`)).text();
    const ok = 12;
    const missing = 4;
    await Promise.all(Array.from({ length: ok }, (_, i) => agent.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: `${i} + 1` }, caller: 'chart-test' }, auth)));
    for (let i = 0; i < missing; i++) await agent.runTool({ provider: 'local', name: 'no_such_tool', arguments: {}, caller: 'chart-test' }, auth).catch(() => undefined);

    const scrape = async (component: Component) => (await fetch(`http://127.0.0.1:${running.get(component)!.port('http-metrics')}/metrics`)).text();
    const dispatcher = await scrape('dispatcher');
    // Calls made by this test only: the counters less what earlier tests of this file ran.
    const total = (text: string, tool: string, status: string): number =>
      [...text.matchAll(new RegExp(`^toolhub_runtool_duration_seconds_count\\{[^}]*provider="local",tool="${tool}",status="${status}"[^}]*\\} (\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
    const count = (tool: string, status: string) => total(dispatcher, tool, status) - total(scrapeBefore, tool, status);
    expect({ ok: count('math_calculate', 'ok'), notFound: count('no_such_tool', 'not_found') }).toEqual({ ok, notFound: missing });
    expect(dispatcher).toMatch(/^toolhub_provider_replicas\{provider="local",app="dispatcher"\} 1$/m);
    for (const component of COMPONENTS) expect(await scrape(component)).toMatch(new RegExp(`^process_resident_memory_bytes\\{app="${component}"\\} \\d+`, 'm'));
    expect(await scrape('adapter-local')).toMatch(/^toolhub_adapter_runs_inflight\{provider="local",app="adapter-local"\} 0$/m);
  });
});

function ports(r: Running): number[] {
  return r.container.ports.map((p) => p.containerPort);
}
