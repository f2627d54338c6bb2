/**
 * RunTools: a dependency-ordered batch of calls on top of the dispatcher's public methods. The
 * graph is planned (batch-plan.ts) and every tool checked visible to the caller before anything
 * runs; then each call starts as soon as the calls it depends on have succeeded (so a batch takes
 * about the sum of each level's slowest call), at most `max_parallel` at once. Each call is one
 * `Dispatcher.runTool`, so it is validated, admitted, retried and recorded (one tool.called event)
 * like any other; a call that fails fails only its dependants, which are reported as skipped.
 */
import type { CallContext } from '@toolhub/grpc-edge';
import {
  BatchCallState,
  type BatchCallResult,
  type ErrorInfo,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  RunStatus,
  type RunToolRequest,
  type RunToolResponse,
  type RunToolsRequest,
  type RunToolsResponse,
  ToolHubError,
  toToolHubError,
} from '@toolhub/contracts';

import { type BatchPlan, type BatchReference, type PlannedCall, planBatch } from './batch-plan';

export const DEFAULT_BATCH_PARALLEL = 8;
export const MAX_BATCH_PARALLEL = 32;

/** The two dispatcher methods a batch needs (the Dispatcher facade has both). */
export interface BatchTarget {
  runTool(req: RunToolRequest, call: CallContext): Promise<RunToolResponse>;
  getToolInfo(req: GetToolInfoRequest, call: CallContext): Promise<GetToolInfoResponse>;
}

/**
 * Runs `req`. `callerLimit` caps the parallelism further (the dispatcher's per-caller concurrency
 * limit, so a batch does not refuse its own calls as rate limited).
 * @throws ToolHubError invalid_argument when the graph or a tool is refused (nothing has run then)
 */
export async function runBatch(target: BatchTarget, req: RunToolsRequest, call: CallContext, callerLimit = Infinity): Promise<RunToolsResponse> {
  const started = call.arrivedUnixMs ?? Date.now();
  const plan = planBatch(req.calls);
  await checkVisible(target, plan, call);
  const limit = Math.max(1, Math.min(req.maxParallel || DEFAULT_BATCH_PARALLEL, MAX_BATCH_PARALLEL, callerLimit));
  const results = new Map<string, BatchCallResult>();
  const outputs = new Map<string, RunToolResponse>();
  const waiting = new Map(plan.calls.map((p) => [p.call.id, p.deps.length]));
  const dependants = new Map<string, PlannedCall[]>();
  for (const p of plan.calls) for (const d of p.deps) dependants.set(d, [...(dependants.get(d) ?? []), p]);

  const ready: PlannedCall[] = plan.calls.filter((p) => p.deps.length === 0);
  let running = 0;
  await new Promise<void>((resolveAll) => {
    const finish = (p: PlannedCall, result: BatchCallResult): void => {
      results.set(p.call.id, result);
      const ok = result.state === BatchCallState.BATCH_CALL_STATE_OK;
      for (const d of dependants.get(p.call.id) ?? []) {
        if (results.has(d.call.id)) continue;
        if (!ok) {
          skip(d, p.call.id);
          continue;
        }
        const left = waiting.get(d.call.id)! - 1;
        waiting.set(d.call.id, left);
        if (left === 0) ready.push(d);
      }
    };
    const skip = (p: PlannedCall, because: string): void => {
      const cause = results.get(because)!;
      const why = cause.state === BatchCallState.BATCH_CALL_STATE_SKIPPED ? 'was skipped' : cause.state === BatchCallState.BATCH_CALL_STATE_TOOL_ERROR ? 'reported a tool error' : 'failed';
      finish(p, {
        id: p.call.id,
        state: BatchCallState.BATCH_CALL_STATE_SKIPPED,
        result: undefined,
        error: new ToolHubError('failed_precondition', `Call ${p.call.id} was not run: call ${because}, which it depends on, ${why}${cause.error ? ` (${cause.error.message})` : ''}.`).toErrorInfo(),
        level: p.level,
        startedMs: 0,
        endedMs: 0,
      });
    };
    const pump = (): void => {
      while (running < limit && ready.length) {
        const p = ready.shift()!;
        // A caller gone or out of time: the calls not started yet are not started (no event).
        const stop = notStarting(call);
        if (stop) {
          finish(p, { id: p.call.id, state: BatchCallState.BATCH_CALL_STATE_FAILED, result: undefined, error: stop.toErrorInfo(), level: p.level, startedMs: 0, endedMs: 0 });
          continue;
        }
        running++;
        void runOne(target, p, outputs, req, call, started).then((result) => {
          running--;
          if (result.result) outputs.set(p.call.id, result.result);
          finish(p, result);
          pump();
        });
      }
      if (running === 0 && results.size === plan.calls.length) resolveAll();
    };
    pump();
  });
  return { results: plan.calls.map((p) => results.get(p.call.id)!), levels: plan.levels, latencyMs: Date.now() - started };
}

function notStarting(call: CallContext): ToolHubError | undefined {
  if (call.signal?.aborted) return new ToolHubError('failed_precondition', 'Not started: the batch was cancelled by its caller.');
  if (Date.now() >= call.deadline) return ToolHubError.timeout('Not started: the deadline of the RunTools request passed first; send the rest again with a larger deadline.');
  return undefined;
}

