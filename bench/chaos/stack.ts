/**
 * The multi-process deployment the chaos scenarios break: nats-server, Redis, FerretDB (or
 * MONGO_URL), the registry, two adapter-local replicas, adapter-mcp with a stdio MCP server from
 * npm, and one dispatcher with an on-disk event outbox. Every part is its own process and can be
 * killed (SIGKILL), frozen (SIGSTOP/SIGCONT) and started again on the same port and state.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { type GetRegistryStatusResponse, type GetStatusResponse, RegistryAdminClient, ToolHubClient } from '@toolhub/contracts';
import {
  childrenOf,
  freePort,
  mongoUrl,
  type NatsServerHandle,
  scratchDir,
  type ServerHandle,
  spawnProcess,
  type SpawnedProcess,
  startNatsServer,
  startRedisServer,
  repoRoot,
  waitFor,
} from '@toolhub/test-harness';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { adminClient, type AdminClient } from '../../test/e2e/support/stack';

const ROOT = repoRoot(__dirname);

/** Options of {@link startChaosStack}. */
export interface ChaosStackOptions {
  /** Run `dist/apps/<app>/main.js` where built (`node scripts/build.mjs apps/<app> src/main.ts`) instead of the TypeScript. */
  built?: boolean;
  /** Start adapter-mcp (with @modelcontextprotocol/server-everything over stdio). @default true */
  mcp?: boolean;
  /** Extra environment of the dispatcher. */
  dispatcherEnv?: Record<string, string>;
}

/** A restartable app process. */
export interface AppHandle {
  readonly name: string;
  proc: SpawnedProcess;
  kill(): Promise<void>;
  start(): Promise<void>;
  freeze(): void;
  thaw(): void;
}

export interface ChaosStack {
  nats: NatsServerHandle;
  redis: ServerHandle & { restart(): Promise<void> };
  mongo: { url: string; pid: number };
  registry: AppHandle;
  adapters: [AppHandle, AppHandle];
  mcp: AppHandle | undefined;
  dispatcher: AppHandle;
  dispatcherAddress: string;
  admin: AdminClient;
  client: ToolHubClient;
  status(): Promise<GetStatusResponse>;
  registryStatus(): Promise<GetRegistryStatusResponse>;
  /** Every app's output so far, for a post-mortem. */
  logs(): Record<string, string>;
  close(): Promise<void>;
}

function entry(app: string, built: boolean): string[] {
  const js = join(ROOT, 'dist/apps', app, 'main.js');
  return built && existsSync(js) ? [js] : ['--import', 'tsx', join(ROOT, 'apps', app, 'src/main.ts')];
}

async function app(name: string, app: string, env: Record<string, string>, ready: RegExp, built: boolean): Promise<AppHandle> {
  const launch = () => spawnProcess(process.execPath, entry(app, built), { cwd: ROOT, env: { LOG_LEVEL: 'info', ...env }, readyPattern: ready, timeoutMs: 90_000 });
  const handle: AppHandle = {
    name,
    proc: await launch(),
    kill: async () => void (await handle.proc.kill('SIGKILL')),
    start: async () => void (handle.proc = await launch()),
    freeze: () => process.kill(handle.proc.pid, 'SIGSTOP'),
    thaw: () => process.kill(handle.proc.pid, 'SIGCONT'),
  };
  return handle;
}

