/**
 * Async runs from the shell: `toolhub run --async` (prints the run id), `toolhub runs ls`,
 * `runs get <id>`, `runs watch <id>` (state changes and log lines as they come, then the result)
 * and `runs cancel <id>`. With --json each prints one JSON document (watch: the last update).
 */
import { RUN_STATE_NAMES, type RunInfo, RunState, runStateName, RunStatus } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { jsonDocument } from '../format';
import { parseToolArguments, parseToolRef } from '../parse';
import { type RunOptions, blockText, toolErrorJson } from './run';

const stateName = runStateName;
const time = (ms: number) => (ms ? new Date(ms).toISOString() : '-');

/** A run for --json: states and error codes by name, the result as the run command prints it. */
function runJson(r: RunInfo): unknown {
  return {
    runId: r.runId,
    state: stateName(r.state),
    tool: `${r.provider}:${r.name}`,
    attempts: r.attempts,
    queuedUnixMs: r.queuedUnixMs,
    startedUnixMs: r.startedUnixMs,
    finishedUnixMs: r.finishedUnixMs,
    expiresUnixMs: r.expiresUnixMs,
    ...(r.progress ? { progress: r.progress } : {}),
    logLines: r.logLines,
    ...(r.result ? { result: { status: r.result.status === RunStatus.RUN_STATUS_TOOL_ERROR ? 'tool_error' : 'ok', content: r.result.content, structured: r.result.structured, servedBy: r.result.servedBy } } : {}),
    ...(r.error ? { error: toolErrorJson(r.error) } : {}),
    ...(r.cancelRequested ? { cancelRequested: true } : {}),
  };
}

/** Exit code of a run as it is: 0 succeeded or still going, 1 the tool reported an error, 6 failed/cancelled/unknown. */
function exitOf(r: RunInfo): ExitCode {
  if (r.state === RunState.RUN_STATE_SUCCEEDED) return EXIT_CODES.ok;
  if (r.state === RunState.RUN_STATE_FAILED && r.result?.status === RunStatus.RUN_STATUS_TOOL_ERROR) return EXIT_CODES.toolError;
  if (r.state === RunState.RUN_STATE_FAILED || r.state === RunState.RUN_STATE_CANCELLED || r.state === RunState.RUN_STATE_UNKNOWN) return EXIT_CODES.other;
  return EXIT_CODES.ok;
}

/** Prints a run for people: a summary on stderr, the tool's output on stdout. */
function printRun(ctx: CommandContext, r: RunInfo): void {
  ctx.out.note(`run ${r.runId}: ${stateName(r.state)} (${r.provider}:${r.name}, ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}; queued ${time(r.queuedUnixMs)}, finished ${time(r.finishedUnixMs)})`);
  if (r.progress) ctx.out.note(`progress: ${r.progress.progress}${r.progress.total ? `/${r.progress.total}` : ''} ${r.progress.message}`.trimEnd());
  if (r.result) {
    let body = r.result.content.map(blockText).filter((t) => t !== '').join('\n');
    if (body === '' && r.result.structured !== undefined) body = jsonDocument(r.result.structured).trimEnd();
    if (body !== '') ctx.io.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
  }
  if (r.error) ctx.out.note(`error: ${r.error.message}`);
}

/** `toolhub run --async`: starts the run and prints its id (stdout), or the run as JSON. */
export async function startRunCommand(ctx: CommandContext, first: string, second: string | undefined, options: RunOptions): Promise<ExitCode> {
  if (options.progress) {
    // An async run outlives this command, so there is no progress to print here: refused, not ignored.
    throw new CliUsageError(
      '--progress and --async do not combine: --async returns at once with the run id, before any progress.',
      `toolhub run ${[first, second].filter(Boolean).join(' ')} --async, then toolhub runs watch <run-id> to follow its progress and log lines (or drop --async to run it here with --progress).`,
    );
  }
  const ref = parseToolRef(first, second, 'run');
  const args = await parseToolArguments(options.args, options.arg ?? [], ctx.io.readStdin);
  const { run } = await (await ctx.session.agent()).startRun({
    provider: ref.provider,
    name: ref.name,
    arguments: args,
    timeoutMs: ctx.settings.timeoutMs ?? 0,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
  });
  if (ctx.out.json) ctx.out.document(runJson(run!));
  else {
    ctx.out.line(run!.runId);
    ctx.out.note(`queued; follow it with: toolhub runs watch ${run!.runId}`);
  }
  return EXIT_CODES.ok;
}

