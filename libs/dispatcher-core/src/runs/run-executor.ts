/**
 * Works one queued run through the same run pipeline as RunTool (grants, validation, admission,
 * retries, one `tool.called` event per attempt), and records how it ended. A run found `running`
 * was cut short: if its worker still lives (it answers on `runs.owner.<instance>`) the run is
 * handed back; if not, an idempotent run starts again after a backoff and a non-idempotent one
 * ends `unknown` — never run twice behind the caller's back. The same holds when the adapter
 * replica dies mid-call: the pipeline retries an idempotent call on another replica at once, and a
 * non-idempotent run ends `unknown` (the lost call's error is marked, see outcome-unknown.ts).
 */
import type { SdkLogger } from '@toolhub/adapter-sdk';
import type { AuthMethod, Role } from '@toolhub/auth';
import { type Bus, isBusError } from '@toolhub/bus';
import { ErrorInfo, type RunProgress, RunStatus, type RunToolRequest, RunToolResponse, runOwnerSubject, ToolHubError, toToolHubError } from '@toolhub/contracts';
import type { CallContext } from '@toolhub/grpc-edge';
import type { RunRecord, RunStore } from '@toolhub/run-store';
import { setTimeout as sleep } from 'node:timers/promises';

import { isOutcomeUnknown } from '../outcome-unknown';
import type { RunPipeline } from '../run-pipeline';
import { backoffMs } from '../retry';
import { encodeBytes, toRunInfo } from './run-info';
import type { RunUpdates } from './run-updates';

/** Longest log line kept, and how many lines a run keeps (its tail). */
const MAX_LOG_CHARS = 1000;
export const MAX_LOG_LINES = 50;
/** Progress is written to the store at most this often per run (watchers hear every update). */
const PROGRESS_WRITE_MS = 1000;
/** Deliveries of a run id whose record cannot be found before it is dropped. */
const MISSING_RECORD_DELIVERIES = 5;

export interface RunExecutorDeps {
  store: RunStore;
  pipeline: Pick<RunPipeline, 'runTool'>;
  updates: RunUpdates;
  bus: Bus;
  log: SdkLogger;
  /** This dispatcher's instance id (the `owner` of the runs it works). */
  instanceId: string;
  retentionMs: number;
  /** The attempt window of the server (TOOLHUB_RUN_MAX_ATTEMPT): the pipeline's cap on timeout_ms for runs. */
  maxAttemptMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Told of each attempt's end: queue wait of a first attempt, run time, whether it was a retry. */
  onAttempt?: (sample: { queueWaitMs: number; runMs: number; retry: boolean; state: string }) => void;
}

/** A run this dispatcher is working on now. */
interface ActiveRun {
  abort: AbortController;
  cancelled: boolean;
}

export class RunExecutor {
  /** Runs in progress here, by id (cancel, owner checks). */
  readonly active = new Map<string, ActiveRun>();
  private readonly missing = new Map<string, number>();
  private stopping = false;

  constructor(private readonly deps: RunExecutorDeps) {}

  /** Serves `runs.owner.<instance>`: "1" while this dispatcher works the run, "0" otherwise. */
  serveOwnerChecks(): Promise<{ close(): Promise<void> }> {
    return this.deps.bus.serve(runOwnerSubject(this.deps.instanceId), (msg) => ({
      data: new TextEncoder().encode(this.active.has(new TextDecoder().decode(msg.data)) ? '1' : '0'),
      headers: {},
    }));
  }

  /** Aborts the attempt of `id` if it runs here (the pipeline tells the adapter to stop). */
  cancelLocal(id: string): boolean {
    const a = this.active.get(id);
    if (!a) return false;
    a.cancelled = true;
    a.abort.abort(new Error('the run was cancelled'));
    return true;
  }

  /**
   * Stops working: every attempt in progress is aborted (the adapter is told to stop) and handed
   * back unrecorded, so the queue gives it to another worker (or this process after a restart),
   * which retries it if that is safe and otherwise reports it `unknown`.
   */
  shutdown(): void {
    this.stopping = true;
    for (const a of this.active.values()) a.abort.abort(new Error('the dispatcher is stopping'));
  }

