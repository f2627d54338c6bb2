/**
 * MCP tasks (spec 2025-11-25, experimental) over ToolHub's async runs. A task-augmented
 * `tools/call` starts a run through the dispatcher's run service — the one gRPC StartRun uses:
 * grants, idempotency key, durable queue, retention — and the run id is the task id. `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel` read, wait for, list and cancel that run. A run
 * belongs to the principal that started it, so its task is seen from every session (and every
 * replica) of that principal and by no one else: another caller's task id answers as a missing one.
 */
import type { ServerNotification, Task } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '@toolhub/auth';
import { type RunInfo, RunState, RunStatus, type RunToolRequest, ToolHubError, toolId, toToolHubError, type WatchRunResponse } from '@toolhub/contracts';

import { callContextOf, type DoorRuns } from './backend';
import { type DoorCallResult, runFailureResult, runResult } from './call-result';
import { progressListener } from './progress';

export type TaskStatus = Task['status'];

/** Where a task's timing comes from: the run store's retention and the door's poll interval. */
export interface TaskTiming {
  retentionMs: number;
  pollIntervalMs: number;
  /** @default Date.now() */
  now?: number;
}

const TERMINAL: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

export function isTerminalTask(status: TaskStatus): boolean {
  return TERMINAL.includes(status);
}

const CANCELLED_TEXT = 'The task was cancelled; the adapter was told to stop the run. Start it again if it is still needed.';

/**
 * The MCP status of a run. A run whose cancellation was asked for is `cancelled` from then on, even
 * if the tool finished first (the spec: a cancelled task stays cancelled). A tool's own error
 * (`isError`) is `failed`, as the spec asks for tool calls; UNKNOWN (a non-idempotent run whose
 * worker died: it may or may not have run) is `failed` with the run's message. ToolHub runs never
 * wait for input, so `input_required` does not occur.
 */
export function taskStatusOf(run: RunInfo): { status: TaskStatus; statusMessage: string } {
  const errorText = run.error?.message || run.result?.error?.message || '';
  if (run.cancelRequested || run.state === RunState.RUN_STATE_CANCELLED) {
    return { status: 'cancelled', statusMessage: run.state === RunState.RUN_STATE_CANCELLED && errorText ? errorText : CANCELLED_TEXT };
  }
  switch (run.state) {
    case RunState.RUN_STATE_QUEUED:
      return { status: 'working', statusMessage: 'Queued: waiting for a worker.' };
    case RunState.RUN_STATE_RUNNING: {
      const p = run.progress;
      const done = p && (p.progress > 0 || p.total > 0) ? ` ${p.progress}${p.total > 0 ? `/${p.total}` : ''}` : '';
      const line = p?.message ? `: ${p.message}` : '';
      return { status: 'working', statusMessage: `Running${run.attempts > 1 ? ` (attempt ${run.attempts})` : ''}${done}${line}`.trim() };
    }
    case RunState.RUN_STATE_SUCCEEDED:
      return run.result && run.result.status === RunStatus.RUN_STATUS_TOOL_ERROR
        ? { status: 'failed', statusMessage: errorText || 'The tool reported an error; tasks/result has it.' }
        : { status: 'completed', statusMessage: 'Completed; tasks/result has the result.' };
    case RunState.RUN_STATE_FAILED:
      return { status: 'failed', statusMessage: errorText || 'The run failed; tasks/result says why.' };
    case RunState.RUN_STATE_UNKNOWN:
      return { status: 'failed', statusMessage: errorText || 'The run ended in an unknown state: it may or may not have run.' };
    default:
      return { status: 'failed', statusMessage: `The run is in a state this door does not know (${String(run.state)}).` };
  }
}

/**
 * The MCP Task of a run. `ttl` is from creation to when the record may be deleted: the end plus
 * the store's retention once ended; while working, counted as if it ended now (a lower bound).
 */
export function taskOf(run: RunInfo, timing: TaskTiming): Task {
  const now = timing.now ?? Date.now();
  const ended = run.finishedUnixMs > 0 && run.expiresUnixMs > 0;
  const ttl = ended ? Math.max(0, run.expiresUnixMs - run.queuedUnixMs) : Math.max(0, now - run.queuedUnixMs) + timing.retentionMs;
  const updated = Math.max(run.queuedUnixMs, run.startedUnixMs, run.finishedUnixMs);
  const { status, statusMessage } = taskStatusOf(run);
  return {
    taskId: run.runId,
    status,
    statusMessage,
    createdAt: new Date(run.queuedUnixMs).toISOString(),
    lastUpdatedAt: new Date(updated).toISOString(),
    ttl,
    pollInterval: timing.pollIntervalMs,
  };
}

/**
 * What `tasks/result` answers for an ended run: exactly what a synchronous `tools/call` of the
 * same tool would have answered (agent-kit's text, `isError` with the same LLM-ready message),
 * plus the related-task `_meta` the spec asks for.
 */