/** Options of `runs ls`. */
export interface RunsLsOptions {
  state?: string;
  limit?: number;
  pageToken?: string;
}

export async function runsLsCommand(ctx: CommandContext, options: RunsLsOptions): Promise<ExitCode> {
  const state = options.state ? (Object.entries(RUN_STATE_NAMES).find(([, n]) => n === options.state)?.[0] ?? '0') : '0';
  const res = await (await ctx.session.agent()).listRuns({ pageSize: options.limit ?? 0, pageToken: options.pageToken ?? '', state: Number(state) as RunState });
  if (ctx.out.json) {
    ctx.out.document({ runs: res.runs.map(runJson), nextPageToken: res.nextPageToken });
    return EXIT_CODES.ok;
  }
  if (res.runs.length === 0) {
    ctx.out.note('You have no async runs (start one with toolhub run --async).');
    return EXIT_CODES.ok;
  }
  ctx.out.table(
    [{ header: 'RUN' }, { header: 'STATE' }, { header: 'TOOL' }, { header: 'ATTEMPTS', align: 'right' }, { header: 'QUEUED' }, { header: 'FINISHED', flex: true }],
    res.runs.map((r) => [r.runId, stateName(r.state), `${r.provider}:${r.name}`, String(r.attempts), time(r.queuedUnixMs), time(r.finishedUnixMs)]),
  );
  if (res.nextPageToken) ctx.out.note(`more: toolhub runs ls --page-token ${res.nextPageToken}`);
  return EXIT_CODES.ok;
}

export async function runsGetCommand(ctx: CommandContext, runId: string): Promise<ExitCode> {
  const { run } = await (await ctx.session.agent()).getRun(runId);
  if (ctx.out.json) ctx.out.document(runJson(run!));
  else printRun(ctx, run!);
  return exitOf(run!);
}

export async function runsCancelCommand(ctx: CommandContext, runId: string, options: { reason?: string }): Promise<ExitCode> {
  const { run } = await (await ctx.session.agent()).cancelRun(runId, options.reason ?? 'cancelled from the toolhub CLI');
  if (ctx.out.json) ctx.out.document(runJson(run!));
  else ctx.out.note(`run ${run!.runId}: ${stateName(run!.state)}${run!.cancelRequested ? ' (cancellation asked; the worker stops it)' : ''}`);
  return EXIT_CODES.ok;
}

/** Follows a run to its end: state changes and log lines on stderr as they come, then the result. */
export async function runsWatchCommand(ctx: CommandContext, runId: string): Promise<ExitCode> {
  let last: RunInfo | undefined;
  let lastState: RunState | undefined;
  // --timeout bounds the whole watch (default: the client's run deadline).
  for await (const u of (await ctx.session.agent()).watchRun(runId, ctx.settings.timeoutMs ? { deadlineMs: ctx.settings.timeoutMs } : {})) {
    last = u.run;
    if (!ctx.out.json) {
      if (u.run && u.run.state !== lastState) ctx.out.note(`${new Date().toISOString()} ${stateName(u.run.state)}`);
      for (const l of u.newLogLines) ctx.out.note(`log: ${l}`);
    }
    lastState = u.run?.state;
  }
  if (!last) return EXIT_CODES.other;
  if (ctx.out.json) ctx.out.document(runJson(last));
  else printRun(ctx, last);
  return exitOf(last);
}
