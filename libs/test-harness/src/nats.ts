/** A private nats-server (JetStream on, loopback only) for integration tests. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { freePort, waitForPort } from './ports';
import { scratchDir, spawnProcess, type SpawnedProcess } from './process';

/** Options of {@link startNatsServer}. */
export interface NatsServerOptions {
  /** Port to listen on. @default a free port */
  port?: number;
  /** JetStream store directory (kept across {@link NatsServerHandle.restart}). @default a scratch dir */
  storeDir?: string;
  /** Extra nats-server arguments, e.g. `['--max_payload', '2MB']`. @default [] */
  args?: string[];
  /** How long to wait for the server to be ready. @default 20000 */
  timeoutMs?: number;
  /**
   * nats-server configuration text, e.g. an `authorization { users = [...] }` block from
   * `natsAuthorizationConfig` (@toolhub/bus), to test with authentication and subject permissions.
   * @default none (no auth)
   */
  config?: string;
  /** Environment of nats-server, e.g. the `$NATS_<USER>_PASSWORD` variables a config file reads. */
  env?: Record<string, string>;
}

/** A running (or stopped, restartable) nats-server. */
export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** PID of the current server process (changes on restart). */
  readonly pid: number;
  /** Server log so far (of the current process). */
  output(): string;
  /** Graceful stop (SIGTERM); JetStream data stays for {@link restart}. */
  stop(): Promise<void>;
  /** SIGKILL, as in a crash; JetStream data stays for {@link restart}. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and store directory (stops it first if running). */
  restart(): Promise<void>;
  /** Stops the server and deletes its store directory (when the harness created it). */
  dispose(): Promise<void>;
}

const INSTALL_HINT = 'apt-get update && apt-get install -y nats-server (Debian/Ubuntu), or run `bash scripts/services.sh install`';

async function launch(port: number, storeDir: string, options: NatsServerOptions): Promise<SpawnedProcess> {
  const configArgs: string[] = [];
  if (options.config) {
    mkdirSync(storeDir, { recursive: true });
    const file = join(storeDir, 'toolhub-test.conf');
    writeFileSync(file, options.config);
    configArgs.push('-c', file);
  }
  const proc = await spawnProcess('nats-server', [...configArgs, '-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, ...(options.args ?? [])], {
    readyPattern: /Server is ready/,
    timeoutMs: options.timeoutMs ?? 20_000,
    installHint: INSTALL_HINT,
    ...(options.env ? { env: options.env } : {}),
  });
  await waitForPort(port, options.timeoutMs ?? 20_000);
  return proc;
}

/**
 * Starts `nats-server -js -a 127.0.0.1 -p <port> -sd <dir>` and waits until it accepts connections.
 * @throws Error when nats-server is not installed (saying how to install it) or does not start.
 */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const ownsDir = options.storeDir === undefined;
  const storeDir = options.storeDir ?? scratchDir('nats');
  let port = options.port ?? (await freePort());
  let proc: SpawnedProcess | undefined;
  // A free port can be taken between freePort() and bind; try a few when we chose it.
  for (let attempt = 0; ; attempt++) {
    try {
      proc = await launch(port, storeDir, options);
      break;
    } catch (err) {
      const portClash = /address already in use/i.test(String(err));
      if (options.port !== undefined || !portClash || attempt >= 2) throw err;
      port = await freePort();
    }
  }
  let current: SpawnedProcess = proc;
  let running = true;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (!running) return;
    running = false;
    await current.kill(signal);
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    get pid() {
      return current.pid;
    },
    output: () => current.output(),
    stop: () => stop('SIGTERM'),
    kill: () => stop('SIGKILL'),
    restart: async () => {
      await stop('SIGTERM');
      current = await launch(port, storeDir, options);
      running = true;
    },
    dispose: async () => {
      await stop('SIGTERM');
      if (ownsDir) rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
