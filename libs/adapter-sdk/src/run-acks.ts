/**
 * Run acknowledgements, sent only for runs that are still running a moment after they arrived.
 *
 * A dispatcher names an acknowledgement subject on each run so that it learns which replica holds
 * the call (and fails the call at once if that replica dies). A reply says the same thing, so a
 * run that answers within `delayMs` needs no acknowledgement: most runs answer in well under a
 * millisecond, and the acknowledgement was one extra NATS message per call for the adapter, the
 * server and the dispatcher. Runs still going after `delayMs` are acknowledged together by one
 * timer. Dispatchers wait seconds for an acknowledgement (see the dispatcher's inflight tracker),
 * so a delay of tens of milliseconds changes nothing they decide.
 */
import type { Bus } from '@toolhub/bus';

/** How long a run may answer without being acknowledged. */
export const RUN_ACK_DELAY_MS = 50;

export class RunAcks {
  /** Acknowledgement subjects of the runs not yet acknowledged or answered. */
  private readonly waiting = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly payload: Uint8Array,
    private readonly delayMs = RUN_ACK_DELAY_MS,
  ) {}

  /** A run arrived with this acknowledgement subject. */
  arrived(subject: string): void {
    if (this.delayMs <= 0) {
      this.send(subject);
      return;
    }
    this.waiting.add(subject);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.delayMs);
      this.timer.unref();
    }
  }

  /** The run answered (or failed): its reply tells the dispatcher all an acknowledgement would. */
  answered(subject: string): void {
    this.waiting.delete(subject);
  }

  /** Acknowledges every run still waiting (on a timer, and when the replica stops). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const subject of this.waiting) this.send(subject);
    this.waiting.clear();
  }

  private send(subject: string): void {
    try {
      this.bus.publish(subject, this.payload);
    } catch {
      // The acknowledgement only speeds up failure detection; the call goes on without it.
    }
  }
}
