/**
 * Validation and repair of large arguments on worker threads. The dispatcher's main thread serves
 * every caller: a few megabytes of arguments checked there (Ajv, format and pattern checks, repair)
 * would hold all of them. Arguments at or above a size threshold travel to a worker as JSON text
 * (JSON.stringify/parse are several times cheaper than the structured clone of a large object), are
 * validated there against the tool's schema (compiled once per worker and tool version), and come
 * back as JSON text with the fixes, or as the same INVALID_ARGUMENT the main thread would give.
 *
 * A small fixed pool, not a general one: jobs are bounded by the argument limits checked before
 * (nodes, bytes, depth), so no per-job deadline or preemption is needed; a worker that dies fails
 * its job as internal and is replaced on the next job.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, Worker } from 'node:worker_threads';

import { ArgumentValidator } from '@toolhub/arguments';
import { type AppliedFix, ToolHubError, type ToolHubErrorCode, toToolHubError } from '@toolhub/contracts';

/** The bundled worker's file name: scripts/build.mjs bundles each app's `src/*-worker.ts` beside main.js. */
export const ARGUMENTS_WORKER_FILE = 'arguments-worker.js';

interface JobMessage {
  id: number;
  toolId: string;
  version: string;
  schema: unknown;
  json: string;
  maxArgumentDepth: number;
}

type WireError = { code: ToolHubErrorCode; message: string; violations: ToolHubError['violations']; fixes: AppliedFix[] };
type ReplyMessage = { id: number; ok: true; json: string; fixes: AppliedFix[] } | { id: number; ok: false; error: WireError };

interface Job {
  message: JobMessage;
  resolve(result: { args: Record<string, unknown>; fixes: AppliedFix[] }): void;
  reject(err: ToolHubError): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
}

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register).register();
require(workerData.script).runArgumentsWorker();
`;

function defaultScript(): { script: string; register?: string } {
  const bundled = join(__dirname, ARGUMENTS_WORKER_FILE);
  if (existsSync(bundled)) return { script: bundled };
  const source = join(__dirname, 'argument-workers.ts');
  if (existsSync(source)) return { script: source, register: require.resolve('tsx/cjs/api') };
  throw ToolHubError.internal(`The dispatcher's arguments worker (${ARGUMENTS_WORKER_FILE}) was not found beside the bundle. Rebuild the app with scripts/build.mjs. This is a ToolHub fault.`);
}

/** Counters for metrics and tests. */
export interface ArgumentWorkerStats {
  workers: number;
  busy: number;
  queued: number;
  /** Jobs done (valid or rejected) since start. */
  done: number;
}

/** Validates large arguments on `size` worker threads (started on first use). */
export class ArgumentWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private seq = 0;
  private done = 0;
  private closed = false;
  private data: { script: string; register?: string } | undefined;

  constructor(
    private readonly size: number,
    private readonly maxArgumentDepth: number,
    private readonly maxMemoryMb = 256,
  ) {}

  /**
   * Validates and repairs `args` against `schema` (tool `toolId` at `version`) on a worker.
   * @throws ToolHubError invalid_argument exactly as ArgumentValidator.validateAndRepair would.
   */
  validate(toolId: string, version: string, schema: unknown, args: Record<string, unknown>): Promise<{ args: Record<string, unknown>; fixes: AppliedFix[] }> {
    if (this.closed) return Promise.reject(ToolHubError.unavailable('The dispatcher is shutting down; retry on another replica.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ message: { id: ++this.seq, toolId, version, schema, json: JSON.stringify(args), maxArgumentDepth: this.maxArgumentDepth }, resolve, reject });
      this.dispatch();
    });
  }

  stats(): ArgumentWorkerStats {
    return { workers: this.slots.length, busy: this.slots.filter((s) => s.job).length, queued: this.queue.length, done: this.done };
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopped = ToolHubError.unavailable('The dispatcher is shutting down; retry on another replica.');
    for (const job of this.queue.splice(0)) job.reject(stopped);
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        slot.job?.reject(stopped);
        await slot.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0 && !this.closed) {
      let slot = this.slots.find((s) => s.job === undefined);
      if (slot === undefined && this.slots.length < this.size) slot = this.spawn();
      if (slot === undefined) return;
      const job = this.queue.shift()!;
      slot.job = job;
      slot.worker.ref(); // a job in progress keeps the process alive until it answers
      slot.worker.postMessage(job.message);
    }
  }

  private spawn(): Slot {
    this.data ??= defaultScript();
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: this.data, resourceLimits: { maxOldGenerationSizeMb: this.maxMemoryMb }, stdout: false, stderr: false });
    const slot: Slot = { worker };
    this.slots.push(slot);
    worker.on('message', (reply: ReplyMessage) => {
      const job = slot.job;
      if (job === undefined || job.message.id !== reply.id) return;
      slot.job = undefined;
      worker.unref();
      this.done++;
      if (reply.ok) job.resolve({ args: JSON.parse(reply.json) as Record<string, unknown>, fixes: reply.fixes });
      else job.reject(new ToolHubError(reply.error.code, reply.error.message, { violations: reply.error.violations, fixes: reply.error.fixes }));
      this.dispatch();
    });
    const lost = (why: string): void => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      const job = slot.job;
      slot.job = undefined;
      job?.reject(ToolHubError.internal(`Validating the arguments for ${job.message.toolId} on a worker thread failed (${why}). This is a ToolHub fault, not a problem with the call.`));
      this.dispatch();
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`the worker exited with code ${code}`));
    worker.unref();
    return slot;
  }
}

/** Serves validation jobs on this worker thread. Called by the bundled `arguments-worker.js`. */
export function runArgumentsWorker(): void {
  const port = parentPort;
  if (port === null) return;
  const validators = new Map<number, ArgumentValidator>();
  port.on('message', (job: JobMessage) => {
    let reply: ReplyMessage;
    try {
      let validator = validators.get(job.maxArgumentDepth);
      if (validator === undefined) validators.set(job.maxArgumentDepth, (validator = new ArgumentValidator({ maxArgumentDepth: job.maxArgumentDepth })));
      const res = validator.validateAndRepair(job.toolId, job.version, job.schema, JSON.parse(job.json) as Record<string, unknown>);
      reply = { id: job.id, ok: true, json: JSON.stringify(res.args), fixes: res.fixes };
    } catch (err) {
      const e = toToolHubError(err);
      reply = { id: job.id, ok: false, error: { code: e.code, message: e.message, violations: e.violations, fixes: e.fixes } };
    }
    port.postMessage(reply);
  });
}