  /** The {@link RunWork} of the queue. */
  async work(id: string, redelivered: boolean): Promise<void> {
    if (this.stopping) throw new Error('the dispatcher is stopping');
    const run = await this.deps.store.get(id);
    if (!run) {
      // The record may not be visible yet, or its start failed half way: a few tries, then drop.
      const n = (this.missing.get(id) ?? 0) + 1;
      if (n >= MISSING_RECORD_DELIVERIES) {
        this.missing.delete(id);
        this.deps.log.warn({ runId: id }, 'queued run has no record; dropped it');
        return;
      }
      this.missing.set(id, n);
      throw new Error(`run ${id} has no record yet`);
    }
    this.missing.delete(id);
    if (run.state === 'queued') return this.attempt(run);
    if (run.state !== 'running') return; // ended: a duplicate delivery
    // Cut short, or a duplicate of a delivery still being worked.
    if (this.active.has(id)) {
      if (!redelivered) return; // a second queue message (see run-requeue.ts): the run is in hand
      throw new Error(`run ${id} is still running here`);
    }
    if (run.owner && run.owner !== this.deps.instanceId && (await this.ownerAlive(run.owner, id))) {
      // A first delivery of a message finding the run already taken by a live worker is a second
      // message of the run (a requeue, see run-requeue.ts), not the worker's own: dropped.
      if (!redelivered) return;
      this.deps.log.info({ runId: id, owner: run.owner }, 'async run delivered again while its worker still runs it; handed back');
      throw new Error(`run ${id} is still running on ${run.owner}`);
    }
    this.deps.log.warn({ runId: id, owner: run.owner, attempts: run.attempts, redelivered, retrySafe: run.retrySafe }, run.retrySafe ? 'async run cut short (its worker stopped); running it again' : 'async run cut short (its worker stopped) and not idempotent; reporting it unknown');
    if (run.cancelRequested) return void (await this.finish(run, 'cancelled', undefined, cancelError(run.cancelReason)));
    if (!run.retrySafe) {
      const e = new ToolHubError(
        'unavailable',
        `The worker running ${run.provider}:${run.name} (attempt ${run.attempts}) stopped before it finished, and the tool is not idempotent, so it was not run again: ` +
          'it may or may not have run. Check its effect before running it again; an idempotency_key makes such runs safe to retry.',
      );
      return void (await this.finish(run, 'unknown', undefined, e));
    }
    await sleep(backoffMs(run.attempts, this.deps.retryBaseMs, this.deps.retryMaxMs));
    const fresh = await this.deps.store.get(id);
    if (fresh && fresh.rev === run.rev) return this.attempt(fresh);
    throw new Error(`run ${id} changed while waiting to retry`);
  }

  /**
   * Safety net beside the queue's redelivery: takes over runs left `running` by a worker that is
   * gone (no responders on its owner subject). JetStream should redeliver such a run after its ack
   * wait, but in the e2e test (1 run in ~5 on a loaded machine) the new replica did not receive it
   * within 60 s — cause not established (a delivery to a pull request of the killed process that
   * the server still held is the suspect); this does not depend on the redelivery. Safe beside the queue: every
   * write is a compare-and-set, so only one taker wins, and the queue's copy then finds the run
   * running on a live worker (handed back) or ended (acknowledged).
   */
  async sweepOrphans(limit = 50): Promise<number> {
    if (this.stopping) return 0;
    let taken = 0;
    for (const run of await this.deps.store.listInStates(['running'], limit)) {
      if (!run.owner || run.owner === this.deps.instanceId || this.active.has(run.id)) continue;
      if (await this.ownerAlive(run.owner, run.id)) continue;
      taken++;
      void this.work(run.id, true).catch(() => undefined); // lost a race: another taker has it
    }
    return taken;
  }

