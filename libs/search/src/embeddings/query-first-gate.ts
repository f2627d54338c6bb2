/**
 * Queries first: tool embedding (bulk, in the background) starts a batch only while no query
 * embedding is in flight, so an agent's search never queues behind a catalog's texts at the
 * endpoint. Together with small tool batches and the local server's priority queue
 * (scripts/embeddings/server.py), a query waits at most for the one batch already running.
 */
export class QueryFirstGate {
  private inFlight = 0;
  private waiters: Array<() => void> = [];

  /** Marks a query embedding in flight; call the returned function when it ends (idempotent). */
  query(): () => void {
    this.inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.inFlight === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Query embeddings in flight now. */
  get queries(): number {
    return this.inFlight;
  }

  /** Resolves once no query embedding is in flight (at once when none is). */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
