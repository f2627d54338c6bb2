/** Runs as MCP tasks: status, timing and result mapping (no services). */
import { ErrorCode, type ErrorInfo, type RunInfo, RunState, RunStatus, type RunToolResponse, ToolHubError } from '@toolhub/contracts';
import { runFailureResult, runResult, taskOf, taskResultOf, taskStatusOf } from '@toolhub/mcp-door';

const T0 = Date.parse('2026-11-29T06:00:00.000Z');
const RETENTION = 3_600_000;

function run(over: Partial<RunInfo> = {}): RunInfo {
  return {
    runId: 'run_0000000000abcdef0123456789',
    state: RunState.RUN_STATE_QUEUED,
    provider: 'local',
    name: 'echo_text',
    attempts: 0,
    queuedUnixMs: T0,
    startedUnixMs: 0,
    finishedUnixMs: 0,
    result: undefined,
    error: undefined,
    progress: undefined,
    logLines: [],
    idempotencyKey: '',
    caller: 'mcp',
    expiresUnixMs: 0,
    cancelRequested: false,
    ...over,
  };
}

const response = (over: Partial<RunToolResponse> = {}): RunToolResponse => ({
  status: RunStatus.RUN_STATUS_OK,
  content: [{ text: 'hello' } as RunToolResponse['content'][number]],
  fixes: [],
  attempts: 1,
  servedBy: 'local',
  latencyMs: 3,
  ...over,
}) as RunToolResponse;

const errorInfo = (e: ToolHubError): ErrorInfo => e.toErrorInfo();

describe('taskStatusOf', () => {
  it('queued and running runs are working, with what they are doing', () => {
    expect(taskStatusOf(run())).toEqual({ status: 'working', statusMessage: 'Queued: waiting for a worker.' });
    const running = run({ state: RunState.RUN_STATE_RUNNING, attempts: 2, startedUnixMs: T0 + 5, progress: { progress: 3, total: 8, message: 'uploading part 3' } });
    expect(taskStatusOf(running)).toEqual({ status: 'working', statusMessage: 'Running (attempt 2) 3/8: uploading part 3' });
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_RUNNING, attempts: 1 })).statusMessage).toBe('Running');
  });

  it('a run that answered is completed; a tool error (isError) is failed with its message', () => {
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_SUCCEEDED, result: response() })).status).toBe('completed');
    const toolError = new ToolHubError('failed', 'the thing is broken');
    const failedTool = run({ state: RunState.RUN_STATE_FAILED, result: response({ status: RunStatus.RUN_STATUS_TOOL_ERROR, error: errorInfo(toolError) }), error: errorInfo(toolError) });
    expect(taskStatusOf(failedTool)).toEqual({ status: 'failed', statusMessage: 'the thing is broken' });
  });

  it('UNKNOWN is failed with the run message; FAILED carries the error', () => {
    const unknown = new ToolHubError('unavailable', 'The dispatcher working this non-idempotent run died; it may or may not have run.');
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_UNKNOWN, error: errorInfo(unknown) }))).toEqual({ status: 'failed', statusMessage: unknown.message });
    const timeout = new ToolHubError('timeout', 'local:slow_wait did not answer within 100 ms');
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_FAILED, error: errorInfo(timeout) }))).toEqual({ status: 'failed', statusMessage: timeout.message });
  });

  it('cancelled from the moment a cancellation is asked for, and stays cancelled even if the tool then finished', () => {
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_RUNNING, cancelRequested: true })).status).toBe('cancelled');
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_SUCCEEDED, cancelRequested: true, result: response() })).status).toBe('cancelled');
    const why = new ToolHubError('failed', 'The run was cancelled before it started; nothing was run.');
    expect(taskStatusOf(run({ state: RunState.RUN_STATE_CANCELLED, error: errorInfo(why) }))).toEqual({ status: 'cancelled', statusMessage: why.message });
  });
});

describe('taskOf', () => {
  it('uses the run id, ISO times and the poll interval; ttl is creation to deletion (end + retention)', () => {
    const ended = run({ state: RunState.RUN_STATE_SUCCEEDED, result: response(), startedUnixMs: T0 + 100, finishedUnixMs: T0 + 2100, expiresUnixMs: T0 + 2100 + RETENTION });
    expect(taskOf(ended, { retentionMs: RETENTION, pollIntervalMs: 1000 })).toEqual({
      taskId: ended.runId,
      status: 'completed',
      statusMessage: 'Completed; tasks/result has the result.',
      createdAt: '2026-11-29T06:00:00.000Z',
      lastUpdatedAt: '2026-11-29T06:00:02.100Z',
      ttl: 2100 + RETENTION,
      pollInterval: 1000,
    });
  });

  it('while working, ttl counts as if the run ended now (a lower bound)', () => {
    const working = run({ state: RunState.RUN_STATE_RUNNING, startedUnixMs: T0 + 10 });
    const task = taskOf(working, { retentionMs: RETENTION, pollIntervalMs: 500, now: T0 + 30_000 });
    expect(task.ttl).toBe(30_000 + RETENTION);
    expect(task.lastUpdatedAt).toBe('2026-11-29T06:00:00.010Z');
  });
});

describe('taskResultOf', () => {
  const related = (id: string) => ({ 'io.modelcontextprotocol/related-task': { taskId: id } });

  it('answers what a synchronous tools/call answers, with the related-task _meta', () => {
    const res = response({ structured: { sum: 9 } });
    const r = run({ state: RunState.RUN_STATE_SUCCEEDED, result: res, finishedUnixMs: T0 + 1 });
    expect(taskResultOf(r, 16_000)).toEqual({ ...runResult(res, 'local:echo_text', 16_000), _meta: related(r.runId) });
  });

  it('a failed run answers isError with the same LLM-ready text as the synchronous failure', () => {
    const err = ToolHubError.invalidArgument('arguments do not match the schema of local:add_numbers', [{ field: 'a', message: 'must be number' }]);
    const r = run({ state: RunState.RUN_STATE_FAILED, error: errorInfo(err) });
    const result = taskResultOf(r, 16_000);
    expect(result).toEqual({ ...runFailureResult(err, 16_000), _meta: related(r.runId) });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Check the arguments against tool_info');
    expect(r.error!.code).toBe(ErrorCode.ERROR_CODE_INVALID_ARGUMENT);
  });

  it('a cancelled run still stopping answers isError saying it was cancelled', () => {
    const result = taskResultOf(run({ state: RunState.RUN_STATE_RUNNING, cancelRequested: true }), 16_000);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('cancelled');
  });
});
