/** Run records as the API shows them (RunInfo), run ids and ListRuns page tokens. */
import { ErrorInfo, type RunInfo, RunState, RunToolResponse, ToolHubError } from '@toolhub/contracts';
import type { RunRecord, RunRecordState } from '@toolhub/run-store';
import { randomBytes } from 'node:crypto';

const STATES: Record<RunRecordState, RunState> = {
  queued: RunState.RUN_STATE_QUEUED,
  running: RunState.RUN_STATE_RUNNING,
  succeeded: RunState.RUN_STATE_SUCCEEDED,
  failed: RunState.RUN_STATE_FAILED,
  cancelled: RunState.RUN_STATE_CANCELLED,
  unknown: RunState.RUN_STATE_UNKNOWN,
};

/** The stored state of an API state filter; undefined for UNSPECIFIED (every state). */
export function recordStateOf(state: RunState): RunRecordState | undefined {
  return (Object.entries(STATES) as Array<[RunRecordState, RunState]>).find(([, s]) => s === state)?.[0];
}

/** A new run id: `run_` + the time in base 36 (so ids sort by creation) + 16 random hex digits. */
export function newRunId(nowUnixMs = Date.now()): string {
  return `run_${nowUnixMs.toString(36).padStart(10, '0')}${randomBytes(8).toString('hex')}`;
}

/** Run ids are checked before they reach a store query. */
export const RUN_ID_PATTERN = /^run_[0-9a-z]{10}[0-9a-f]{16}$/;

export function encodeBytes(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

function decodeBytes(b64: string): Uint8Array {
  return new Uint8Array(Buffer.from(b64, 'base64'));
}

/** The stored error of a run, as a ToolHubError. */
export function recordError(run: RunRecord): ToolHubError | undefined {
  return run.error ? ToolHubError.fromErrorInfo(ErrorInfo.decode(decodeBytes(run.error))) : undefined;
}

/** RunInfo of a record (`logs` may be the live tail of a run in progress). */
export function toRunInfo(run: RunRecord): RunInfo {
  return {
    runId: run.id,
    state: STATES[run.state],
    provider: run.provider,
    name: run.name,
    attempts: run.attempts,
    queuedUnixMs: run.queuedUnixMs,
    startedUnixMs: run.startedUnixMs,
    finishedUnixMs: run.finishedUnixMs,
    result: run.result ? RunToolResponse.decode(decodeBytes(run.result)) : undefined,
    error: run.error ? ErrorInfo.decode(decodeBytes(run.error)) : undefined,
    progress: run.progress ? { ...run.progress } : undefined,
    logLines: [...run.logs],
    idempotencyKey: run.idempotencyKey,
    caller: run.caller,
    expiresUnixMs: run.expiresUnixMs,
    cancelRequested: run.cancelRequested,
  };
}

/** ListRuns page tokens: the last run id of the page, opaque to the caller. */
export function pageTokenOf(lastId: string): string {
  return Buffer.from(lastId).toString('base64url');
}

/** The run id a page token names. @throws ToolHubError invalid_argument for a token ListRuns did not issue. */
export function pageTokenId(token: string): string {
  const id = Buffer.from(token, 'base64url').toString();
  if (!RUN_ID_PATTERN.test(id)) {
    throw ToolHubError.invalidArgument('page_token is not one ListRuns returned; send the next_page_token of the previous page, or none for the first page.', [
      { field: 'page_token', message: 'not a ListRuns page token' },
    ]);
  }
  return id;
}
