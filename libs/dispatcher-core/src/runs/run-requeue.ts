/**
 * Closes the gap between writing a run's record and queueing it: a dispatcher that dies in between
 * (or a queue message lost any other way) leaves a run `queued` that no queue message names, so
 * no worker would ever take it. Replicas look for runs `queued` longer than a bound and put them
 * on the queue again. The message id is the run id, as at StartRun: within JetStream's duplicate
 * window a run whose first message is there is not queued twice. Past it a second message may be
 * queued; a worker that finds the run already taken drops it (see RunExecutor.work).
 */
import type { RunRecord, RunStore } from '@toolhub/run-store';

import type { RunQueue } from './run-queue';

/** When a queued run was last put on the queue. */
export function lastQueuedUnixMs(run: RunRecord): number {
  return Math.max(run.queuedUnixMs, run.requeuedUnixMs ?? 0);
}

/**
 * Queues again the oldest `queued` runs (at most `limit`) last queued over `olderThanMs` ago. Each
 * is first marked (`requeuedUnixMs`, compare-and-set), so one replica requeues it, once per bound.
 * Returns how many were queued again.
 */
export async function requeueStale(store: RunStore, queue: Pick<RunQueue, 'enqueue'>, olderThanMs: number, limit = 50, now = Date.now()): Promise<number> {
  let n = 0;
  for (const run of await store.listInStates(['queued'], limit)) {
    if (now - lastQueuedUnixMs(run) < olderThanMs) continue;
    // Lost to another writer (a worker took it, it was cancelled, another replica marked it): skip.
    if (!(await store.replace({ ...run, requeuedUnixMs: now }))) continue;
    await queue.enqueue(run.id);
    n++;
  }
  return n;
}
