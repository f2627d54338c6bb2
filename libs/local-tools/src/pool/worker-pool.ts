/**
 * A pool of worker threads for the CPU-heavy local tools (data and text). A tool call is
 * synchronous work: on the adapter's own thread, one 1 MB input or one unlucky pattern would stall
 * every other call, heartbeats and health checks with it. In a worker, the call gets a time budget
 * equal to its deadline; a worker that overruns it is terminated (the only way to stop synchronous
 * JavaScript), the call ends with `timeout`, and a fresh worker is started in its place at once, so
 * the next call finds it warm.
 *
 * Calls are *large* or *small* by the size of their arguments ({@link ToolWorkerPoolOptions.largeInputBytes}).
 * Large calls can hold a worker for seconds; they may not take the last
 * {@link ToolWorkerPoolOptions.reservedForSmallCalls} started workers, so a small call waits at most
 * behind other small calls, never behind a pool full of large ones.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { RunContext, ToolResult } from '@toolhub/adapter-sdk';
import { isToolHubErrorCode, ToolHubError } from '@toolhub/contracts';

import { LocalToolsError } from '../errors';
import { intOption } from '../options-util';
import { argumentBytes } from './input-size';
import { TOOL_WORKER_MARK, type JobMessage, type ReadyMessage, type ReplyMessage, type ToolWorkerData, type WireError } from './protocol';

/** Options of {@link ToolWorkerPool.create}. */
export interface ToolWorkerPoolOptions {
  /** Worker threads. @default min(4, max(2, available parallelism)) */
  size?: number;
  /** Heap limit of each worker (old generation), in MB. @default 256 */
  maxMemoryMb?: number;
  /**
   * Young-generation limit of each worker, in MB. Tool calls make short-lived garbage; uncapped,
   * the new space grows under sustained load and stays grown. 16 kept the one-process soak's RSS
   * flat, for somewhat fewer calls/s of a local tool (figures: bench/soak/README.md, "Figures the
   * code cites"). @default 16
   */
  youngGenerationMb?: number;
  /**
   * A call whose arguments take at least this many bytes (about their JSON size in UTF-8) is
   * *large*. Small calls are quick: just under 64 KiB the slowest tool (text_stats on multi-script
   * prose) takes about 45 ms on one core, while a 1 MB text_stats takes about a second.
   * @default 65536 (64 KiB)
   */
  largeInputBytes?: number;
  /**
   * Started workers kept for small calls: a large call starts only while at least this many other
   * started workers are not running large calls. Small calls may use every worker. Less than `size`.
   * @default 1, or 0 when `size` is 1 (a single worker has nothing to spare)
   */
  reservedForSmallCalls?: number;
  /**
   * Script the workers run. @default `local-tools-worker.js` beside the running bundle, else this
   * package's TypeScript source (development and tests, through tsx)
   */
  script?: string;
}

/** Counters for status pages and tests. */
export interface ToolWorkerPoolStats {
  /** Worker threads alive, starting ones included. */
  workers: number;
  /** Of `workers`, those that have started and take a call at once. */
  ready: number;
  /** Workers running a call. */
  busy: number;
  /** Of `busy`, the workers running a large call. */
  busyLarge: number;
  /** Calls waiting for a worker. */
  queued: number;
  /** Of `queued`, the large calls. */
  queuedLarge: number;
  /** Workers being ended, no longer counted in `workers` (they are gone within tens of ms). */
  ending: number;
  /** Workers started since the pool was created, replacements included. */
  started: number;
  /** Workers ended because a call overran its deadline or the worker crashed. */
  replaced: number;
}

type ResolvedPoolOptions = Required<Omit<ToolWorkerPoolOptions, 'script'>> & Pick<ToolWorkerPoolOptions, 'script'>;

interface Job {
  message: JobMessage;
  /** Arguments of at least `largeInputBytes`. */
  large: boolean;
  resolve(result: ToolResult): void;
  reject(err: ToolHubError): void;
  cleanup(): void;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  /** The worker has loaded its script (sent its ReadyMessage). */
  ready: boolean;
  /** The pool ended it (a call overran its deadline or was cancelled), as opposed to a crash. */
  ended: boolean;
  job?: Job;
}

/** The bundled worker's file name: `scripts/build.mjs` bundles every app's `src/*-worker.ts`. */
export const BUNDLED_WORKER_FILE = 'local-tools-worker.js';

// Loads the pool script in the worker (TypeScript through tsx's CommonJS hook when given source).
const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register).register();
const m = require(workerData.script);
if (typeof m.runToolWorker === 'function') m.runToolWorker();
parentPort.postMessage({ ready: true });
`;

function defaultScript(): Pick<ToolWorkerData, 'script' | 'register'> {
  const bundled = join(__dirname, BUNDLED_WORKER_FILE);
  if (existsSync(bundled)) return { script: bundled };
  const source = join(__dirname, 'worker-main.ts');
  if (existsSync(source)) return { script: source, register: require.resolve('tsx/cjs/api') };
  throw ToolHubError.internal(`The local tools' worker script was not found (looked for ${BUNDLED_WORKER_FILE} beside the bundle). Rebuild the adapter with scripts/build.mjs. This is a ToolHub fault.`);
}

