/**
 * Admission control for runs: at most `maxConcurrent` execute at once, at most `maxQueued` wait
 * for a slot (first come, first served), and everything past that is shed at once with
 * RESOURCE_EXHAUSTED and a retry hint, before memory or latency blow up. A queued run leaves the
 * queue when its deadline passes (TIMEOUT) or its caller gives up (it is then never started).
 *
 * The queue is also bounded in time: a run that would wait longer than `maxQueueWaitMs` (judged
 * from the rate at which slots freed up over the last second) is shed at once, and one that has
 * waited that long is shed then. On a machine slower than the limits assume, runs are refused
 * quickly instead of all of them finishing late.
 */
import { ToolHubError, withoutStackTrace } from '@toolhub/contracts';

/** {@link AdmissionOptions.maxQueueWaitMs} when not set. */
export const DEFAULT_MAX_QUEUE_WAIT_MS = 1000;
/** How long after the last shed call the gate still counts as {@link AdmissionGate.overloaded}. */
const OVERLOAD_LINGER_MS = 1000;
/** Refusals {@link AdmissionGate.refuseEarly} shares in turn (each with its own jittered retry hint). */
const REFUSAL_VARIANTS = 8;

/** Options of {@link AdmissionGate}. */
export interface AdmissionOptions {
  /** Runs executing at once. @default 256 */
  maxConcurrent: number;
  /** Runs waiting for a slot; 0 sheds as soon as every slot is taken. @default 256 (the dispatcher's) */
  maxQueued: number;
  /** Longest expected or actual wait in the queue before a run is shed. @default 1000 */
  maxQueueWaitMs?: number;
}

interface Waiter {
  grant: (release: () => void) => void;
  done: boolean;
}

export class AdmissionGate {
  private active = 0;
  private readonly queue: Waiter[] = [];
  private head = 0;
  /** Waiters still waiting (the array may also hold ones that gave up). */
  private waiting = 0;
  /** Runs refused since start because the queue was full or too slow. */
  shed = 0;
  /** Slots freed in the current window, and the rate measured over the last full window. */
  private freed = 0;
  private windowStart = Date.now();
  private ratePerSec = Infinity;
  private lastSaturated = 0;
  private lastShedAt = 0;
  /** Refusals shared by {@link refuseEarly} while running/waiting stay as they were built for. */
  private readonly refusals: (ToolHubError | undefined)[] = new Array(REFUSAL_VARIANTS).fill(undefined);
  private refusalsActive = -1;
  private refusalsQueued = -1;
  private nextRefusal = 0;

