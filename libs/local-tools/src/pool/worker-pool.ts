/**
 * A pool of worker threads for the CPU-heavy local tools (data and text). A tool call is
 * synchronous work: on the adapter's own thread, one 1 MB input or one unlucky pattern would stall
 * every other call, heartbeats and health checks with it. In a worker, the call gets a time budget
 * equal to its deadline; a worker that overruns it is terminated (the only way to stop synchronous
 * JavaScript), the call ends with `timeout`, and a fresh worker takes its place.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { RunContext, ToolResult } from '@toolhub/adapter-sdk';
import { isToolHubErrorCode, ToolHubError } from '@toolhub/contracts';

import { intOption } from '../options-util';
import { TOOL_WORKER_MARK, type JobMessage, type ReplyMessage, type ToolWorkerData, type WireError } from './protocol';

/** Options of {@link ToolWorkerPool.create}. */
export interface ToolWorkerPoolOptions {
  /** Worker threads. @default min(4, max(2, available parallelism)) */
  size?: number;
  /** Heap limit of each worker (old generation), in MB. @default 256 */
  maxMemoryMb?: number;
  /**
   * Script the workers run. @default `local-tools-worker.js` beside the running bundle, else this
   * package's TypeScript source (development and tests, through tsx)
   */
  script?: string;
}

/** Counters for status pages and tests. */
export interface ToolWorkerPoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** Workers ended because a call overran its deadline or the worker crashed. */
  replaced: number;
}

interface Job {
  message: JobMessage;
  resolve(result: ToolResult): void;
  reject(err: ToolHubError): void;
  cleanup(): void;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  job?: Job;
}

/** The bundled worker's file name: `scripts/build.mjs` bundles every app's `src/*-worker.ts`. */
export const BUNDLED_WORKER_FILE = 'local-tools-worker.js';

// Loads the pool script in the worker (TypeScript through tsx's CommonJS hook when given source).
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register).register();
const m = require(workerData.script);
if (typeof m.runToolWorker === 'function') m.runToolWorker();
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
  private readonly queue: Job[] = [];
  private seq = 0;
  private replaced = 0;
  private closed = false;
  private data: ToolWorkerData | undefined;

  private constructor(private readonly options: Required<Omit<ToolWorkerPoolOptions, 'script'>> & Pick<ToolWorkerPoolOptions, 'script'>) {}

  /** @throws LocalToolsError invalid_options for a size or memory limit out of range. */
  static create(options: ToolWorkerPoolOptions = {}): ToolWorkerPool {
    const size = intOption('size', options.size, Math.min(4, Math.max(2, availableParallelism())), 1, 64);
    const maxMemoryMb = intOption('maxMemoryMb', options.maxMemoryMb, 256, 32, 16_384);
    return new ToolWorkerPool(options.script === undefined ? { size, maxMemoryMb } : { size, maxMemoryMb, script: options.script });
  }

  /** Starts every worker now instead of on the first call (saves the first calls the start-up time). */
  warm(): void {
    while (!this.closed && this.slots.length < this.options.size) this.slots.push(this.spawn());
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
    return { workers: this.slots.length, busy: this.slots.filter((s) => s.job).length, queued: this.queue.length, replaced: this.replaced };
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

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (slot === undefined && this.slots.length < this.options.size) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (slot === undefined) return;
      const job = this.queue.shift() as Job;
      job.slot = slot;
      slot.job = job;
      slot.worker.postMessage(job.message);
    }
  }

  private spawn(): Slot {
    this.data ??= { [TOOL_WORKER_MARK]: true, ...(this.options.script ? { script: this.options.script } : defaultScript()) };
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: this.data,
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxMemoryMb },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker };
    worker.on('message', (reply: ReplyMessage) => {
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
        this.dispatch();
      }
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
      this.retire(slot);
      void slot.worker.terminate();
    }
    this.settle(job, err);
    this.dispatch();
  }

  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    this.replaced++;
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