/** Runs tool calls on worker threads with per-call deadlines. Create with {@link ToolWorkerPool.create}; {@link close} on shutdown. */
export class ToolWorkerPool {
  private readonly slots: Slot[] = [];
  /** Workers terminated or crashed that have not exited yet. */
  private readonly ending = new Set<Slot>();
  private readonly queue: Job[] = [];
  private seq = 0;
  private started = 0;
  private replaced = 0;
  private closed = false;
  private data: ToolWorkerData | undefined;

  private constructor(private readonly options: ResolvedPoolOptions) {}

  /**
   * @throws LocalToolsError invalid_options for a size, memory limit or large-call threshold out of
   *   range, or `reservedForSmallCalls` not below `size`.
   */
  static create(options: ToolWorkerPoolOptions = {}): ToolWorkerPool {
    const size = intOption('size', options.size, Math.min(4, Math.max(2, availableParallelism())), 1, 64);
    const maxMemoryMb = intOption('maxMemoryMb', options.maxMemoryMb, 256, 32, 16_384);
    const youngGenerationMb = intOption('youngGenerationMb', options.youngGenerationMb, 16, 4, 1024);
    const largeInputBytes = intOption('largeInputBytes', options.largeInputBytes, 65_536, 1, 2 ** 30);
    const reservedForSmallCalls = intOption('reservedForSmallCalls', options.reservedForSmallCalls, size > 1 ? 1 : 0, 0, 64);
    if (reservedForSmallCalls >= size) {
      throw new LocalToolsError('invalid_options', `reservedForSmallCalls (${reservedForSmallCalls}) must be less than size (${size}): large calls need at least one worker.`);
    }
    const resolved: ResolvedPoolOptions = { size, maxMemoryMb, youngGenerationMb, largeInputBytes, reservedForSmallCalls };
    return new ToolWorkerPool(options.script === undefined ? resolved : { ...resolved, script: options.script });
  }

  /** Starts every worker now instead of on the first call (saves the first calls the start-up time). */
  warm(): void {
    this.fill();
  }

