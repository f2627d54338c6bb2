/**
 * Metrics of async runs (StartRun): how long runs wait in the queue, how long attempts take and how
 * they end, retries after a worker died, and what is running and watched now. Registered with the
 * dispatcher's metrics whether async runs are on or not (zeros when off).
 */
import type { Dispatcher } from '@toolhub/dispatcher-core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import { RUN_BUCKETS } from './dispatcher-metrics';

export function registerAsyncRunMetrics(registry: Registry, dispatcher: Dispatcher): void {
  const registers = [registry];
  const queueWait = new Histogram({
    name: 'toolhub_async_run_queue_wait_seconds',
    help: 'Time an async run waited in the queue before its first attempt started',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  });
  const attempts = new Histogram({
    name: 'toolhub_async_run_attempt_duration_seconds',
    help: 'Async-run attempts by how the run ended (succeeded, failed, cancelled, unknown); _count is the number of attempts',
    labelNames: ['state'] as const,
    buckets: RUN_BUCKETS,
    registers,
  });
  const retries = new Counter({ name: 'toolhub_async_run_retries_total', help: 'Async-run attempts started again after the worker running them died or stopped', registers });
  dispatcher.runStats.onSample((s) => {
    if (s.retry) retries.inc();
    else queueWait.observe(s.queueWaitMs / 1000);
    attempts.labels(s.state).observe(s.runMs / 1000);
  });
  new Counter({
    name: 'toolhub_async_runs_started_total',
    help: 'Async runs started on this dispatcher (StartRun; a repeat with the same idempotency key is not counted)',
    registers,
    collect() {
      this.reset();
      this.inc(dispatcher.asyncRuns?.counts.started ?? 0);
    },
  });
  new Counter({
    name: 'toolhub_async_runs_refused_total',
    help: 'StartRun refused with RESOURCE_EXHAUSTED because queued runs were at a limit: limit="principal" (TOOLHUB_RUN_MAX_QUEUED_PER_PRINCIPAL) or "total" (TOOLHUB_RUN_MAX_QUEUED)',
    labelNames: ['limit'] as const,
    registers,
    collect() {
      this.reset();
      const refused = dispatcher.asyncRuns?.refusedQueueFull ?? { principal: 0, total: 0 };
      this.labels('principal').inc(refused.principal);
      this.labels('total').inc(refused.total);
    },
  });
  new Counter({
    name: 'toolhub_async_runs_requeued_total',
    help: 'Async runs queued again because they stayed queued longer than TOOLHUB_RUN_REQUEUE_AFTER (their queue message may have been lost)',
    registers,
    collect() {
      this.reset();
      this.inc(dispatcher.asyncRuns?.counts.requeued ?? 0);
    },
  });
  new Gauge({
    name: 'toolhub_async_runs_active',
    help: 'Async runs this dispatcher is working on now',
    registers,
    collect() {
      this.set(dispatcher.asyncRuns?.active ?? 0);
    },
  });
  new Gauge({
    name: 'toolhub_async_run_watchers',
    help: 'WatchRun streams open on this dispatcher',
    registers,
    collect() {
      this.set(dispatcher.asyncRuns?.watchers ?? 0);
    },
  });
}
