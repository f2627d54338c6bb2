/**
 * The worker-thread side of the tool pool: builds the CPU-heavy tools (data and text) and runs the
 * jobs the pool sends, one at a time. The pool ends a worker that overruns a call's deadline, so
 * nothing here needs to be interruptible. Started by the pool, never imported by adapters.
 */
import { parentPort } from 'node:worker_threads';

import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { toToolHubError } from '@toolhub/contracts';

import { createDataTools } from '../data/tools';
import { createTextTools } from '../text/tools';
import type { JobMessage, ReplyMessage } from './protocol';

/** The tools that run in the pool: every data and text tool, with their default limits. */
export function pooledToolDefinitions(): ToolDefinition[] {
  return [...createDataTools(), ...createTextTools()];
}

let started = false;

/** Serves jobs on this worker thread's parent port. Call once, in a thread started by the pool. */
export function runToolWorker(): void {
  const port = parentPort;
  if (started || port === null) return;
  started = true;
  const tools = new Map(pooledToolDefinitions().map((t) => [t.name, t]));
  const signal = new AbortController().signal;
  port.on('message', (job: JobMessage) => {
    void (async (): Promise<ReplyMessage> => {
      try {
        const tool = tools.get(job.tool);
        if (tool === undefined) throw new Error(`tool ${job.tool} is not served by the worker pool`);
        const result = await tool.run(job.args, { signal, deadline: job.deadline, caller: '', idempotencyKey: '' });
        return { id: job.id, ok: true, result };
      } catch (err) {
        const e = toToolHubError(err, `${job.tool} failed unexpectedly`);
        const info = { code: e.code, message: e.message, violations: e.violations, suggestions: e.suggestions, parentPath: e.parentPath, fixes: e.fixes, retryable: e.retryable, retryAfterMs: e.retryAfterMs };
        return { id: job.id, ok: false, error: info };
      }
    })().then((reply) => port.postMessage(reply));
  });
}