export function taskResultOf(run: RunInfo, maxChars: number): DoorCallResult {
  const id = toolId(run.provider, run.name);
  let result: DoorCallResult;
  if (run.result) result = runResult(run.result, id, maxChars);
  else if (run.error) result = runFailureResult(ToolHubError.fromErrorInfo(run.error), maxChars);
  else result = runFailureResult(new ToolHubError('failed', CANCELLED_TEXT), maxChars);
  return { ...result, _meta: { [RELATED_TASK_META_KEY]: { taskId: run.runId } } };
}

/** The message of a run-service failure, as the JSON-RPC error the spec asks for. */
function taskError(err: unknown, taskId: string, retentionMs: number): McpError {
  const e = toToolHubError(err, 'the task operation failed inside the MCP door');
  if (e.code === 'not_found') {
    return new McpError(
      ErrorCode.InvalidParams,
      `Task not found: no task ${JSON.stringify(taskId.slice(0, 80))} exists for you. Tasks are kept ${Math.round(retentionMs / 60_000)} min after they end, and only the caller that started one sees it; tasks/list shows yours.`,
    );
  }
  if (e.code === 'invalid_argument') return new McpError(ErrorCode.InvalidParams, e.message.replace(/page_token/g, 'cursor').replace(/next_page_token/g, 'nextCursor').replace(/ListRuns/g, 'tasks/list'));
  return new McpError(ErrorCode.InternalError, e.message);
}

/** The door-wide count of runs followed for notifications, and its cap. */
export interface WatchBudget {
  active: number;
  readonly max: number;
}

export interface DoorTasksOptions {
  pollIntervalMs: number;
  maxResultChars: number;
  /** Runs one session follows at once for notifications; more tasks are still served, by polling only. */
  maxWatchers: number;
  /** Runs followed by every session of the door together (each follower re-reads the store every few seconds). */
  watchBudget?: WatchBudget;
  /** Tasks per tasks/list page. */
  listPageSize: number;
}

/** A task to start: the RunToolRequest a `tools/call` makes, and the tool's id. */
export interface TaskTarget {
  request: RunToolRequest;
  toolId: string;
}

/**
 * The tasks of one MCP session's server. `notify` sends a notification on the session's GET
 * stream (absent in stateless mode: no stream outlives a request there, so tasks are polled).
 */
export class DoorTasks {
  private readonly watchers = new Map<string, AbortController>();
  private closed = false;

  constructor(
    private readonly runs: DoorRuns,
    private readonly principal: () => Principal,
    private readonly options: DoorTasksOptions,
    private readonly notify?: (notification: ServerNotification) => Promise<void>,
  ) {}

  private timing(): TaskTiming {
    return { retentionMs: this.runs.retentionMs, pollIntervalMs: this.options.pollIntervalMs };
  }

  private ctx(signal?: AbortSignal) {
    return callContextOf({ principal: this.principal(), signal });
  }

  /** Runs followed now (notifications). */
  get watching(): number {
    return this.watchers.size;
  }

  /**
   * Starts the run of a task-augmented `tools/call`; answers the CreateTaskResult.
   * @throws McpError with the text a synchronous call would have answered, when the run is refused
   */
  async create(target: TaskTarget, progressToken: unknown): Promise<{ task: Task; _meta: Record<string, unknown> }> {
    let run: RunInfo | undefined;
    try {
      run = (await this.runs.startRun({ call: target.request }, this.ctx())).run;
    } catch (err) {
      const e = toToolHubError(err, 'the task could not be started');
      const text = runFailureResult(e, this.options.maxResultChars).content.map((b) => b['text']).join('\n');
      const code = e.code === 'unavailable' || e.code === 'rate_limited' || e.code === 'failed' || e.code === 'failed_precondition' ? ErrorCode.InternalError : ErrorCode.InvalidParams;
      throw new McpError(code, text);
    }
    if (!run) throw new McpError(ErrorCode.InternalError, `The run service started no run for ${target.toolId}; nothing was run. Retry the call.`);
    const task = taskOf(run, this.timing());
    this.watch(task, target.toolId, progressToken);
    return {
      task,
      // A host may hand this to the model at once while the task works (spec: "model-immediate-response").
      _meta: { 'io.modelcontextprotocol/model-immediate-response': `Started ${target.toolId} as task ${run.runId}; its result comes when the task completes.` },
    };
  }

  async get(taskId: string): Promise<Task> {
    try {
      const { run } = await this.runs.getRun({ runId: taskId }, this.ctx());
      return taskOf(run!, this.timing());
    } catch (err) {
      throw taskError(err, taskId, this.runs.retentionMs);
    }
  }

