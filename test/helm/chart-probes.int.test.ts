/**
 * The chart starts what it declares: each component chart is rendered with `helm template`, and its
 * container's command and environment (Secrets and ConfigMaps resolved, volumes mapped to scratch
 * directories, the image's /app mapped to this checkout's built JS) run as local processes against
 * local NATS, Redis and FerretDB. Then the probes the Deployment declares (native gRPC: startup,
 * readiness, liveness) must pass, grpcurl must answer SERVING through reflection on every app, and a
 * scrape of /metrics after a short load must count exactly the RunTool calls made.
 *
 * Needs helm and grpcurl: `eval "$(bash scripts/k8s-tools.sh install)"` (scripts/test-all.sh does).
 */
import { connectAgent, type AgentClient } from '../e2e/support/stack';
import { freePort, mongoUrl, type NatsServerHandle, redisUrl, scratchDir, spawnProcess, type SpawnedProcess, startNatsServer, waitFor } from '@toolhub/test-harness';
import { Metadata } from '@grpc/grpc-js';
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';

import { healthClient } from '../../libs/ops/test/health-client';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const COMPONENTS = ['registry', 'dispatcher', 'adapter-local', 'adapter-mcp', 'adapter-cloud'] as const;
type Component = (typeof COMPONENTS)[number];
const run = promisify(execFile);

function tool(envName: string, file: string): string {
  const path = process.env[envName] ?? join(process.env['TOOLHUB_BIN_DIR'] ?? join(homedir(), '.cache', 'toolhub', 'bin'), file);
  if (!existsSync(path)) throw new Error(`${file} not found at ${path}: run eval "$(bash scripts/k8s-tools.sh install)" first (scripts/test-all.sh does)`);
  return path;
}

interface Probe {
  grpc?: { port: number; service?: string };
}
interface Container {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: { template: { spec: { containers: Container[]; volumes?: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string }; emptyDir?: object }> } } };
}

interface Running {
  component: Component;
  proc: SpawnedProcess;
  container: Container;
  port(name: string): number;
}

