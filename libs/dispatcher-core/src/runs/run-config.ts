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
  };
}
