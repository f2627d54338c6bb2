/**
 * The run side of the dispatcher, below every door: admission (per caller and global), the
 * caller's deadline, validation and repair of arguments, routing to the adapter named by
 * `provider`, retries where they are safe, fallback chains, cancellation, and one durable
 * `tool.called` event per run.
 */
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { AdapterClient, SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus } from '@toolhub/bus';
import { callerLabel, limitKey } from '@toolhub/auth';
import {
  AdapterRunCancel,
  adapterCancelSubject,
  type AppliedFix,
  assertProviderName,
  assertRunIdentifiers,
  assertToolName,
  ErrorCode,
  errorCodeToProto,
  HEADER_ACK_SUBJECT,
  parseToolId,
  type RegisteredTool,
  RunStatus,
  type RunToolRequest,
  type RunToolResponse,
  ToolHubError,
  toolId,
  type ToolInfo,
  toToolHubError,
} from '@toolhub/contracts';
import { callAborted, callAbortedByDeadline, type CallContext, principalOf, tracerProviderRegistered, whenCallAborted } from '@toolhub/grpc-edge';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { AdmissionGate } from './admission';
import { checkArgumentLimits } from './arguments';
import type { CallEventPublisher } from './call-events';
import type { CatalogService } from './catalog';
import type { InflightTracker } from './inflight';
import type { CallerLimiter } from './limits';
import type { ResolvedDispatcherOptions } from './options';
import type { ProgressListening, ProgressRouter } from './progress-router';
import { backoffMs, isRetrySafe, isRetryableCode, triggersFallback } from './retry';
import { type ArgumentsValidator, mapArgumentsByName } from './validator';

/** What the run pipeline uses. */
export interface RunPipelineDeps {
  bus: Bus;
  client: AdapterClient;
  catalog: CatalogService;
  admission: AdmissionGate;
  limiter: CallerLimiter;
  inflight: InflightTracker;
  /** Where adapters' progress updates reach `CallContext.onProgress` (used only when it is set). */
  progress: ProgressRouter;
  callEvents: CallEventPublisher;
  validator: ArgumentsValidator | undefined;
  options: ResolvedDispatcherOptions;
  log: SdkLogger;
}

/** How a run ended, as its `tool.called` event records it. */
interface Outcome {
  status: string;
  code: ErrorCode;
  attempts: number;
  fallback: string;
}

const tracer = trace.getTracer('@toolhub/dispatcher-core');

export class RunPipeline {
  constructor(private readonly deps: RunPipelineDeps) {}

