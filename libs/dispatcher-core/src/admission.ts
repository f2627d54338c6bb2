/**
 * Admission control for runs: at most `maxConcurrent` execute at once, at most `maxQueued` wait
 * for a slot (first come, first served), and everything past that is shed at once with
 * RESOURCE_EXHAUSTED and a retry hint, before memory or latency blow up. A queued run leaves the
 * queue when its deadline passes (TIMEOUT) or its caller gives up (it is then never started).
 */
import { ToolHubError } from '@toolhub/contracts';

/** Options of {@link AdmissionGate}. */
export interface AdmissionOptions {
  /** Runs executing at once. @default 256 */
  maxConcurrent: number;
  /** Runs waiting for a slot; 0 sheds as soon as every slot is taken. @default 512 */
  maxQueued: number;
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
  /** Runs refused since start because the queue was full. */
  shed = 0;

  constructor(private readonly options: AdmissionOptions) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting;
  }

  /**
   * Waits for a slot and returns its release (call it exactly once).
   * @throws ToolHubError rate_limited (RESOURCE_EXHAUSTED) when the queue is full; timeout when
   *   `deadline` passes while queued; unavailable when `signal` aborts while queued.
   */
  async acquire(deadline: number, signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.options.maxConcurrent && this.queued === 0) {
      this.active++;
      return this.releaser();
    }
    if (this.queued >= this.options.maxQueued) {
      this.shed++;
      // The hint grows with the backlog and carries jitter, so shed callers do not return together.
      const retryAfterMs = Math.round(100 + 400 * Math.random() + Math.min(2000, this.queued));
      throw new ToolHubError(
        'rate_limited',
        `The dispatcher is overloaded: ${this.active} runs are executing and ${this.queued} are waiting (limits ${this.options.maxConcurrent} and ${this.options.maxQueued}). ` +
          `Retry after about ${retryAfterMs} ms, or send fewer calls at once.`,
        { retryAfterMs, retryable: true },
      );
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = { done: false, grant: () => undefined };
      const leave = (err: ToolHubError): void => {
        if (waiter.done) return;
        waiter.done = true;
        if (queued) this.waiting--;
        cleanup();
        reject(err);
      };
      const timer = setTimeout(
        () => leave(ToolHubError.timeout('The call waited for a free slot in an overloaded dispatcher until its deadline passed; retry later or with a longer timeout_ms.')),
        Math.max(0, deadline - Date.now()),
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
      this.handOver();
    };
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