  /** Asks the worker that holds a run whether it still works it. No responders: it is gone. */
  private async ownerAlive(owner: string, id: string): Promise<boolean> {
    try {
      const reply = await this.deps.bus.request(runOwnerSubject(owner), new TextEncoder().encode(id), { timeoutMs: 3000 });
      return new TextDecoder().decode(reply.data) === '1';
    } catch (err) {
      if (isBusError(err, 'no_responders')) return false;
      // A slow or unreachable owner is not a dead one: hand the run back and ask again later.
      return true;
    }
  }

  private async attempt(queued: RunRecord): Promise<void> {
    const now = Date.now();
    const firstAttempt = queued.attempts === 0;
    const run = await this.deps.store.replace({
      ...queued,
      state: 'running',
      attempts: queued.attempts + 1,
      owner: this.deps.instanceId,
      startedUnixMs: queued.startedUnixMs || now,
    });
    if (!run) throw new Error(`run ${queued.id} was changed by another writer`); // delivered again, read afresh
    const active: ActiveRun = { abort: new AbortController(), cancelled: false };
    this.active.set(run.id, active);
    this.publish(run, [], false);
    let current = run;
    let lastWrite = 0;
    const onProgress = (p: RunProgress): void => {
      const lines = p.log !== undefined ? [p.log.slice(0, MAX_LOG_CHARS)] : [];
      const progress = p.progress !== undefined || p.message !== undefined ? { progress: p.progress ?? current.progress?.progress ?? 0, total: p.total ?? current.progress?.total ?? 0, message: p.message ?? current.progress?.message ?? '' } : current.progress;
      current = { ...current, progress, logs: [...current.logs, ...lines].slice(-MAX_LOG_LINES) };
      this.publish(current, lines, false);
      // At most one write per PROGRESS_WRITE_MS, and the last update is always written (a trailing
      // write), so GetRun on any replica sees where the run stands once the updates pause.
      if (ended) return;
      const wait = PROGRESS_WRITE_MS - (Date.now() - lastWrite);
      if (wait <= 0) save();
      else trailing ??= setTimeout(save, wait);
    };
    let trailing: NodeJS.Timeout | undefined;
    // Progress writes go one after another and end before the run's last write: this worker never
    // writes one record twice at once. The revision check alone is not enough on FerretDB 1.24,
    // whose replaceOne({_id, rev}) lets two concurrent writers both match (a progress write could
    // put a finished run back to RUNNING).
    let saving: Promise<void> = Promise.resolve();
    let ended = false;
    const save = (): void => {
      trailing = undefined;
      lastWrite = Date.now();
      saving = saving.then(() => this.saveProgress(current)).catch((err: unknown) => this.deps.log.warn({ err, runId: run.id }, 'could not store run progress'));
    };
    const settleProgress = async (): Promise<void> => {
      ended = true;
      clearTimeout(trailing);
      await saving;
    };
    const call: CallContext = {
      deadline: Infinity,
      requestId: run.id,
      signal: active.abort.signal,
      arrivedUnixMs: Date.now(),
      principal: { id: run.principalId, roles: run.principalRoles as Role[], method: run.principalMethod as AuthMethod },
      onProgress,
    };
    const req: RunToolRequest = {
      provider: run.provider,
      name: run.name,
      arguments: JSON.parse(run.argumentsJson) as Record<string, unknown>,
      timeoutMs: run.timeoutMs,
      idempotencyKey: run.idempotencyKey,
      expectedVersion: run.expectedVersion,
      caller: run.caller,
      searchId: run.searchId,
    };
    const started = Date.now();
    let state: RunRecord['state'];
    try {
      // A run accepted under a larger window (another replica's setting) keeps what it was given.
      const res = await this.deps.pipeline.runTool(req, call, { maxTimeoutMs: Math.max(this.deps.maxAttemptMs, run.timeoutMs) });
      state = res.status === RunStatus.RUN_STATUS_TOOL_ERROR ? 'failed' : 'succeeded';
      await settleProgress();
      await this.finish(current, state, res, res.error ? ToolHubError.fromErrorInfo(res.error) : undefined);
    } catch (err) {
      if (this.stopping && !active.cancelled) throw err; // handed back (see shutdown)
      const cancelled = active.cancelled;
      // The adapter replica holding a non-idempotent call was lost: it may or may not have run, and
      // is not run again (an idempotent one was already retried on another replica by the pipeline).
      const unknown = !cancelled && !run.retrySafe && isOutcomeUnknown(err);
      state = cancelled ? 'cancelled' : unknown ? 'unknown' : 'failed';
      await settleProgress();
      const error = cancelled ? cancelError((await this.deps.store.get(run.id))?.cancelReason ?? '') : unknown ? replicaLostError(run, toToolHubError(err)) : toToolHubError(err);
      await this.finish(current, state, undefined, error);
    } finally {
      ended = true;
      clearTimeout(trailing);
      this.active.delete(run.id);
    }
    this.deps.onAttempt?.({ queueWaitMs: firstAttempt ? started - run.queuedUnixMs : 0, runMs: Date.now() - started, retry: !firstAttempt, state });
  }