  /**
   * Runs one call. `limits.maxTimeoutMs` replaces the dispatcher's cap on `timeout_ms`
   * (maxRunTimeoutMs) — async runs have their own attempt window (TOOLHUB_RUN_MAX_ATTEMPT).
   */
  async runTool(req: RunToolRequest, call: CallContext, limits: { maxTimeoutMs?: number } = {}): Promise<RunToolResponse> {
    const { options } = this.deps;
    const maxTimeoutMs = limits.maxTimeoutMs ?? options.maxRunTimeoutMs;
    assertProviderName(req.provider);
    assertToolName(req.name);
    // Timeouts count from the call's arrival at the edge, so time spent queued is part of them.
    const started = call.arrivedUnixMs ?? Date.now();
    const id = toolId(req.provider, req.name);
    const wanted = Math.min(req.timeoutMs || options.defaultRunTimeoutMs, maxTimeoutMs);
    const deadline = Math.min(started + wanted, call.deadline);
    const principal = principalOf(call);
    const caller = callerLabel(principal, req.caller);
    const args = req.arguments ?? {};
    let release: (() => void) | undefined;
    let admitted: (() => void) | Promise<() => void>;
    try {
      checkArgumentLimits(args, options);
      assertRunIdentifiers(req);
      this.assertBusConnected();
      release = this.deps.limiter.acquire(limitKey(principal, req.caller));
      // A free slot needs no signal; only a call that has to wait listens for its caller leaving.
      admitted = this.deps.admission.tryAdmit() ?? this.deps.admission.admit(deadline, call.signal);
    } catch (err) {
      // Refused before any run was set up (shed under overload, an invalid request, the bus down):
      // answered and recorded without the run's span or anything else per run, because under
      // overload most calls end here and what they cost delays the calls that were admitted.
      release?.();
      const e = toToolHubError(err);
      const stored = this.recordCall(req, call, id, caller, started, { status: e.code, code: errorCodeToProto(e.code), attempts: 0, fallback: '' });
      if (stored) await stored;
      throw e;
    }
    // One object per call, updated in place (read by recordCall when the run ends).
    const outcome: Outcome = { status: 'internal', code: ErrorCode.ERROR_CODE_INTERNAL, attempts: 0, fallback: '' };
    const run = async (span: Span | undefined): Promise<RunToolResponse> => {
      let slot: (() => void) | undefined;
      try {
        slot = typeof admitted === 'function' ? admitted : await admitted;
        const primary = this.deps.catalog.resolveVisibleNow(req.provider, req.name, call) ?? (await this.deps.catalog.resolveVisible(req.provider, req.name, call));
        const info = primary.tool!;
        if (req.expectedVersion && req.expectedVersion !== info.version) {
          throw new ToolHubError(
            'failed_precondition',
            `Tool ${id} changed since you loaded it (you have version ${req.expectedVersion}, it is now ${info.version}): ${info.description.split(/(?<=[.!?])\s/)[0]} ` +
              'Call tool_info again and build the arguments from the new schema.',
          );
        }
        // Without a timeout from the caller, the tool's own default applies (a cloud document's
        // `timeout`, an MCP server's), within the dispatcher's maximum and the caller's deadline.
        const runDeadline = req.timeoutMs || !info.defaultTimeoutMs ? deadline : Math.min(started + Math.min(info.defaultTimeoutMs, maxTimeoutMs), call.deadline);
        const result = await this.runChain(primary, args, req, call, runDeadline, outcome);
        const toolError = result.status === RunStatus.RUN_STATUS_TOOL_ERROR;
        outcome.status = toolError ? 'tool_error' : 'ok';
        outcome.code = toolError ? ErrorCode.ERROR_CODE_FAILED : ErrorCode.ERROR_CODE_UNSPECIFIED;
        result.latencyMs = Date.now() - started;
        return result;
      } catch (err) {
        const e = toToolHubError(err);
        outcome.status = e.code;
        outcome.code = errorCodeToProto(e.code);
        span?.recordException(e);
        span?.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
        throw e;
      } finally {
        slot?.();
        release?.();
        span?.end();
        const stored = this.recordCall(req, call, id, caller, started, outcome);
        if (stored) await stored;
      }
    };
    // No tracer provider registered (nothing recorded): no span; the caller's trace context still
    // reaches the adapter in `call.traceHeaders`.
    if (!tracerProviderRegistered()) return run(undefined);
    return tracer.startActiveSpan(`dispatcher.run ${id}`, { kind: SpanKind.INTERNAL, attributes: { 'toolhub.tool_id': id } }, context.active(), run);
  }

  /**
   * Records the `tool.called` event of a RunTool with the outcome the caller saw: a caller that
   * went away saw no result at all, and one whose gRPC deadline passed got DEADLINE_EXCEEDED from
   * grpc-js whatever we found. (grpc-js also signals "cancelled" when it ends a call at its
   * deadline: that is checked first.) Waits until the event is durable: on disk with the outbox
   * (one append for the events of one turn), in JetStream with durability 'ack'. Returns that wait,
   * or undefined when there is none: not an async function, which would cost a promise per call.
   */
  private recordCall(req: RunToolRequest, call: CallContext, id: string, caller: string, started: number, outcome: Outcome): Promise<void> | undefined {
    let { status, code } = outcome;
    if (Date.now() >= call.deadline || callAbortedByDeadline(call)) [status, code] = ['timeout', ErrorCode.ERROR_CODE_TIMEOUT];
    else if (callAborted(call)) [status, code] = ['cancelled', ErrorCode.ERROR_CODE_UNSPECIFIED];
    const stored = this.deps.callEvents.record({
      eventId: randomUUID(),
      toolId: id,
      provider: req.provider,
      name: req.name,
      status,
      errorCode: code,
      latencyMs: Date.now() - started,
      attempts: Math.max(1, outcome.attempts),
      fallbackUsed: outcome.fallback,
      caller,
      timestampUnixMs: started,
      searchId: req.searchId,
      claimGroup: '', // stamped by the publisher when it publishes grouped
    });
    // The reply waits until the event is durable: outbox, on disk; 'ack', in JetStream.
    return stored;
  }