/** Every distinct tool must be one the caller may see: else the whole batch is refused up front. */
async function checkVisible(target: BatchTarget, plan: BatchPlan, call: CallContext): Promise<void> {
  const tools = new Map<string, PlannedCall[]>();
  for (const p of plan.calls) {
    const key = `${p.call.provider}:${p.call.name}`;
    tools.set(key, [...(tools.get(key) ?? []), p]);
  }
  const problems = (
    await Promise.all(
      [...tools.values()].map(async (ps) => {
        try {
          await target.getToolInfo({ provider: ps[0]!.call.provider, name: ps[0]!.call.name }, call);
          return [];
        } catch (err) {
          const e = toToolHubError(err);
          return ps.map((p) => ({ field: `/calls/${p.index}`, message: e.message, expected: e.suggestions.length ? `one of: ${e.suggestions.join(', ')}` : '' }));
        }
      }),
    )
  ).flat();
  if (problems.length) {
    throw ToolHubError.invalidArgument(`The batch was refused before any call ran: ${problems.map((v) => `${v.field}: ${v.message}`).join('; ')}`, problems);
  }
}

async function runOne(target: BatchTarget, p: PlannedCall, outputs: Map<string, RunToolResponse>, req: RunToolsRequest, call: CallContext, batchStart: number): Promise<BatchCallResult> {
  const startedMs = Date.now() - batchStart;
  const base = { id: p.call.id, level: p.level, startedMs };
  let args: Record<string, unknown>;
  try {
    args = substitute(p.call.arguments ?? {}, p.refs, outputs, p.index) as Record<string, unknown>;
  } catch (err) {
    return { ...base, state: BatchCallState.BATCH_CALL_STATE_FAILED, result: undefined, error: toToolHubError(err).toErrorInfo(), endedMs: Date.now() - batchStart };
  }
  try {
    const res = await target.runTool(
      {
        provider: p.call.provider,
        name: p.call.name,
        arguments: args,
        timeoutMs: p.call.timeoutMs,
        idempotencyKey: p.call.idempotencyKey,
        expectedVersion: p.call.expectedVersion,
        caller: req.caller,
        searchId: req.searchId,
      },
      // Each call's timeout counts from its own start, not from the batch's arrival.
      { ...call, arrivedUnixMs: Date.now(), requestId: `${call.requestId}.${p.call.id}` },
    );
    const toolError = res.status === RunStatus.RUN_STATUS_TOOL_ERROR;
    return {
      ...base,
      state: toolError ? BatchCallState.BATCH_CALL_STATE_TOOL_ERROR : BatchCallState.BATCH_CALL_STATE_OK,
      result: res,
      error: toolError ? res.error : undefined,
      endedMs: Date.now() - batchStart,
    };
  } catch (err) {
    return { ...base, state: BatchCallState.BATCH_CALL_STATE_FAILED, result: undefined, error: toToolHubError(err).toErrorInfo() as ErrorInfo, endedMs: Date.now() - batchStart };
  }
}

/** The value a reference reads from: the call's answer as {structured, content, text}. */
function referenceRoot(res: RunToolResponse, root: BatchReference['root']): unknown {
  if (root === 'structured') return res.structured;
  if (root === 'content') return res.content.map((c) => ({ ...c }));
  return res.content
    .map((c) => (c as { text?: string }).text)
    .filter((t) => typeof t === 'string')
    .join('\n');
}

/** `args` with every reference replaced. @throws ToolHubError invalid_argument when a pointer finds nothing */
function substitute(args: unknown, refs: BatchReference[], outputs: Map<string, RunToolResponse>, index: number): unknown {
  if (refs.length === 0) return args;
  let out = structuredClone(args) as Record<string, unknown>;
  for (const r of refs) {
    let value = referenceRoot(outputs.get(r.call)!, r.root);
    for (const [i, t] of r.tokens.entries()) {
      const next = value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, t) ? (value as Record<string, unknown>)[t] : undefined;
      if (next === undefined) {
        const shown = r.tokens.slice(0, i).join('/');
        const keys = value !== null && typeof value === 'object' ? Object.keys(value).slice(0, 20) : [];
        throw ToolHubError.invalidArgument(
          `Call ${r.call}'s output has nothing at ${r.ref}: ${r.root}${shown ? `/${shown}` : ''} ${keys.length ? `has only the keys ${keys.join(', ')}` : `is ${JSON.stringify(value)?.slice(0, 80) ?? 'absent'}`}.`,
          [{ field: `/calls/${index}/arguments${r.at}`, message: `${r.ref} resolved to nothing`, expected: keys.length ? `a pointer through one of: ${keys.join(', ')}` : '' }],
        );
      }
      value = next;
    }
    out = setAt(out, r.at, value) as Record<string, unknown>;
  }
  return out;
}

function setAt(root: unknown, at: string, value: unknown): unknown {
  const tokens = at.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (tokens.length === 0) return value;
  let node = root as Record<string, unknown>;
  for (const t of tokens.slice(0, -1)) node = node[t] as Record<string, unknown>;
  node[tokens.at(-1)!] = value;
  return root;
}
