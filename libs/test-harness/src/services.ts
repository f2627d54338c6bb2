/**
 * Backing services for integration tests: use the ones named by NATS_URL / REDIS_URL / MONGO_URL
 * (e.g. from `eval "$(bash scripts/services.sh up)"` or CI), or start private ones on free ports.
 * A missing binary is an error that says how to install it — integration tests never skip.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { containersWanted, startMongoContainer } from './containers';
import { startNatsServer, type NatsServerHandle } from './nats';
import { freePort, waitForPort } from './ports';
import { postgresBinDir, startPostgresServer } from './postgres';
import { scratchDir, spawnProcess, type SpawnedProcess } from './process';

/** A private server started by this harness. */
export interface ServerHandle {
  readonly url: string;
  readonly port: number;
  /** The server's process id; -1 when it runs in a container. */
  readonly pid: number;
  output(): string;
  /** Graceful stop (SIGTERM). */
  stop(): Promise<void>;
  /** SIGKILL, as in a crash. */
  kill(): Promise<void>;
}

function handle(url: string, port: number, proc: SpawnedProcess): ServerHandle {
  return {
    url,
    port,
    pid: proc.pid,
    output: () => proc.output(),
    stop: async () => void (await proc.kill('SIGTERM')),
    kill: async () => void (await proc.kill('SIGKILL')),
  };
}

/**
 * Starts `redis-server` on 127.0.0.1 with persistence off and waits until it accepts connections.
 * @throws Error when redis-server is not installed (saying how to install it) or does not start.
 */
export async function startRedisServer(options: { port?: number; timeoutMs?: number } = {}): Promise<ServerHandle> {
  const port = options.port ?? (await freePort());
  const dir = scratchDir('redis');
  const proc = await spawnProcess(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      readyPattern: /Ready to accept connections/,
      timeoutMs: options.timeoutMs ?? 20_000,
      installHint: 'apt-get update && apt-get install -y redis-server, or run `bash scripts/services.sh install`',
    },
  );
  await waitForPort(port, options.timeoutMs ?? 20_000);
  return handle(`redis://127.0.0.1:${port}`, port, proc);
}

/** Where scripts/services.sh caches the FerretDB binary it builds. */
export function ferretdbBinaryPath(): string {
  if (process.env['FERRETDB_BIN']) return process.env['FERRETDB_BIN'];
  const binDir = process.env['TOOLHUB_BIN_DIR'] ?? join(homedir(), '.cache', 'toolhub', 'bin');
  const cached = join(binDir, 'ferretdb');
  return existsSync(cached) ? cached : 'ferretdb';
}

/**
 * FerretDB's storage for the private servers: `postgresql` (the default where PostgreSQL is
 * installed) or `sqlite` (TOOLHUB_FERRETDB_HANDLER=sqlite, or no PostgreSQL). On PostgreSQL,
 * FerretDB 1.24 looks documents up through the `_id` index; on SQLite it scans whole collections
 * for every `_id` lookup and update (statistics ingestion many times slower; figure:
 * bench/registry/README.md, "Figures the code cites").
 */
export function ferretdbHandler(): 'postgresql' | 'sqlite' {
  const wanted = process.env['TOOLHUB_FERRETDB_HANDLER'];
  if (wanted === 'sqlite' || wanted === 'postgresql') return wanted;
  return postgresBinDir() ? 'postgresql' : 'sqlite';
}

/**
 * Starts a MongoDB wire-protocol server — FerretDB v1 on a private PostgreSQL (or on SQLite, see
 * {@link ferretdbHandler}), in a scratch directory — and waits until it accepts connections. The
 * binary comes from FERRETDB_BIN, the services.sh cache (`$TOOLHUB_BIN_DIR` or
 * ~/.cache/toolhub/bin) or PATH. `stop` and `kill` act on FerretDB; PostgreSQL stops with it.
 * @throws Error when FerretDB is not built yet, saying how to build it.
 */