  /** Fails a run at once while the bus is down, instead of letting it wait for its whole deadline. */
  private assertBusConnected(): void {
    const c = this.deps.bus.connection?.();
    if (c && !c.connected) {
      const e = ToolHubError.unavailable(
        `ToolHub's message bus (NATS) is unreachable (${c.detail}), so no tool can run right now. Retry in a few seconds; nothing was run.`,
      );
      throw new ToolHubError(e.code, e.message, { retryAfterMs: 1000, retryable: true });
    }
  }

  /**
   * Runs the primary tool, then its fallbacks in order, retrying each where that is safe; counts
   * the attempts and the fallback used in `outcome` as it goes. The answer's `latencyMs` is the
   * caller's to set.
   */
  private async runChain(primary: RegisteredTool, args: Record<string, unknown>, req: RunToolRequest, call: CallContext, deadline: number, outcome: Outcome): Promise<RunToolResponse> {
    const { options, validator } = this.deps;
    const chain: Array<RegisteredTool | string> = [primary, ...(primary.overlay?.fallbacks ?? [])];
    const tried: string[] = [];
    let attempts = 0;
    let lastError: ToolHubError | undefined;
    for (const [index, entry] of chain.entries()) {
      if (Date.now() >= deadline || callAborted(call)) break;
      let candidate: RegisteredTool;
      let candidateArgs = args;
      if (typeof entry === 'string') {
        const ref = parseToolId(entry);
        if (!ref) continue;
        try {
          // A fallback outside the caller's grants is skipped like a missing one.
          candidate = await this.deps.catalog.resolveVisible(ref.provider, ref.name, call);
        } catch {
          continue; // An unreachable fallback is skipped, not fatal: the next one may work.
        }
        candidateArgs = mapArgumentsByName(args, candidate.tool!);
      } else candidate = entry;
      const info = candidate.tool!;
      let validated: { args: Record<string, unknown>; fixes: AppliedFix[] };
      try {
        const checked = validator ? validator.validate(info, candidateArgs) : { args: candidateArgs, fixes: [] };
        validated = checked instanceof Promise ? await checked : checked; // large arguments: on a worker thread
      } catch (err) {
        if (index === 0) throw err; // The caller's own mistake: report it, do not paper over it.
        continue;
      }
      tried.push(info.id);
      for (let attempt = 1; ; attempt++) {
        attempts++;
        outcome.attempts = attempts;
        outcome.fallback = index > 0 ? info.id : '';
        try {
          const res = await this.runOnce(info, validated.args, req, call, deadline);
          const toolError = res.status === RunStatus.RUN_STATUS_TOOL_ERROR;
          return {
            status: toolError ? RunStatus.RUN_STATUS_TOOL_ERROR : RunStatus.RUN_STATUS_OK,
            content: res.content,
            error: toolError
              ? { code: ErrorCode.ERROR_CODE_FAILED, message: res.errorMessage, violations: [], suggestions: [], parentPath: '', fixes: [], retryable: false, retryAfterMs: 0 }
              : undefined,
            fixes: validated.fixes,
            attempts,
            servedBy: info.id,
            latencyMs: 0,
            structured: res.structured,
          };
        } catch (err) {
          lastError = toToolHubError(err);
          const wait = backoffMs(attempt, options.retryBaseMs, options.retryMaxMs, lastError.retryAfterMs);
          const canRetry =
            attempt < options.maxAttempts && isRetryableCode(lastError) && isRetrySafe(info, req.idempotencyKey) && Date.now() + wait < deadline && !callAborted(call);
          if (!canRetry) break;
          await sleep(wait);
        }
      }
      if (!lastError || !triggersFallback(lastError)) break;
    }
    if (!lastError) throw ToolHubError.timeout(`The deadline of ${toolId(req.provider, req.name)} passed before it could run; retry with a larger timeout_ms.`);
    if (tried.length > 1) {
      throw new ToolHubError(lastError.code, `${lastError.message} (tried ${tried.join(', then ')}; ${attempts} attempts in all)`, { cause: lastError, suggestions: lastError.suggestions });
    }
    throw lastError;
  }

