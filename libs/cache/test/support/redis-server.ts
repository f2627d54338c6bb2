/**
 * A private redis-server for integration tests: loopback only, a free port, no persistence.
 * Local to @toolhub/cache until @toolhub/test-harness offers one; it fails loudly (never skips)
 * when redis-server is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

/** A running redis-server that a test owns. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Sends a signal (SIGKILL to crash it, SIGSTOP/SIGCONT to hang and resume it). */
  signal(signal: NodeJS.Signals): void;
  /** Kills the process with SIGKILL and waits until it has exited. */
  kill(): Promise<void>;
  /** Starts a new process on the same port (after `kill`). */
  restart(): Promise<void>;
  /** Stops the server for good; safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

/** Starts redis-server on a free (or the given) loopback port and waits until it answers PING. */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const chosenPort = port ?? (await freePort());
  let child = await spawnRedis(chosenPort);

  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT'); // a stopped process must run to die promptly and report its exit
    child.kill('SIGKILL');
    await exited;
  };

  return {
    port: chosenPort,
    url: `redis://127.0.0.1:${chosenPort}`,
    signal: (signal) => {
      child.kill(signal);
    },
    kill,
    restart: async () => {
      await kill();
      child = await spawnRedis(chosenPort);
    },
    stop: kill,
  };
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function spawnRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let dead = false;
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      dead = true;
      reject(
        err.code === 'ENOENT'
          ? new Error('redis-server is not installed or not on PATH: install it (apt-get install redis-server) or set REDIS_URL', { cause: err })
          : err,
      );
    });
    child.once('exit', (code, signal) => {
      dead = true;
      reject(new Error(`redis-server exited early (code ${code}, signal ${signal}): ${output}`));
    });
  });
  failed.catch(() => undefined); // observed below; keeps a late exit from being an unhandled rejection
  try {
    await Promise.race([waitForPong(port, () => dead), failed]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return child;
}

async function waitForPong(port: number, isDead: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!isDead()) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