export async function startMongoServer(options: { port?: number; timeoutMs?: number } = {}): Promise<ServerHandle> {
  const port = options.port ?? (await freePort());
  const dir = scratchDir('ferretdb');
  const pg = ferretdbHandler() === 'postgresql' ? await startPostgresServer({ timeoutMs: options.timeoutMs ?? 60_000 }) : undefined;
  let proc: SpawnedProcess;
  try {
    proc = await spawnProcess(
      ferretdbBinaryPath(),
      [
        ...(pg ? ['--handler=postgresql', `--postgresql-url=${pg.url}`] : ['--handler=sqlite', `--sqlite-url=file:${dir}/`]),
        `--listen-addr=127.0.0.1:${port}`,
        `--state-dir=${dir}`,
        '--telemetry=disable',
        '--debug-addr=-', // no second listener: parallel test servers would fight over its fixed port
      ],
      {
        readyPattern: /Listening on TCP/,
        timeoutMs: options.timeoutMs ?? 20_000,
        installHint:
          'run `bash scripts/services.sh install` once (builds FerretDB v1.24.2 with Go into ~/.cache/toolhub/bin), ' +
          'or set FERRETDB_BIN to a ferretdb binary, or set MONGO_URL to a running MongoDB-compatible server',
      },
    );
    await waitForPort(port, options.timeoutMs ?? 20_000);
  } catch (err) {
    await pg?.proc.kill('SIGTERM');
    throw err;
  }
  const ferret = handle(`mongodb://127.0.0.1:${port}/`, port, proc);
  if (!pg) return ferret;
  return {
    ...ferret,
    output: () => `${proc.output()}\n--- postgres ---\n${pg.proc.output()}`,
    stop: async () => {
      await ferret.stop();
      await pg.proc.kill('SIGTERM');
    },
    kill: async () => {
      await ferret.kill();
      await pg.proc.kill('SIGKILL');
    },
  };
}

// One private server of each kind per test file (Jest gives each file its own module registry).
let sharedNats: Promise<NatsServerHandle> | undefined;
let sharedRedis: Promise<ServerHandle> | undefined;
let sharedMongo: Promise<ServerHandle> | undefined;

async function shared<T>(get: () => Promise<T> | undefined, set: (p: Promise<T> | undefined) => void, start: () => Promise<T>): Promise<T> {
  let p = get();
  if (!p) {
    p = start();
    set(p);
    // A failed start is not cached: the next caller gets a fresh attempt and its own loud error.
    p.catch(() => set(undefined));
  }
  return p;
}

/** NATS_URL, or the URL of a private nats-server (JetStream on) started on first use. */
export async function natsUrl(): Promise<string> {
  if (process.env['NATS_URL']) return process.env['NATS_URL'];
  const server = await shared(() => sharedNats, (p) => (sharedNats = p), () => startNatsServer());
  return server.url;
}

/** REDIS_URL, or the URL of a private redis-server started on first use. */
export async function redisUrl(): Promise<string> {
  if (process.env['REDIS_URL']) return process.env['REDIS_URL'];
  const server = await shared(() => sharedRedis, (p) => (sharedRedis = p), () => startRedisServer());
  return server.url;
}

/**
 * MONGO_URL; else, started on first use, MongoDB in a container (testcontainers) where a Docker
 * engine is there (see containersWanted), or a private FerretDB.
 */
export async function mongoUrl(): Promise<string> {
  if (process.env['MONGO_URL']) return process.env['MONGO_URL'];
  const server = await shared(() => sharedMongo, (p) => (sharedMongo = p), () => (containersWanted() ? startMongoContainer() : startMongoServer()));
  return server.url;
}

/** Stops the private servers started by natsUrl/redisUrl/mongoUrl (call from `afterAll`; optional). */
export async function stopSharedServers(): Promise<void> {
  const nats = sharedNats;
  const others = [sharedRedis, sharedMongo];
  sharedNats = sharedRedis = sharedMongo = undefined;
  await Promise.allSettled([
    nats?.then((s) => s.dispose()),
    ...others.map((p) => p?.then((s) => s.stop())),
  ]);
}