  /** Waits until the task ends (or the request is cancelled), then answers its tool result. */
  async result(taskId: string, signal?: AbortSignal): Promise<DoorCallResult> {
    let last: RunInfo | undefined;
    let endedEarly = false;
    const watching = new AbortController();
    const stop = () => watching.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await this.runs.watchRun({ runId: taskId }, this.ctx(watching.signal), (u: WatchRunResponse) => {
        if (!u.run) return;
        last = u.run;
        // Cancelled is final for the task at once, even while the adapter is still stopping the run.
        if (isTerminalTask(taskStatusOf(u.run).status) && !u.final) {
          endedEarly = true;
          watching.abort();
        }
      });
    } catch (err) {
      throw taskError(err, taskId, this.runs.retentionMs);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    if (!last) throw taskError(ToolHubError.notFound('no run'), taskId, this.runs.retentionMs);
    if (!endedEarly && !isTerminalTask(taskStatusOf(last).status)) {
      // The caller went away (its request was cancelled): nothing is sent anyway.
      throw new McpError(ErrorCode.RequestTimeout, `tasks/result for ${taskId} was cancelled before the task ended; call it again to wait for the result.`);
    }
    return taskResultOf(last, this.options.maxResultChars);
  }

  /** Asks the run to stop (the adapter is told); the task is `cancelled` from the answer on. */
  async cancel(taskId: string, reason = 'cancelled through MCP tasks/cancel'): Promise<Task> {
    const current = await this.get(taskId);
    if (isTerminalTask(current.status)) {
      throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task ${taskId}: already in terminal status '${current.status}'.`);
    }
    try {
      const { run } = await this.runs.cancelRun({ runId: taskId, reason }, this.ctx());
      return taskOf(run!, this.timing());
    } catch (err) {
      throw taskError(err, taskId, this.runs.retentionMs);
    }
  }

  /** The principal's tasks, newest first; `nextCursor` while more remain. */
  async list(cursor: string | undefined): Promise<{ tasks: Task[]; nextCursor?: string }> {
    try {
      const page = await this.runs.listRuns({ pageSize: this.options.listPageSize, pageToken: cursor ?? '', state: RunState.RUN_STATE_UNSPECIFIED }, this.ctx());
      const timing = { ...this.timing(), now: Date.now() };
      return { tasks: page.runs.map((r) => taskOf(r, timing)), ...(page.nextPageToken ? { nextCursor: page.nextPageToken } : {}) };
    } catch (err) {
      throw taskError(err, cursor ?? '', this.runs.retentionMs);
    }
  }

  /**
   * Follows a new task's run while the session lives: `notifications/tasks/status` on each change
   * of status, and with a `progressToken` the run's progress and log lines, as a synchronous call
   * with that token gets them (the token stays valid for the task's lifetime, as the spec says).
   */
  private watch(created: Task, tool: string, progressToken: unknown): void {
    const notify = this.notify;
    const budget = this.options.watchBudget;
    if (!notify || this.closed || this.watchers.size >= this.options.maxWatchers || (budget && budget.active >= budget.max)) return;
    if (budget) budget.active++;
    const taskId = created.taskId;
    const related = { [RELATED_TASK_META_KEY]: { taskId } };
    const send = (n: ServerNotification) => notify({ ...n, params: { ...n.params, _meta: { ...(n.params?._meta ?? {}), ...related } } } as ServerNotification).catch(() => undefined);
    const progress = progressListener(progressToken, send, tool);
    const controller = new AbortController();
    this.watchers.set(taskId, controller);
    let lastStatus = `${created.status}|${created.statusMessage}`;
    let lastProgress = '';
    const onUpdate = (u: WatchRunResponse): void => {
      if (!u.run) return;
      const task = taskOf(u.run, this.timing());
      const key = `${task.status}|${task.statusMessage}`;
      if (key !== lastStatus) {
        lastStatus = key;
        // Without related-task _meta: the task id is in the notification itself (spec).
        void notify({ method: 'notifications/tasks/status', params: task }).catch(() => undefined);
      }
      const p = u.run.progress;
      if (progress && p && (p.progress > 0 || p.total > 0 || p.message)) {
        const pKey = `${p.progress}|${p.total}|${p.message}`;
        if (pKey !== lastProgress) {
          lastProgress = pKey;
          progress({ progress: p.progress, ...(p.total > 0 ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) });
        }
      }
      if (progress) for (const line of u.newLogLines) progress({ log: line });
      if (isTerminalTask(task.status) && task.status !== 'cancelled') controller.abort();
    };
    this.runs
      .watchRun({ runId: taskId }, this.ctx(controller.signal), onUpdate)
      .catch(() => undefined)
      .finally(() => {
        if (budget) budget.active--;
        if (this.watchers.get(taskId) === controller) this.watchers.delete(taskId);
      });
  }

  /** Stops following runs (the session closed); the runs themselves go on. */
  close(): void {
    this.closed = true;
    for (const c of this.watchers.values()) c.abort();
    this.watchers.clear();
  }
}
