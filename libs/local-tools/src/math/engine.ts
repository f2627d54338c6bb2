/**
 * The calculator engine: one lazily started worker thread running a limited mathjs instance, with
 * a time budget and a heap limit per evaluation. Calls are queued and evaluated one at a time.
 */
import { Worker } from 'node:worker_threads';

import { ToolHubError } from '@toolhub/contracts';

import { intOption } from '../options-util';
import { WORKER_SOURCE } from './worker-source';

/**
 * Functions unavailable inside expressions: those the mathjs security guide names (`import`,
 * `createUnit`, `evaluate`, `parse`, `simplify`, `derivative`), their relatives that parse or
 * rewrite expressions, and `config`/`typed`, which would change the shared instance.
 */
export const DISABLED_FUNCTIONS = [
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'compile',
  'resolve',
  'parser',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'derivative',
  'rationalize',
  'leafCount',
  'symbolicEqual',
  'config',
  'typed',
  'reviver',
] as const;

/** Disabled functions the instance uses internally: hidden from expressions by the scope instead of overridden. */
const SHADOWED_FUNCTIONS = ['typed'];

/** Options of {@link MathEngine.create}. */
export interface MathEngineOptions {
  /** Longest one evaluation may run before the worker is stopped, in ms. @default 2000 */
  timeoutMs?: number;
  /** Heap limit of the worker (old generation), in MB. @default 128 */
  maxMemoryMb?: number;
  /** Longest result text returned, in characters. @default 20000 */
  maxResultChars?: number;
}

/** Default values of {@link MathEngineOptions}. */
export const MATH_ENGINE_DEFAULTS = { timeoutMs: 2000, maxMemoryMb: 128, maxResultChars: 20_000 } as const;

/** What one evaluation asks for. */
export interface EvaluationRequest {
  expression: string;
  /** Names and values; a string value is itself evaluated (e.g. `"5 kg"`). */
  variables: Array<[string, number | string]>;
  precision: number;
}

/** A successful evaluation. */
export interface Evaluation {
  ok: true;
  /** mathjs type name: number, BigNumber, Unit, Complex, DenseMatrix, boolean, string, … */
  type: string;
  /** The formatted result. */
  result: string;
  value?: number | boolean;
  unit?: string;
}

/** An expression mathjs rejected (syntax, undefined symbol, wrong types, disabled function). */
export interface EvaluationFailure {
  ok: false;
  name: string;
  message: string;
  /** 1-based character position of a syntax error, when mathjs reports one. */
  char?: number;
  /** The variable whose value failed to evaluate, if any. */
  variable?: string;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

type Reply = { id: number } & (Evaluation | EvaluationFailure);
type Ready = { ready: true; functions: string[] };

/** Evaluates expressions in an isolated worker. Create with {@link MathEngine.create}; call {@link close} on shutdown. */
export class MathEngine {
  private worker: Worker | undefined;
  private starting: Promise<Worker> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private seq = 0;
  private closed = false;
  private names: readonly string[] = [];

  private constructor(private readonly options: Required<MathEngineOptions>) {}

  /** @throws LocalToolsError invalid_options for limits that are not positive integers. */
  static create(options: MathEngineOptions = {}): MathEngine {
    return new MathEngine({
      timeoutMs: intOption('timeoutMs', options.timeoutMs, MATH_ENGINE_DEFAULTS.timeoutMs, 10, 600_000),
      maxMemoryMb: intOption('maxMemoryMb', options.maxMemoryMb, MATH_ENGINE_DEFAULTS.maxMemoryMb, 32, 16_384),
      maxResultChars: intOption('maxResultChars', options.maxResultChars, MATH_ENGINE_DEFAULTS.maxResultChars, 100, 10_000_000),
    });
  }

  /** The time budget of one evaluation, in ms. */
  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Function names available in expressions (empty until the worker has started once). */
  get functionNames(): readonly string[] {
    return this.names;
  }

  /**
   * Evaluates one request after those already queued.
   * @throws ToolHubError timeout at the caller's deadline; failed when the expression exceeds the
   *   time budget or the memory limit; unavailable when the worker cannot start or after close().
   */
  evaluate(request: EvaluationRequest, ctx: { signal: AbortSignal; deadline: number }): Promise<Evaluation | EvaluationFailure> {
    const job = this.queue.then(() => this.run(request, ctx));
    this.queue = job.catch(() => undefined);
    return job;
  }

