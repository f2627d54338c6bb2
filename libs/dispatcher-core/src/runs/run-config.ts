/** Environment settings of async runs, shared by the dispatcher app and the one-process mode. */
import { zDuration } from '@toolhub/config';
import { z } from 'zod';

export function asyncRunConfigFields() {
  return {
    runRetentionMs: {
      env: 'TOOLHUB_RUN_RETENTION',
      schema: zDuration({ min: '1s', max: '90d' }).default(24 * 3_600_000),
      description: 'How long an ended async run (StartRun) and its result are kept for GetRun/WatchRun ("24h")',
    },
    runConcurrency: {
      env: 'TOOLHUB_RUN_CONCURRENCY',
      schema: z.coerce.number().int().min(1).max(1024).default(8),
      description: 'Async runs this process works at once; more wait in the queue',
    },
    runMaxAttemptMs: {
      env: 'TOOLHUB_RUN_MAX_ATTEMPT',
      schema: zDuration({ min: '1s', max: '7d' }).default(3_600_000),
      description: 'Longest timeout_ms one attempt of an async run may ask for ("1h"); StartRun asking more is refused with INVALID_ARGUMENT naming this limit (RunTool keeps its 5-min cap)',
    },
    runMaxQueuedPerPrincipal: {
      env: 'TOOLHUB_RUN_MAX_QUEUED_PER_PRINCIPAL',
      schema: z.coerce.number().int().min(1).max(10_000_000).default(1000),
      description: 'Async runs one principal may have queued (not started yet); StartRun past it is refused with RESOURCE_EXHAUSTED',
    },
    runMaxQueued: {
      env: 'TOOLHUB_RUN_MAX_QUEUED',
      schema: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
      description: 'Async runs queued in all (every principal); StartRun past it is refused with RESOURCE_EXHAUSTED',
    },
  };
}

/** The async-run settings of a loaded config, as the Dispatcher's AsyncRunsConfig takes them. */
export function asyncRunOptionsFromConfig(config: { runRetentionMs: number; runConcurrency: number; runMaxAttemptMs: number; runMaxQueuedPerPrincipal: number; runMaxQueued: number }) {
  return {
    retentionMs: config.runRetentionMs,
    concurrency: config.runConcurrency,
    maxAttemptMs: config.runMaxAttemptMs,
    maxQueuedPerPrincipal: config.runMaxQueuedPerPrincipal,
    maxQueued: config.runMaxQueued,
  };
}
