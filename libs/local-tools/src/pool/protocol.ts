/** Messages between the tool worker pool and its worker threads (structured-cloned). */
import type { ToolResult } from '@toolhub/adapter-sdk';
import type { AppliedFix, FieldViolation } from '@toolhub/contracts';

/** Marks a worker thread started by the pool (in workerData). */
export const TOOL_WORKER_MARK = 'toolhubToolWorker';

/** What a worker thread is started with. */
export interface ToolWorkerData {
  [TOOL_WORKER_MARK]: true;
  /** Module that builds the worker's tools (a pool script); see worker-main.ts. */
  script: string;
  /** `tsx/cjs/api` when the script is TypeScript source (development and tests). */
  register?: string;
}

/** One call sent to a worker. */
export interface JobMessage {
  id: number;
  tool: string;
  args: Record<string, unknown>;
  deadline: number;
}

/** A ToolHubError as plain data, so it survives the thread boundary with its code. */
export interface WireError {
  code: string;
  message: string;
  violations: FieldViolation[];
  suggestions: string[];
  parentPath: string;
  fixes: AppliedFix[];
  retryable: boolean;
  retryAfterMs: number;
}

/** A worker's answer to one job. */
export type ReplyMessage = { id: number; ok: true; result: ToolResult } | { id: number; ok: false; error: WireError };

/** Sent once by a worker when its script has loaded and it can take jobs at once. */
export interface ReadyMessage {
  ready: true;
}