  private async runOnce(info: ToolInfo, args: Record<string, unknown>, req: RunToolRequest, call: CallContext, deadline: number) {
    // Progress only when a door listens: otherwise no subscription, no header, nothing allocated.
    // Per attempt: a retry or a fallback to another provider listens anew, under its own subject.
    const listening: ProgressListening | undefined = call.onProgress ? await this.deps.progress.listen(info.provider, call.onProgress) : undefined;
    const tracked = this.deps.inflight.begin(info.provider);
    // The caller went away: tell the replica running the call to stop it (and through it the MCP
    // server or HTTP API), and stop waiting for its answer (`tracked.watch` rejects: no promise of
    // its own per call for this). On the edge's signals a hook, cheaper than an abort listener.
    const unhook = whenCallAborted(call, () => {
      this.cancelRun(info.provider, tracked.headers[HEADER_ACK_SUBJECT]!, 'the caller cancelled the call');
      tracked.cancel(ToolHubError.unavailable('The caller cancelled the call; the adapter was asked to stop it.'));
    });
    try {
      // A lost replica's error stays as it is (not "unknown provider"), even when it was the last one.
      const result = tracked.watch(
        this.deps.catalog.guardProvider(
          info.provider,
          () =>
            this.deps.client.run(
              info.provider,
              { name: info.name, arguments: args, deadlineUnixMs: deadline, idempotencyKey: req.idempotencyKey, caller: callerLabel(principalOf(call), req.caller) },
              // The bus timeout outlives the adapter's own deadline a little, so the adapter's
              // precise TIMEOUT reply wins over a generic bus timeout.
              { timeoutMs: Math.max(1, deadline - Date.now() + 250), requestId: call.requestId, headers: runHeaders(call, tracked.headers, listening) },
            ),
          { name: info.name },
        ),
      );
      // The adapter sends its last update just before the reply, but a bus may hand the reply over
      // first (the in-process bus delivers publishes on a later turn, NATS in order): one turn lets
      // it reach the listener before the door sends the result (or the next attempt starts).
      if (!listening) return await result;
      await result.then(oneTurn, oneTurn);
      return await result;
    } finally {
      unhook?.();
      tracked.end();
      listening?.end();
    }
  }

  /** Fan-out to the provider's replicas; the one holding `callRef` aborts the run. Best effort. */
  private cancelRun(provider: string, callRef: string, reason: string): void {
    try {
      this.deps.bus.publish(adapterCancelSubject(provider), AdapterRunCancel.encode({ callRef, reason }).finish());
    } catch (err) {
      this.deps.log.warn({ err, provider }, 'could not send a run cancellation to the adapter');
    }
  }
}

/** Resolves on the event loop's next turn. */
function oneTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Headers of one run request: the caller's trace context, the acknowledgement subject, and the progress subject when someone listens. */
function runHeaders(call: CallContext, tracked: Record<string, string>, listening: ProgressListening | undefined): Record<string, string> {
  if (!call.traceHeaders && !listening) return tracked;
  return { ...call.traceHeaders, ...tracked, ...listening?.headers };
}