  /** Writes the latest progress and log tail (compare-and-set; rereads on a conflict). */
  private async saveProgress(live: RunRecord): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const stored = await this.deps.store.get(live.id);
      if (!stored || stored.state !== 'running') return;
      if (await this.deps.store.replace({ ...stored, progress: live.progress, logs: live.logs })) return;
    }
  }

  /** Records the end of a run (compare-and-set, rereading on conflicts), then tells watchers. */
  async finish(run: RunRecord, state: RunRecord['state'], result: RunToolResponse | undefined, error: ToolHubError | undefined): Promise<RunRecord | undefined> {
    const now = Date.now();
    let base: RunRecord | undefined = run;
    for (let i = 0; i < 10 && base; i++) {
      if (base.state !== 'running' && base.state !== 'queued') return base; // someone else ended it
      const ended: RunRecord = {
        ...base,
        progress: run.progress ?? base.progress,
        logs: run.logs.length ? run.logs : base.logs,
        state,
        owner: '',
        finishedUnixMs: now,
        expiresUnixMs: now + this.deps.retentionMs,
        result: result ? encodeBytes(RunToolResponse.encode(result).finish()) : '',
        error: error ? encodeBytes(ErrorInfo.encode(error.toErrorInfo()).finish()) : '',
      };
      const stored = await this.deps.store.replace(ended);
      if (stored) {
        this.publish(stored, [], true);
        return stored;
      }
      base = await this.deps.store.get(run.id);
    }
    return base;
  }

  /** Ends a run that is still queued (one compare-and-set); undefined when it changed meanwhile. */
  async endQueued(run: RunRecord, error: ToolHubError): Promise<RunRecord | undefined> {
    if (run.state !== 'queued') return undefined;
    const now = Date.now();
    const stored = await this.deps.store.replace({
      ...run,
      state: 'cancelled',
      finishedUnixMs: now,
      expiresUnixMs: now + this.deps.retentionMs,
      error: encodeBytes(ErrorInfo.encode(error.toErrorInfo()).finish()),
    });
    if (stored) this.publish(stored, [], true);
    return stored;
  }

  private publish(run: RunRecord, newLogLines: string[], final: boolean): void {
    this.deps.updates.publish({ run: toRunInfo(run), newLogLines, final });
  }
}

function replicaLostError(run: RunRecord, lost: ToolHubError): ToolHubError {
  return new ToolHubError(
    'unavailable',
    `The adapter replica running ${run.provider}:${run.name} (attempt ${run.attempts}) went away before it answered, and the tool is not idempotent, so it was not run again: ` +
      `it may or may not have run. Check its effect before running it again; an idempotency_key makes such runs safe to retry. (${lost.message})`,
    { cause: lost, retryable: false },
  );
}

function cancelError(reason: string): ToolHubError {
  return new ToolHubError('failed', `The run was cancelled${reason ? ` (${reason})` : ''}; the adapter was told to stop it. Start it again if it is still needed.`);
}