  /** Stops the worker. Later calls fail with `unavailable`. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker ?? (await this.starting?.catch(() => undefined));
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private async run(request: EvaluationRequest, ctx: { signal: AbortSignal; deadline: number }): Promise<Evaluation | EvaluationFailure> {
    if (this.closed) throw ToolHubError.unavailable('The calculator has been shut down.');
    const deadlineError = (): ToolHubError => ToolHubError.timeout("math_calculate did not finish before the call's deadline.");
    if (ctx.signal.aborted || ctx.deadline - Date.now() <= 0) throw deadlineError();
    const worker = await this.withDeadline(this.getWorker(), ctx, deadlineError);
    const remaining = ctx.deadline - Date.now();
    const budget = Math.max(1, Math.min(this.options.timeoutMs, remaining));
    const cutByDeadline = remaining < this.options.timeoutMs;
    return new Promise((resolve, reject) => {
      const id = ++this.seq;
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        ctx.signal.removeEventListener('abort', onAbort);
        settle();
      };
      const onMessage = (m: Reply): void => {
        if (m.id === id) finish(() => resolve(m));
      };
      const onError = (err: Error): void => finish(() => reject(this.crashError(err)));
      const onExit = (): void => finish(() => reject(ToolHubError.internal('The calculator worker exited unexpectedly. This is a ToolHub fault; retrying may help.')));
      const onAbort = (): void =>
        finish(() => {
          this.kill(worker);
          reject(deadlineError());
        });
      const timer = setTimeout(
        () =>
          finish(() => {
            this.kill(worker);
            reject(
              cutByDeadline
                ? deadlineError()
                : ToolHubError.failed(
                    `The expression took longer than ${this.options.timeoutMs} ms and was stopped; simplify it (smaller matrices or ranges, no deep recursion) or split it into steps.`,
                  ),
            );
          }),
        budget,
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      ctx.signal.addEventListener('abort', onAbort);
      worker.postMessage({ id, ...request });
    });
  }

  private crashError(err: Error & { code?: string }): ToolHubError {
    if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      return ToolHubError.failed(`The expression needed more than ${this.options.maxMemoryMb} MB of memory and was stopped; use smaller matrices or ranges.`, err);
    }
    return ToolHubError.internal(`The calculator worker failed: ${err.message}. This is a ToolHub fault; retrying may help.`, err);
  }

  private getWorker(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    if (this.starting) return this.starting;
    const starting = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { mathjsPath: require.resolve('mathjs'), disabled: DISABLED_FUNCTIONS, shadowed: SHADOWED_FUNCTIONS, maxResultChars: this.options.maxResultChars },
        resourceLimits: { maxOldGenerationSizeMb: this.options.maxMemoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      });
      // An idle calculator must not keep the process alive.
      worker.unref();
      // Permanent listeners: a dead worker is forgotten, and a late 'error' never goes unhandled.
      worker.on('error', () => this.forget(worker));
      worker.on('exit', () => this.forget(worker));
      const onReady = (m: Ready | Reply): void => {
        if (!('ready' in m)) return;
        worker.off('message', onReady);
        worker.off('error', onFail);
        worker.off('exit', onFail);
        this.names = m.functions;
        if (this.starting === starting) this.starting = undefined;
        if (this.closed) {
          void worker.terminate();
          reject(ToolHubError.unavailable('The calculator has been shut down.'));
          return;
        }
        this.worker = worker;
        resolve(worker);
      };
      const onFail = (err: unknown): void => {
        worker.off('message', onReady);
        if (this.starting === starting) this.starting = undefined;
        reject(ToolHubError.unavailable(`The calculator could not start: ${err instanceof Error ? err.message : `exit code ${String(err)}`}. Retrying later may help.`, err));
      };
      worker.on('message', onReady);
      worker.once('error', onFail);
      worker.once('exit', onFail);
    });
    this.starting = starting;
    return starting;
  }

  private withDeadline<T>(promise: Promise<T>, ctx: { signal: AbortSignal; deadline: number }, error: () => ToolHubError): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        done();
        reject(error());
      };
      // setTimeout fires at once for delays past 2^31-1 ms, so far deadlines are capped.
      const timer = setTimeout(onAbort, Math.min(MAX_TIMER_MS, Math.max(0, ctx.deadline - Date.now())));
      ctx.signal.addEventListener('abort', onAbort);
      promise.then(
        (v) => {
          done();
          resolve(v);
        },
        (e: unknown) => {
          done();
          reject(e);
        },
      );
    });
  }

  private forget(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
  }

  private kill(worker: Worker): void {
    this.forget(worker);
    void worker.terminate();
  }
}
