/**
 * The bus's one flush policy for requests: a request made during an event-loop turn goes out at
 * the end of that turn, together with the others of the turn — at most `perTurn` of them; the rest
 * go `perTurn` at a time in the turns after, in arrival order.
 *
 * Why both halves, in one place: NATS.js writes to the socket once per microtask checkpoint, so
 * requests made by separate callbacks (one per incoming gRPC call) would each cost a write system
 * call, while a batch costs one. But one read of the dispatcher's gRPC edge can hold dozens of
 * calls: sent as one write, the adapter, NATS and then the dispatcher each get the whole group at
 * once and take turns on the cores (a "convoy"); sent in slices, the adapter starts on the first
 * while the dispatcher still handles the rest (figures: bench/dispatcher/README.md). Until
 * 2026-11-28 the dispatcher sliced with its own pacer on top of this bus's corking.
 *
 * A request made while the bus has no other request in flight and none waiting goes at once: there
 * is nothing to batch it with or to slice, and waiting for the end of the turn cost the lone call
 * (concurrency 1) an extra event-loop phase (figures: bench/dispatcher/README.md, 2026-11-29 evening).
 */
export class RequestFlush {
  private waiting: Array<() => void> = [];
  private scheduled = false;

  /** @param perTurn requests sent per turn; 0 = every request of the turn in one write. */
  constructor(private readonly perTurn: number) {
    if (!Number.isInteger(perTurn) || perTurn < 0) throw new Error(`requestsPerTurn must be a whole number ≥ 0, got ${JSON.stringify(perTurn)}`);
  }

  /**
   * Runs `send` at the end of this turn, or of a later one when more than `perTurn` wait before it;
   * at once when `alone` (the caller has no other request in flight) and nothing waits.
   */
  defer<T>(send: () => Promise<T>, alone = false): Promise<T> {
    if (alone && !this.scheduled && this.waiting.length === 0) {
      try {
        return send();
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        try {
          send().then(resolve, reject);
        } catch (err) {
          reject(err);
        }
      });
      if (!this.scheduled) this.schedule();
    });
  }

  /** Requests waiting for the end of this turn or a later one. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.perTurn === 0 ? this.waiting.splice(0) : this.waiting.splice(0, this.perTurn);
      for (const run of batch) run();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
