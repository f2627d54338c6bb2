/** What the model reads back from `tool_start` and `tool_result` (async runs). */
import { errorCodeFromProto, type RunInfo, RunState, runStateName } from '@toolhub/contracts';

import { formatRun, truncate } from './format-result';


/** True once the run can change no more. */
export function isEnded(run: RunInfo): boolean {
  return run.state >= RunState.RUN_STATE_SUCCEEDED;
}

export function formatRunStarted(run: RunInfo): string {
  return `started run ${run.runId} (${run.state === RunState.RUN_STATE_UNSPECIFIED ? 'queued' : runStateName(run.state)}). next: tool_result {"run_id":"${run.runId}","wait_s":30}`;
}

/** A run's state, its progress and log tail while it goes on; its output or error once it ended. */
export function formatRunResult(run: RunInfo, maxChars: number): { content: string; isError: boolean } {
  const head = `run ${run.runId}: ${runStateName(run.state)} (${run.provider}:${run.name}, attempt ${run.attempts})`;
  if (!isEnded(run)) {
    const lines = [head];
    if (run.progress && (run.progress.total || run.progress.progress || run.progress.message)) {
      lines.push(`progress: ${run.progress.progress}${run.progress.total ? `/${run.progress.total}` : ''} ${run.progress.message}`.trimEnd());
    }
    for (const l of run.logLines.slice(-5)) lines.push(`log: ${l}`);
    lines.push(`not done yet. next: tool_result {"run_id":"${run.runId}","wait_s":30}`);
    return { content: truncate(lines.join('\n'), maxChars), isError: false };
  }
  if (run.result) {
    const r = formatRun(run.result, `${run.provider}:${run.name}`, maxChars);
    return { content: truncate(`${head}\n${r.content}`, maxChars), isError: r.isError };
  }
  const code = run.error ? errorCodeFromProto(run.error.code) : 'failed';
  return { content: truncate(`${head}\nerror ${code}: ${run.error?.message || 'the run ended without a result'}`, maxChars), isError: true };
}
