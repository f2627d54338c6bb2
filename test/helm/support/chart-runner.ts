/**
 * Runs what a component chart renders as a local process: `helm template` with given values, then
 * the Deployment's container command and environment (Secrets and ConfigMaps resolved, volumes
 * mapped to scratch directories, the image's /app mapped to this checkout's built JS).
 * Shared by the chart probe test and the rolling-restart test.
 */
import { scratchDir, spawnProcess, type SpawnedProcess } from '@toolhub/test-harness';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';

export const ROOT = join(__dirname, '..', '..', '..');
export const COMPONENTS = ['registry', 'dispatcher', 'adapter-local', 'adapter-mcp', 'adapter-cloud'] as const;
export type Component = (typeof COMPONENTS)[number];
export const run = promisify(execFile);
/** Each component's NATS user in deploy/nats/toolhub-auth.conf (the charts' nats.auth.user defaults). */
export const NATS_USERS: Record<Component, string> = { registry: 'registry', dispatcher: 'dispatcher', 'adapter-local': 'adapter_local', 'adapter-mcp': 'adapter_mcp', 'adapter-cloud': 'adapter_cloud' };

/** The shipped NATS configuration with a fresh password per user (it reads them from the environment). */
export function shippedNatsConfig(passwords: Record<string, string>): string {
  return readFileSync(join(ROOT, 'deploy/nats/toolhub-auth.conf'), 'utf8').replace(/\$NATS_([A-Z_]+)_PASSWORD/g, (_m, user: string) => JSON.stringify(passwords[user.toLowerCase()] ?? ''));
}

export function tool(envName: string, file: string): string {
  const path = process.env[envName] ?? join(process.env['TOOLHUB_BIN_DIR'] ?? join(homedir(), '.cache', 'toolhub', 'bin'), file);
  if (!existsSync(path)) throw new Error(`${file} not found at ${path}: run eval "$(bash scripts/k8s-tools.sh install)" first (scripts/test-all.sh does)`);
  return path;
}

export interface Probe {
  grpc?: { port: number; service?: string };
}
export interface Container {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
export interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: { template: { spec: { containers: Container[]; volumes?: Array<{ name: string; configMap?: { name: string }; secret?: { secretName: string }; emptyDir?: object }> } } };
}

export interface Running {
  component: Component;
  proc: SpawnedProcess;
  container: Container;
  port(name: string): number;
}

/** Renders one component chart with local endpoints and free ports (`values` as a values file). */
export async function render(helm: string, component: Component, values: Record<string, unknown>): Promise<Manifest[]> {
  const file = join(scratchDir(`chart-values-${component}-${Math.random().toString(36).slice(2, 8)}`), 'values.yaml');
  writeFileSync(file, stringify(values));
  const args = ['template', component, join(ROOT, 'deploy/helm', component), '--kube-version', '1.33.0', '-f', file];
  const { stdout } = await run(helm, args, { maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

/** The container as a local process: env resolved, volumes mapped, /app → this checkout. */
export async function start(component: Component, manifests: Manifest[]): Promise<Running> {
  const deployment = manifests.find((m) => m.kind === 'Deployment')!;
  const pod = deployment.spec!.template.spec;
  const container = pod.containers[0]!;
  const byName = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
  const paths: Array<[string, string]> = [['/app/', `${ROOT}/`]];
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    const dir = scratchDir(`chart-${component}-${mount.name}-${Math.random().toString(36).slice(2, 8)}`);
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

