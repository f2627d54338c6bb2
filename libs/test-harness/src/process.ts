/**
 * Child processes for tests (servers, apps): spawn, wait until ready, capture output, and make
 * sure nothing outlives the test process.
 *
 * Why a watchdog: inside Jest, `process.on('exit')` listeners registered by test code never run
 * (each test file gets a copy of `process`), and a worker killed with SIGKILL runs nothing at all.
 * So every child gets a tiny detached `sh` loop that SIGKILLs it once our PID is gone. It costs one
 * `sleep 1` per second per child and works however the test process ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How a process ended. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Options of {@link spawnProcess}. */
export interface SpawnOptions {
  /** Extra environment variables, merged over the current environment. */
  env?: Record<string, string | undefined>;
  /** Working directory. @default process.cwd() */
  cwd?: string;
  /** Resolve once a line of stdout or stderr matches; without it, resolve as soon as the process started. */
  readyPattern?: RegExp;
  /** Give up waiting for `readyPattern` after this long (the process is then killed). @default 20000 */
  timeoutMs?: number;
  /** Shown in errors when the command is missing, e.g. "apt-get install -y nats-server". */
  installHint?: string;
  /** Keep at most this much output (the most recent part). @default 262144 */
  maxOutputBytes?: number;
  /** Run as this user and group (needs root; e.g. PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
}

/** A running child process. */
export interface SpawnedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process printed on stdout and stderr so far (tail, interleaved). */
  output(): string;
  /** Sends `signal` (default SIGTERM) and resolves when the process has exited; SIGKILL after 10 s. */
  kill(signal?: NodeJS.Signals): Promise<ExitInfo>;
  /** Resolves when the process exits, however that happens. */
  readonly exited: Promise<ExitInfo>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;
let scratchRoot: string | undefined;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Works outside Jest (scripts run with tsx); inside Jest the watchdogs do the job.
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
    if (scratchRoot) rmSync(scratchRoot, { recursive: true, force: true });
  });
}

/** Starts the detached loop that kills `pid` (and removes `dir`, if given) once this process is gone. */
function watchdog(pid: number, removeDir?: string): void {
  const script = [
    'p=$1; c=$2; d=$3',
    'while kill -0 "$p" 2>/dev/null; do',
    '  if [ -n "$c" ] && ! kill -0 "$c" 2>/dev/null; then c=""; [ -z "$d" ] && exit 0; fi',
    '  sleep 1',
    'done',
    '[ -n "$c" ] && kill -9 "$c" 2>/dev/null',
    '[ -n "$d" ] && rm -rf "$d"',
    'exit 0',
  ].join('\n');
  const dog = spawn('sh', ['-c', script, 'watchdog', String(process.pid), pid > 0 ? String(pid) : '', removeDir ?? ''], {
    detached: true,
    stdio: 'ignore',
  });
  dog.unref();
}

/**
 * A scratch directory removed when the test process ends (or earlier by the caller). All of them
 * live under one root per process, so a single watchdog cleans up after a crash.
 */
export function scratchDir(prefix: string): string {
  if (!scratchRoot) {
    scratchRoot = mkdtempSync(join(tmpdir(), `toolhub-test-${process.pid}-`));
    watchdog(0, scratchRoot);
    installExitHook();
  }
  return mkdtempSync(join(scratchRoot, `${prefix}-`));
}

/**
 * Spawns `command` and waits until it is ready (a line matching `readyPattern`).
 * @throws Error when the command is not installed (with `installHint`), exits early, or is not
 *   ready within `timeoutMs`; the message includes the process output.
 */
export async function spawnProcess(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<SpawnedProcess> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxOutput = options.maxOutputBytes ?? 256 * 1024;
  installExitHook();
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  if (child.pid !== undefined) {
    // Guard it from the first moment, so a test process dying during startup leaks nothing.
    live.add(child);
    watchdog(child.pid);
  }
  let output = '';
  const lineListeners = new Set<(line: string) => void>();
  let partial = { stdout: '', stderr: '' };
  const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const s = chunk.toString('utf8');
    output = (output + s).slice(-maxOutput);
    const lines = (partial[stream] + s).split('\n');
    partial = { ...partial, [stream]: lines.pop() ?? '' };
    for (const line of lines) for (const l of lineListeners) l(line);
  };
  child.stdout?.on('data', onData('stdout'));
  child.stderr?.on('data', onData('stderr'));

  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  // 'exit' can come before the last stdout/stderr chunks are read; 'close' comes after them.
  const streamsClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // Bounded: a grandchild that inherited the pipes could hold them open for ever.
  const outputSettled = (): Promise<unknown> => Promise.race([streamsClosed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
  const spawnFailed = new Promise<Error>((resolve) => {
    child.once('error', (err: NodeJS.ErrnoException) => {
      live.delete(child);
      resolve(
        err.code === 'ENOENT'
          ? new Error(`"${command}" is not installed or not on PATH.${options.installHint ? ` Install it: ${options.installHint}` : ''}`)
          : new Error(`cannot start "${command}": ${err.message}`, { cause: err }),
      );
    });
  });

  const describe = `${command} ${args.join(' ')}`;
  const ready = new Promise<void>((resolve) => {
    if (!options.readyPattern) {
      child.once('spawn', () => resolve());
      return;
    }
    const pattern = options.readyPattern;
    const listener = (line: string): void => {
      if (pattern.test(line)) {
        lineListeners.delete(listener);
        resolve();
      }
    };
    lineListeners.add(listener);
  });

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([ready.then(() => 'ready' as const), exited, spawnFailed, timedOut]);
  clearTimeout(timer);

  if (outcome instanceof Error) throw outcome;
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
    await outputSettled();
    throw new Error(`"${describe}" was not ready within ${timeoutMs} ms (waiting for ${String(options.readyPattern)}). Output:\n${output}`);
  }
  if (outcome !== 'ready') {
    await outputSettled();
    throw new Error(`"${describe}" exited early (code ${outcome.code}, signal ${outcome.signal}). Output:\n${output}`);
  }
  const pid = child.pid as number;
  // Do not let a forgotten server keep the test process alive: the watchdog cleans up after us.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();

  const kill = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<ExitInfo> => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill(signal);
    if (signal === 'SIGKILL') return exited;
    let escalate: NodeJS.Timeout | undefined;
    const forced = new Promise<void>((resolve) => {
      escalate = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 10_000);
    });
    await Promise.race([exited, forced]);
    clearTimeout(escalate);
    return exited;
  };

  return { child, pid, output: () => output, kill, exited };
}

/** Kills every process started through this module that is still running. */
export async function killAllProcesses(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const running = [...live];
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill(signal);
        }),
    ),
  );
}