export async function startChaosStack(options: ChaosStackOptions = {}): Promise<ChaosStack> {
  const built = options.built ?? false;
  const nats = await startNatsServer();
  let redisHandle = await startRedisServer();
  const redisPort = redisHandle.port;
  const redis = Object.assign(Object.create(null) as ServerHandle & { restart(): Promise<void> }, {
    get url() {
      return redisHandle.url;
    },
    get port() {
      return redisPort;
    },
    get pid() {
      return redisHandle.pid;
    },
    output: () => redisHandle.output(),
    stop: () => redisHandle.stop(),
    kill: () => redisHandle.kill(),
    restart: async () => void (redisHandle = await startRedisServer({ port: redisPort })),
  });
  const mongo = await mongoUrl();
  const mongoPid = Number(process.env['CHAOS_MONGO_PID'] ?? 0) || findFerretPid(mongo);
  const root = scratchDir('chaos-root');
  writeFileSync(join(root, 'notes.txt'), 'chaos\n');
  const adminPort = await freePort();
  const grpcPort = await freePort();
  const outbox = scratchDir('chaos-outbox');
  const run = Date.now().toString(36);
  const registry = await app(
    'registry',
    'registry',
    { NATS_URL: nats.url, MONGO_URL: mongo, TOOLHUB_MONGO_DB: `chaos_${run}`, TOOLHUB_ADMIN_PORT: String(adminPort), TOOLHUB_STATS_CONSUMER: `chaos_${run}` },
    /registry ready/,
    built,
  );
  // Replicas heartbeat every second and dispatchers forget one after 3 s of silence: the probe,
  // not the TTL, is what makes a dead replica's calls fail fast, so production-like values are fine.
  const adapterEnv = { NATS_URL: nats.url, TOOLHUB_LOCAL_ROOT: root, TOOLHUB_HEARTBEAT_INTERVAL: '1s' };
  const adapters = (await Promise.all([
    app('adapter-local#1', 'adapter-local', adapterEnv, /adapter-local ready/, built),
    app('adapter-local#2', 'adapter-local', adapterEnv, /adapter-local ready/, built),
  ])) as [AppHandle, AppHandle];
  let mcp: AppHandle | undefined;
  if (options.mcp ?? true) {
    const configFile = join(scratchDir('chaos-mcp'), 'mcp.yaml');
    writeFileSync(
      configFile,
      [
        'provider: mcp',
        'defaults: { timeout: 30s, connectTimeout: 30s, connect: eager }',
        'servers:',
        '  - { alias: everything, transport: stdio, package: "@modelcontextprotocol/server-everything", args: [stdio], mount: demo/everything, exclude: [toggle-simulated-logging, toggle-subscriber-updates] }',
        '',
      ].join('\n'),
    );
    mcp = await app('adapter-mcp', 'adapter-mcp', { NATS_URL: nats.url, TOOLHUB_MCP_CONFIG: configFile }, /adapter-mcp ready/, built);
  }
  const dispatcher = await app(
    'dispatcher',
    'dispatcher',
    { NATS_URL: nats.url, REDIS_URL: redis.url, TOOLHUB_GRPC_PORT: String(grpcPort), TOOLHUB_OUTBOX_DIR: outbox, TOOLHUB_PROVIDER_TTL: '3s', ...options.dispatcherEnv },
    /dispatcher listening/,
    built,
  );
  const dispatcherAddress = `127.0.0.1:${grpcPort}`;
  const client = new ToolHubClient(dispatcherAddress, credentials.createInsecure());
  const admin = adminClient(`127.0.0.1:${adminPort}`);
  const adminRaw = new RegistryAdminClient(`127.0.0.1:${adminPort}`, credentials.createInsecure());
  const registryStatus = () =>
    new Promise<GetRegistryStatusResponse>((resolve, reject) => adminRaw.getRegistryStatus({}, new Metadata(), { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res))));
  const status = () =>
    new Promise<GetStatusResponse>((resolve, reject) => client.getStatus({}, new Metadata(), { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res))));
  await waitFor(
    async () => {
      const s = await status().catch(() => undefined);
      const live = new Set(s?.providers.map((p) => `${p.provider}:${p.replicas}`) ?? []);
      return live.has('local:2') && (!mcp || [...live].some((p) => p.startsWith('mcp:')));
    },
    { timeoutMs: 60_000, intervalMs: 200, message: 'both adapter-local replicas (and adapter-mcp) to be seen by the dispatcher' },
  );
  return {
    nats,
    redis,
    mongo: { url: mongo, pid: mongoPid },
    registry,
    adapters,
    mcp,
    dispatcher,
    dispatcherAddress,
    admin,
    client,
    status,
    registryStatus,
    logs: () => Object.fromEntries([dispatcher, mcp, ...adapters, registry].filter((h) => h !== undefined).map((h) => [h.name, h.proc.output()])),
    async close() {
      client.close();
      admin.close();
      adminRaw.close();
      for (const h of [dispatcher, mcp, ...adapters, registry]) {
        if (!h) continue;
        try {
          h.thaw();
        } catch {
          // already gone
        }
        await h.proc.kill('SIGTERM');
      }
      await redis.stop().catch(() => undefined);
      await nats.dispose();
    },
  };
}

/** The FerretDB process the harness started for `url` (0 when MONGO_URL names an outside server). */
function findFerretPid(url: string): number {
  const port = new URL(url).port;
  const row = childrenOf(process.pid).find((c) => /ferretdb/.test(c.args) && c.args.includes(`:${port}`));
  return row?.pid ?? 0;
}