  /**
   * Runs `tool` with `args` on a worker before `ctx.deadline` (queueing included).
   * @throws ToolHubError timeout when the deadline passes or `ctx.signal` aborts (the worker is
   *   ended); failed when the worker runs out of memory; whatever the tool itself throws.
   */
  run(tool: string, args: Record<string, unknown>, ctx: RunContext): Promise<ToolResult> {
    if (this.closed) return Promise.reject(ToolHubError.unavailable('The adapter is shutting down; retry on another replica.'));
    if (ctx.signal.aborted || ctx.deadline <= Date.now()) return Promise.reject(this.timeoutError(tool, 0));
    return new Promise<ToolResult>((resolve, reject) => {
      const budgetMs = ctx.deadline - Date.now();
      const onAbort = (): void => this.abandon(job, this.timeoutError(tool, budgetMs));
      const timer = setTimeout(onAbort, budgetMs);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      const job: Job = {
        message: { id: ++this.seq, tool, args, deadline: ctx.deadline },
        large: argumentBytes(args, this.options.largeInputBytes) >= this.options.largeInputBytes,
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          ctx.signal.removeEventListener('abort', onAbort);
        },
      };
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Current counters. */
  stats(): ToolWorkerPoolStats {
    return {
      workers: this.slots.length,
      ready: this.slots.filter((s) => s.ready).length,
      busy: this.slots.filter((s) => s.job).length,
      busyLarge: this.slots.filter((s) => s.job?.large).length,
      queued: this.queue.length,
      queuedLarge: this.queue.filter((j) => j.large).length,
      ending: this.ending.size,
      started: this.started,
      replaced: this.replaced,
    };
  }

  /** Ends every worker; queued and running calls fail with `unavailable`. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = ToolHubError.unavailable('The adapter is shutting down; retry on another replica.');
    for (const job of this.queue.splice(0)) this.settle(job, stopped);
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        if (slot.job) this.settle(slot.job, stopped);
        await slot.worker.terminate();
      }),
    );
  }

  /** Starts workers up to `size` (the first call starts the whole pool, so the reservation holds). */
  private fill(): void {
    // Workers being ended still hold their memory for a moment; counting them keeps the pool under
    // 2 × size threads (so 2 × size × maxMemoryMb) however fast calls are ended. The exit of one
    // calls fill() again.
    while (!this.closed && this.slots.length < this.options.size && this.slots.length + this.ending.size < 2 * this.options.size) {
      this.slots.push(this.spawn());
    }
  }

  /** Starts queued calls, oldest first, on the workers {@link slotFor} allows. */
  private dispatch(): void {
    if (this.closed) return;
    if (this.queue.length > 0) this.fill();
    for (let i = 0; i < this.queue.length; ) {
      const job = this.queue[i] as Job;
      const slot = this.slotFor(job);
      if (slot === undefined) {
        i++; // a small call may pass a large one that has to wait
        continue;
      }
      this.queue.splice(i, 1);
      job.slot = slot;
      slot.job = job;
      slot.worker.postMessage(job.message);
    }
  }

  /**
   * The idle worker `job` may start on now, if any. Calls go to started workers; only while none
   * has started (the pool's first calls) are they given to starting ones, which run them once up
   * (that also lets a worker that cannot start fail the call instead of leaving it queued). A large
   * call also leaves `reservedForSmallCalls` of those workers free of large calls.
   */
  private slotFor(job: Job): Slot | undefined {
    const started = this.slots.filter((s) => s.ready);
    const usable = started.length > 0 ? started : this.slots;
    const idle = usable.find((s) => s.job === undefined);
    if (idle === undefined || !job.large) return idle;
    const busyLarge = this.slots.filter((s) => s.job?.large).length;
    return usable.length - busyLarge - 1 >= this.options.reservedForSmallCalls ? idle : undefined;
  }

  private spawn(): Slot {
    this.data ??= { [TOOL_WORKER_MARK]: true, ...(this.options.script ? { script: this.options.script } : defaultScript()) };
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: this.data,
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxMemoryMb, maxYoungGenerationSizeMb: this.options.youngGenerationMb },
      stdout: false,
      stderr: false,
    });
    this.started++;
    const slot: Slot = { worker, ready: false, ended: false };
    worker.on('message', (reply: ReplyMessage | ReadyMessage) => {
      if ('ready' in reply) {
        slot.ready = true;
        this.dispatch();
        return;
      }
      const job = slot.job;
      if (job === undefined || job.message.id !== reply.id) return;
      slot.job = undefined;
      if (reply.ok) this.settle(job, undefined, reply.result);
      else this.settle(job, fromWire(reply.error));
      this.dispatch();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      const job = slot.job;
      slot.job = undefined;
      this.retire(slot);
      if (job) {
        const outOfMemory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
        this.settle(
          job,
          outOfMemory
            ? ToolHubError.failed(`${job.message.tool} needed more than ${this.options.maxMemoryMb} MB of memory and was stopped; use a smaller input.`)
            : ToolHubError.internal(`${job.message.tool}'s worker thread failed: ${err.message}. This is a ToolHub fault, not a problem with the call.`, err),
        );
      }
      this.dispatch();
    });
    worker.on('exit', () => {
      // An exit nobody asked for (a crash without an 'error' event) frees the slot too.
      if (this.slots.includes(slot)) {
        const job = slot.job;
        slot.job = undefined;
        this.retire(slot);
        if (job) this.settle(job, ToolHubError.internal(`${job.message.tool}'s worker thread exited unexpectedly. This is a ToolHub fault, not a problem with the call.`));
      }
      this.ending.delete(slot);
      // The replacement may have waited for this exit (the 2 × size bound in fill()).
      if (this.replaceable(slot)) this.fill();
      this.dispatch();
    });
    // Idle workers must not keep the process alive (after the listeners: adding one refs the port again).
    worker.unref();
    return slot;
  }

  /** A call nobody waits for any more: drop it from the queue, or end the worker running it. */
  private abandon(job: Job, err: ToolHubError): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = job.slot;
    if (slot && slot.job === job) {
      slot.job = undefined;
      slot.ended = true;
      this.retire(slot);
      void slot.worker.terminate();
    }
    this.settle(job, err);
    this.dispatch();
  }

  /** Takes a worker that is being ended or has crashed out of the pool and starts its replacement. */
  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    this.ending.add(slot);
    this.replaced++;
    // At once, not on the next call: a worker takes ~100 ms to start, which the next call would wait.
    if (this.replaceable(slot)) this.fill();
  }

  /**
   * Whether a gone worker is replaced in the background: yes unless it failed before it started
   * (a broken script would otherwise restart for ever; the next call starts one and gets the error).
   */
  private replaceable(slot: Slot): boolean {
    return slot.ready || slot.ended;
  }

  private settle(job: Job, err: ToolHubError | undefined, result?: ToolResult): void {
    job.cleanup();
    if (err) job.reject(err);
    else job.resolve(result as ToolResult);
  }

  private timeoutError(tool: string, budgetMs: number): ToolHubError {
    return ToolHubError.timeout(
      budgetMs > 0
        ? `${tool} did not finish within the call's deadline (${budgetMs} ms) and was stopped. Use a smaller input, or a longer timeout_ms if the input really needs it.`
        : `${tool} was not started: the call's deadline had already passed.`,
    );
  }
}

function fromWire(e: WireError): ToolHubError {
  return new ToolHubError(isToolHubErrorCode(e.code) ? e.code : 'internal', e.message, {
    violations: e.violations,
    suggestions: e.suggestions,
    parentPath: e.parentPath,
    fixes: e.fixes,
    retryable: e.retryable,
    retryAfterMs: e.retryAfterMs,
  });
}
