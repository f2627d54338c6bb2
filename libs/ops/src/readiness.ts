/**
 * Readiness as a probe needs it: a set of named checks (NATS round trip, store reachable, ...)
 * evaluated periodically, each bounded by a timeout, so a probe never waits on a hung dependency.
 */

/** One dependency check: resolves when the dependency works, throws (with a reason) when not. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<void> | void;
}

/** Result of the last evaluation. */
export interface ReadinessState {
  ready: boolean;
  /** Failing checks and why; empty when ready. */
  failing: Array<{ name: string; reason: string }>;
  checkedAtMs: number;
}

interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ReadinessOptions {
  /** How often the checks run. @default 5000 */
  intervalMs?: number;
  /** Each check fails past this. @default 3000 */
  timeoutMs?: number;
  logger?: Logger;
}

/** Runs `checks` now and every `intervalMs`; calls `onChange` when readiness flips. */
export class Readiness {
  private current: ReadinessState = { ready: false, failing: [{ name: 'startup', reason: 'not checked yet' }], checkedAtMs: 0 };
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ReadinessState> | undefined;
  private stopped = false;

  constructor(
    private readonly checks: ReadinessCheck[],
    private readonly onChange: (ready: boolean) => void,
    private readonly options: ReadinessOptions = {},
  ) {}

  get state(): ReadinessState {
    return this.current;
  }

  /** Adds checks (an app's own, once start-up has made what they check) and evaluates at once. */
  add(...checks: ReadinessCheck[]): Promise<ReadinessState> {
    this.checks.push(...checks);
    return this.evaluate();
  }

  /** Evaluates once now, then keeps evaluating in the background. */
  async start(): Promise<ReadinessState> {
    const first = await this.evaluate();
    this.schedule();
    return first;
  }

  /** Runs every check once (concurrent callers share one run). */
  evaluate(): Promise<ReadinessState> {
    this.running ??= this.runChecks().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops evaluating and reports not ready from now on (SIGTERM: drain first). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.set({ ready: false, failing: [{ name: 'shutdown', reason: 'stopping' }], checkedAtMs: Date.now() });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.evaluate().finally(() => this.schedule());
    }, this.options.intervalMs ?? 5000);
    this.timer.unref();
  }

  private async runChecks(): Promise<ReadinessState> {
    const timeoutMs = this.options.timeoutMs ?? 3000;
    const results = await Promise.all(
      this.checks.map(async ({ name, check }) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve().then(check),
            new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
          ]);
          return undefined;
        } catch (err) {
          return { name, reason: err instanceof Error ? err.message : String(err) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const failing = results.filter((r): r is { name: string; reason: string } => r !== undefined);
    if (!this.stopped) this.set({ ready: failing.length === 0, failing, checkedAtMs: Date.now() });
    return this.current;
  }

  private set(next: ReadinessState): void {
    const changed = next.ready !== this.current.ready;
    this.current = next;
    if (!changed) return;
    if (next.ready) this.options.logger?.info({}, 'ready');
    else this.options.logger?.warn({ failing: next.failing }, 'not ready');
    this.onChange(next.ready);
  }
}
