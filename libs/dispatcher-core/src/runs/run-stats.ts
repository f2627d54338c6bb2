/** Statistics of async-run attempts (queue wait, run time, retries), read by the metrics endpoint. */
export interface RunAttemptSample {
  /** Time the run waited in the queue before its first attempt (0 for a retry). */
  queueWaitMs: number;
  runMs: number;
  /** A later attempt after its worker died. */
  retry: boolean;
  /** How the attempt ended (run state). */
  state: string;
}

export class RunStats {
  attempts = 0;
  retries = 0;
  queueWaitSecondsSum = 0;
  firstAttempts = 0;
  runSecondsSum = 0;
  /** Attempts by the state they ended in. */
  readonly ended = new Map<string, number>();
  /** Hooks of the metrics registry (histograms), when one is attached. */
  private readonly listeners = new Set<(s: RunAttemptSample) => void>();

  observe(s: RunAttemptSample): void {
    this.attempts++;
    if (s.retry) this.retries++;
    else {
      this.firstAttempts++;
      this.queueWaitSecondsSum += s.queueWaitMs / 1000;
    }
    this.runSecondsSum += s.runMs / 1000;
    this.ended.set(s.state, (this.ended.get(s.state) ?? 0) + 1);
    for (const l of this.listeners) l(s);
  }

  /** Calls `listener` with every later sample. */
  onSample(listener: (s: RunAttemptSample) => void): void {
    this.listeners.add(listener);
  }
}
