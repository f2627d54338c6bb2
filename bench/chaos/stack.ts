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
  isAlive,
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
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { adminClient, type AdminClient } from '../../test/e2e/support/stack';

import { type OutboxDisk, outboxDisk } from './outbox-disk';

const ROOT = repoRoot(__dirname);

/** Options of {@link startChaosStack}. */
export interface ChaosStackOptions {
  /** Run `dist/apps/<app>/main.js` (`node scripts/build-apps.mjs`; an error when missing) instead of the TypeScript under tsx. @default false */
  built?: boolean;
  /** Start adapter-mcp (with @modelcontextprotocol/server-everything over stdio). @default true */
  mcp?: boolean;
  /** Extra environment of the dispatcher. */
  dispatcherEnv?: Record<string, string>;
  /**
   * Node.js flags of the dispatcher process, before its entry point, e.g. `--cpu-prof`.
   * @default CHAOS_DISPATCHER_NODE_ARGS (space-separated), plus `--cpu-prof --cpu-prof-dir=<dir>` when CHAOS_PROFILE=<dir>
   */
  dispatcherNodeArgs?: string[];
}

/** {@link ChaosStackOptions.dispatcherNodeArgs} from the environment. */
function dispatcherNodeArgsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const args = (env['CHAOS_DISPATCHER_NODE_ARGS'] ?? '').split(/\s+/).filter(Boolean);
  // A V8 CPU profile of the dispatcher's whole life, written when it stops (open it in Chrome DevTools).
  if (env['CHAOS_PROFILE']) args.push('--cpu-prof', `--cpu-prof-dir=${resolve(env['CHAOS_PROFILE'])}`);
  return args;
}

/** A restartable app process. */
export interface AppHandle {
  readonly name: string;
  proc: SpawnedProcess;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Starts it again, ready when its output matches `ready` instead of its usual ready line. */
  startUntil(ready: RegExp): Promise<void>;
  freeze(): void;
  thaw(): void;
}

/** The registry's database (FerretDB): its pid changes when it is restarted. */
export interface DatabaseHandle {
  readonly url: string;
  /** 0 when MONGO_URL names a server this run did not start (then it cannot be killed). */
  readonly pid: number;
  /** SIGKILL of FerretDB, as in a crash; its PostgreSQL (which holds the data) stays up. */
  kill(): Promise<void>;
  /** Starts FerretDB again with the same command line (same port and storage); resolves once it listens. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface ChaosStack {
  nats: NatsServerHandle;
  redis: ServerHandle & { restart(): Promise<void> };
  mongo: DatabaseHandle;
  /** The registry's database on `mongo`. */
  registryDatabase: string;
  registry: AppHandle;
  adapters: [AppHandle, AppHandle];
  mcp: AppHandle | undefined;
  dispatcher: AppHandle;
  dispatcherAddress: string;
  /** The dispatcher's outbox directory, on a disk of its own when the run is root. */
  outbox: OutboxDisk;
  admin: AdminClient;
  client: ToolHubClient;
  status(): Promise<GetStatusResponse>;
  registryStatus(): Promise<GetRegistryStatusResponse>;
  /** Every app's output so far, for a post-mortem. */
  logs(): Record<string, string>;
  close(): Promise<void>;
}

function entry(app: string, built: boolean): string[] {
  if (!built) return ['--import', 'tsx', join(ROOT, 'apps', app, 'src/main.ts')];
  const js = join(ROOT, 'dist/apps', app, 'main.js');
  // No silent fallback to tsx: the numbers would then not be those of built JavaScript.
  if (!existsSync(js)) throw new Error(`${js} is missing: run the suite with \`npm run bench -- chaos\` (it builds the apps), or CHAOS_BUILT=0 for tsx`);
  return [js];
}

