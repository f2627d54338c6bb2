/**
 * Lets at most `perTurn` adapter requests go out per event-loop turn; the rest go `perTurn` at a
 * time in the turns after (setImmediate), in arrival order.
 *
 * Why: one socket read of the gRPC edge can hold dozens of RunTool calls. Handled in one turn, all
 * their NATS requests leave in one write at the end of it, so the adapter, NATS and then the
 * dispatcher again each get the whole group at once and take turns on the cores ("convoy"): at
 * concurrency 64 the machine of bench/dispatcher sat 34% idle. Sent in slices, the adapter starts
 * on the first while the dispatcher still handles the rest (bench/dispatcher README: +10–12%
 * calls/s at concurrency 64). At low concurrency a turn holds one call and nothing waits.
 */
export class RequestPacer {
  private sentThisTurn = 0;
  private turnEndQueued = false;
  private readonly waiting: Array<() => void> = [];

  /** @param perTurn requests let through per turn; 0 = no pacing. */
  constructor(private readonly perTurn: number) {
    if (!Number.isInteger(perTurn) || perTurn < 0) throw new Error(`RequestPacer: perTurn must be a whole number ≥ 0, got ${JSON.stringify(perTurn)}`);
  }

  /** Resolves when this request may go; `undefined` when it may go now (no promise to await). */
  turn(): Promise<void> | undefined {
    if (this.perTurn === 0) return undefined;
    if (!this.turnEndQueued) {
      this.turnEndQueued = true;
      setImmediate(() => {
        this.sentThisTurn = 0;
        this.turnEndQueued = false;
      });
    }
    if (this.waiting.length === 0 && this.sentThisTurn < this.perTurn) {
      this.sentThisTurn++;
      return undefined;
    }
    return new Promise<void>((go) => {
      this.waiting.push(go);
      if (this.waiting.length === 1) setImmediate(() => this.release());
    });
  }

  /** Requests waiting for a later turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private release(): void {
    for (const go of this.waiting.splice(0, this.perTurn)) go();
    if (this.waiting.length > 0) setImmediate(() => this.release());
  }
}
