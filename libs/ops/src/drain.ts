/**
 * The first step of every app's shutdown: readiness off everywhere it is reported (the ops health
 * port and /readyz, the API ports' health services), then keep serving for
 * TOOLHUB_SHUTDOWN_DELAY_MS, so Services and load balancers stop sending calls before the listeners
 * close and in-flight calls drain. Kubernetes removes a terminating pod from its endpoints on its
 * own, but not at once; a load balancer that health-checks the API port needs the NOT_SERVING.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { RunningOps } from './start';

interface Logger {
  info(obj: object, msg?: string): void;
}

/** A shutdown step (the shape `onShutdown` of @toolhub/runtime takes). */
export function drainStep(options: { ops: Pick<RunningOps, 'readiness'>; delayMs?: number; logger?: Logger; apis?: ReadonlyArray<{ drain(): void } | undefined> }): { name: string; run: () => Promise<void> } {
  return {
    name: 'drain',
    run: async () => {
      options.ops.readiness.stop();
      for (const api of options.apis ?? []) api?.drain();
      const delayMs = options.delayMs ?? 0;
      if (delayMs > 0) {
        options.logger?.info({ delayMs }, `not ready; serving ${delayMs} ms more while callers move away, then draining`);
        await sleep(delayMs);
      }
    },
  };
}