async function app(name: string, app: string, env: Record<string, string>, ready: RegExp, built: boolean, nodeArgs: string[] = []): Promise<AppHandle> {
  const launch = (readyPattern = ready) => spawnProcess(process.execPath, [...nodeArgs, ...entry(app, built)], { cwd: ROOT, env: { LOG_LEVEL: 'info', ...env }, readyPattern, timeoutMs: 90_000 });
  const handle: AppHandle = {
    name,
    proc: await launch(),
    kill: async () => void (await handle.proc.kill('SIGKILL')),
    start: async () => void (handle.proc = await launch()),
    startUntil: async (readyPattern) => void (handle.proc = await launch(readyPattern)),
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
  const database = databaseHandle(mongo, Number(process.env['CHAOS_MONGO_PID'] ?? 0) || findFerretPid(mongo));
  const root = scratchDir('chaos-root');
  writeFileSync(join(root, 'notes.txt'), 'chaos\n');
  const adminPort = await freePort();
  const grpcPort = await freePort();
  const outbox = scratchDir('chaos-outbox');
  // Its own small disk, so the disk-full scenarios can fill it (root only; see outbox-disk.ts).
  const disk = outboxDisk(outbox, 4096);
  const run = Date.now().toString(36);
  const registry = await app(
    'registry',
    'registry',
    { NATS_URL: nats.url, MONGO_URL: mongo, TOOLHUB_MONGO_DB: `chaos_${run}`, TOOLHUB_CONSOLE_PORT: '0', TOOLHUB_ADMIN_PORT: String(adminPort), TOOLHUB_STATS_CONSUMER: `chaos_${run}` },
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
    mcp = await app('adapter-mcp', 'adapter-mcp', { NATS_URL: nats.url, TOOLHUB_MCP_CONFIG: configFile, TOOLHUB_HEARTBEAT_INTERVAL: '1s' }, /adapter-mcp ready/, built);
  }
  const dispatcher = await app(
    'dispatcher',
    'dispatcher',
    { NATS_URL: nats.url, REDIS_URL: redis.url, TOOLHUB_GRPC_PORT: String(grpcPort), TOOLHUB_MCP_PORT: '0', TOOLHUB_OUTBOX_DIR: outbox, TOOLHUB_PROVIDER_TTL: '3s', ...options.dispatcherEnv },
    /dispatcher listening/,
    built,
    options.dispatcherNodeArgs ?? dispatcherNodeArgsFromEnv(),
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
    mongo: database,
    registryDatabase: `chaos_${run}`,
    registry,
    adapters,
    mcp,
    dispatcher,
    dispatcherAddress,
    outbox: disk,
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
      disk.close();
      await database.close();
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

/**
 * Kill and restart of the FerretDB process at `pid`. The restart reuses the command line read from
 * /proc before the kill, so FerretDB comes back on the same port over the same PostgreSQL (or
 * SQLite directory); the registry's driver reconnects by itself.
 */
function databaseHandle(url: string, firstPid: number): DatabaseHandle {
  let pid = firstPid;
  let argv: string[] = [];
  let restarted: SpawnedProcess | undefined;
  return {
    url,
    get pid() {
      return pid;
    },
    async kill() {
      if (!pid) throw new Error(`the database at ${url} was not started by this run (MONGO_URL or CHAOS_MONGO_PID): it cannot be killed and restarted`);
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const dead = pid;
      process.kill(dead, 'SIGKILL');
      await waitFor(() => !isAlive(dead), { timeoutMs: 10_000, intervalMs: 50, message: `FerretDB (pid ${dead}) to exit` });
      pid = 0;
    },
    async restart() {
      if (argv.length === 0) throw new Error('restart() before kill(): no command line to start the database with');
      restarted = await spawnProcess(argv[0]!, argv.slice(1), { readyPattern: /Listening on TCP/, timeoutMs: 60_000 });
      pid = restarted.pid;
    },
    async close() {
      await restarted?.kill('SIGTERM');
    },
  };
}