/** Renders one component chart with local endpoints and free ports (`values` as a values file). */
async function render(helm: string, component: Component, values: Record<string, unknown>): Promise<Manifest[]> {
  const file = join(scratchDir(`chart-values-${component}`), 'values.yaml');
  writeFileSync(file, stringify(values));
  const args = ['template', component, join(ROOT, 'deploy/helm', component), '--kube-version', '1.33.0', '-f', file];
  const { stdout } = await run(helm, args, { maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** The container as a local process: env resolved, volumes mapped, /app → this checkout. */
async function start(component: Component, manifests: Manifest[]): Promise<Running> {
  const deployment = manifests.find((m) => m.kind === 'Deployment')!;
  const pod = deployment.spec!.template.spec;
  const container = pod.containers[0]!;
  const byName = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
  const paths: Array<[string, string]> = [['/app/', `${ROOT}/`]];
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    const dir = scratchDir(`chart-${component}-${mount.name}`);
    // Config files name paths in the image (/app/...): the same files are in this checkout.
    if (volume?.configMap) for (const [file, content] of Object.entries(byName('ConfigMap', volume.configMap.name)?.data ?? {})) writeFileSync(join(dir, file), content.replaceAll(' /app/', ` ${ROOT}/`));
    if (volume?.secret) for (const [file, content] of Object.entries(byName('Secret', volume.secret.secretName)?.stringData ?? {})) writeFileSync(join(dir, file), content);
    paths.unshift([mount.mountPath, dir]);
  }
  const local = (value: string) => {
    for (const [from, to] of paths) if (value === from || value.startsWith(from.endsWith('/') ? from : `${from}/`)) return to + value.slice(from.length);
    return value;
  };
  const env: Record<string, string> = {};
  for (const e of container.env) {
    const ref = e.valueFrom?.secretKeyRef ?? e.valueFrom?.configMapKeyRef;
    const value = ref ? (byName(e.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap', ref.name)?.[e.valueFrom?.secretKeyRef ? 'stringData' : 'data']?.[ref.key] ?? '') : (e.value ?? '');
    env[e.name] = local(value);
  }
  if (env['HOME']) mkdirSync(env['HOME'], { recursive: true });
  if (env['TOOLHUB_OUTBOX_DIR']) mkdirSync(env['TOOLHUB_OUTBOX_DIR'], { recursive: true });
  // The image runs `node dist/main.js` in /app, where dist/ holds this app's bundle.
  const [cmd, ...args] = container.command.map((c) => (c === 'dist/main.js' ? `dist/apps/${component}/main.js` : c));
  const proc = await spawnProcess(cmd === 'node' ? process.execPath : cmd!, args, { cwd: ROOT, env });
  return { component, proc, container, port: (name) => container.ports.find((p) => p.name === name)!.containerPort };
}

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
  const apiKeys = JSON.stringify({ keys: [{ name: 'chart-test', sha256: createHash('sha256').update(apiKey).digest('hex'), roles: ['agent'] }] });

  beforeAll(async () => {
    helm = tool('HELM', 'helm');
    grpcurl = tool('GRPCURL', 'grpcurl');
    // The production runtime: each app's esbuild bundle, run with plain node.
    execFileSync(process.execPath, ['scripts/build-apps.mjs', ...COMPONENTS], { cwd: ROOT, stdio: 'pipe' });
    for (const c of COMPONENTS) await run(helm, ['dependency', 'build', join(ROOT, 'deploy/helm', c)]);
    nats = await startNatsServer();
    const [mongo, redis] = await Promise.all([mongoUrl(), redisUrl()]);
    const suffix = randomUUID().slice(0, 8);
    for (const component of COMPONENTS) {
      const values: Record<string, unknown> = { nats: { url: nats.url }, ports: { health: await freePort(), metrics: await freePort() } };
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
      const { stdout } = await run(grpcurl, ['-plaintext', `127.0.0.1:${port}`, 'grpc.health.v1.Health/Check']);
      expect({ port, answer: JSON.parse(stdout) }).toEqual({ port, answer: { status: 'SERVING' } });
    }
  });

  it('counts the RunTool calls of a short load in the dispatcher metrics, and every app serves /metrics', async () => {
    await waitFor(async () => (await agent.listProviders({}, auth)).providers.some((p) => p.provider === 'local' && p.healthy), { timeoutMs: 60_000 });
    const ok = 12;
    const missing = 4;
    await Promise.all(Array.from({ length: ok }, (_, i) => agent.runTool({ provider: 'local', name: 'math_calculate', arguments: { expression: `${i} + 1` }, caller: 'chart-test' }, auth)));
    for (let i = 0; i < missing; i++) await agent.runTool({ provider: 'local', name: 'no_such_tool', arguments: {}, caller: 'chart-test' }, auth).catch(() => undefined);

    const scrape = async (component: Component) => (await fetch(`http://127.0.0.1:${running.get(component)!.port('http-metrics')}/metrics`)).text();
    const dispatcher = await scrape('dispatcher');
    const count = (tool: string, status: string) =>
      [...dispatcher.matchAll(new RegExp(`^toolhub_runtool_duration_seconds_count\\{[^}]*provider="local",tool="${tool}",status="${status}"[^}]*\\} (\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
    expect({ ok: count('math_calculate', 'ok'), notFound: count('no_such_tool', 'not_found') }).toEqual({ ok, notFound: missing });
    expect(dispatcher).toMatch(/^toolhub_provider_replicas\{provider="local",app="dispatcher"\} 1$/m);
    for (const component of COMPONENTS) expect(await scrape(component)).toMatch(new RegExp(`^process_resident_memory_bytes\\{app="${component}"\\} \\d+`, 'm'));
    expect(await scrape('adapter-local')).toMatch(/^toolhub_adapter_runs_inflight\{provider="local",app="adapter-local"\} 0$/m);
  });
});

function ports(r: Running): number[] {
  return r.container.ports.map((p) => p.containerPort);
}
