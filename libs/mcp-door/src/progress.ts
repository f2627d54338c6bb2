/**
 * A `tools/call` whose request carries `_meta.progressToken` gets the run's progress as MCP
 * notifications on the call's own stream: `notifications/progress` for progress and status lines,
 * `notifications/message` (logging, level info) for the tool's log lines. Calls without a token
 * get no listener, so the dispatcher asks the adapter for nothing.
 */
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { RunProgress } from '@toolhub/contracts';

/** Sends one notification related to the call (the SDK request handler's `extra.sendNotification`). */
export type SendNotification = (notification: ServerNotification) => Promise<void>;

/**
 * The CallContext.onProgress of a call with `progressToken`, or undefined without one. MCP wants
 * `progress` on every notification, increasing: an update with only a status line repeats the
 * last value (0 before any).
 */
export function progressListener(progressToken: unknown, send: SendNotification, logger: string): ((update: RunProgress) => void) | undefined {
  if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return undefined;
  let last = 0;
  let total: number | undefined;
  return (update) => {
    if (update.progress !== undefined || update.total !== undefined || update.message) {
      if (update.progress !== undefined && update.progress >= last) last = update.progress;
      if (update.total !== undefined) total = update.total;
      const params = { progressToken, progress: last, ...(total !== undefined ? { total } : {}), ...(update.message ? { message: update.message } : {}) };
      send({ method: 'notifications/progress', params }).catch(() => undefined);
    }
    if (update.log) send({ method: 'notifications/message', params: { level: 'info', logger, data: update.log } }).catch(() => undefined);
  };
}