  constructor(private readonly options: AdmissionOptions) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting;
  }

  /**
   * True while runs wait for a slot or were shed within the last second: work that can wait (such
   * as publishing call events) should, so the CPU goes to the calls being answered. (The calls
   * admitted in a burst are still running for about that long after the last one was shed.)
   */
  get overloaded(): boolean {
    return this.waiting > 0 || (this.shed > 0 && Date.now() - this.lastShedAt < OVERLOAD_LINGER_MS);
  }

  /**
   * The refusal {@link admit} would throw at once now (queue full, or a wait longer than allowed),
   * counted as shed; undefined when a call would be admitted or queued. Cheap enough to ask before
   * a request is decoded: under a burst most calls end here, and what they cost is taken from the
   * calls that were admitted.
   */
  refuseEarly(): ToolHubError | undefined {
    if (this.active < this.options.maxConcurrent && this.queued === 0) return undefined;
    const maxWait = this.options.maxQueueWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS;
    if (this.queued >= this.options.maxQueued || ((this.queued + 1) / this.ratePerSec) * 1000 > maxWait) return this.sharedRefusal();
    return undefined;
  }

  /**
   * A refusal from a small set shared while the gate's state (running, waiting) stays the same:
   * under a burst every refused call would otherwise build the same message and error, and the
   * stream-level answer re-encode the same trailer (it caches them per error object). The
   * {@link REFUSAL_VARIANTS} errors differ in their jittered retry hint, handed out in turn, so
   * shed callers still do not come back together. Only for answers nothing adds to (the edge
   * encodes them as they are); {@link admit} builds its own.
   */
  private sharedRefusal(): ToolHubError {
    if (this.refusalsActive !== this.active || this.refusalsQueued !== this.waiting) {
      this.refusals.fill(undefined);
      this.refusalsActive = this.active;
      this.refusalsQueued = this.waiting;
    }
    const i = this.nextRefusal++ % REFUSAL_VARIANTS;
    const cached = this.refusals[i];
    if (cached === undefined) return (this.refusals[i] = this.refusal());
    this.shed++;
    this.lastShedAt = Date.now();
    return cached;
  }

  /**
   * Waits for a slot and returns its release (call it exactly once).
   * @throws ToolHubError rate_limited (RESOURCE_EXHAUSTED) when the queue is full; timeout when
   *   `deadline` passes while queued; unavailable when `signal` aborts while queued.
   */
  async acquire(deadline: number, signal?: AbortSignal): Promise<() => void> {
    return this.admit(deadline, signal);
  }

  /** A slot's release when one is free and nobody waits; undefined otherwise (then {@link admit}). */
  tryAdmit(): (() => void) | undefined {
    if (this.active < this.options.maxConcurrent && this.queued === 0) {
      this.active++;
      return this.releaser();
    }
    return undefined;
  }

  /**
   * {@link acquire} without a promise where the answer is known at once: returns the release when
   * a slot is free and throws the RESOURCE_EXHAUSTED error when the call is shed, so neither costs
   * a promise or a timer; only a call that has to wait gets a promise (and its queue timer).
   * @throws ToolHubError rate_limited, at once, when the queue is full or would take too long
   */
  admit(deadline: number, signal?: AbortSignal): (() => void) | Promise<() => void> {
    if (this.active < this.options.maxConcurrent && this.queued === 0) {
      this.active++;
      return this.releaser();
    }
    const maxWait = this.options.maxQueueWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS;
    const expectedWaitMs = ((this.queued + 1) / this.ratePerSec) * 1000;
    if (this.queued >= this.options.maxQueued || expectedWaitMs > maxWait) throw this.refusal();
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = { done: false, grant: () => undefined };
      const leave = (err: ToolHubError): void => {
        if (waiter.done) return;
        waiter.done = true;
        if (queued) this.waiting--;
        cleanup();
        reject(err);
      };
      const untilDeadline = deadline - Date.now();
      const timer = setTimeout(
        () =>
          untilDeadline <= maxWait
            ? leave(ToolHubError.timeout('The call waited for a free slot in an overloaded dispatcher until its deadline passed; retry later or with a longer timeout_ms.'))
            : leave(this.refusal()),
        Math.max(0, Math.min(untilDeadline, maxWait)),
      );
      const onAbort = (): void => leave(ToolHubError.unavailable('The caller cancelled the call while it waited for a free slot.'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      let queued = false;
      waiter.grant = (release) => {
        waiter.done = true;
        this.waiting--;
        cleanup();
        resolve(release);
      };
      if (signal?.aborted) onAbort();
      else {
        this.queue.push(waiter);
        this.waiting++;
        queued = true;
      }
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.measure();
      this.handOver();
    };
  }

  /**
   * Rate of freed slots over windows of at least a second, counted only while runs wait (when
   * the slots are the bottleneck: a quiet dispatcher's rate says nothing about its capacity). The
   * estimate is forgotten after 5 s without waiting runs.
   */
  private measure(): void {
    const now = Date.now();
    if (this.waiting === 0) {
      this.freed = 0;
      this.windowStart = now;
      if (now - this.lastSaturated > 5000) this.ratePerSec = Infinity;
      return;
    }
    this.lastSaturated = now;
    this.freed++;
    const elapsed = now - this.windowStart;
    if (elapsed >= 1000) {
      this.ratePerSec = (this.freed * 1000) / elapsed;
      this.freed = 0;
      this.windowStart = now;
    }
  }

  private refusal(): ToolHubError {
    this.shed++;
    this.lastShedAt = Date.now();
    // The hint grows with the backlog and carries jitter, so shed callers do not return together.
    const retryAfterMs = Math.round(100 + 400 * Math.random() + Math.min(2000, this.queued));
    // An expected answer, given to every call of a burst past the limits.
    return withoutStackTrace(
      () =>
        new ToolHubError(
          'rate_limited',
          `The dispatcher is overloaded: ${this.active} runs are executing and ${this.queued} are waiting (limits ${this.options.maxConcurrent} running, ` +
            `${this.options.maxQueued} waiting, ${this.options.maxQueueWaitMs ?? DEFAULT_MAX_QUEUE_WAIT_MS} ms of waiting). Retry after about ${retryAfterMs} ms, or send fewer calls at once.`,
          { retryAfterMs, retryable: true },
        ),
    );
  }

  /** Passes the freed slot to the first waiter still waiting, or frees it. */
  private handOver(): void {
    while (this.head < this.queue.length) {
      const next = this.queue[this.head]!;
      this.queue[this.head++] = undefined as never;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      if (!next.done) {
        next.grant(this.releaser());
        return;
      }
    }
    this.active--;
  }
}
