/**
 * Async runs: StartRun, GetRun, WatchRun, CancelRun and ListRuns over a durable run store and a
 * queue ({@link RunQueue}); the work itself is {@link RunExecutor}'s. A run belongs to the
 * principal that started it: for every other principal it does not exist (the same NOT_FOUND as a
 * missing id), whatever its roles.
 */
import type { SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus, Subscription } from '@toolhub/bus';
import {
  assertProviderName,
  assertRunIdentifiers,
  type CancelRunRequest,
  type CancelRunResponse,
  contentHash,
  type GetRunRequest,
  type GetRunResponse,
  type ListRunsRequest,
  type ListRunsResponse,
  RUNS_CANCEL_SUBJECT,
  type StartRunRequest,
  type StartRunResponse,
  ToolHubError,
  toolId,
  type WatchRunRequest,
  type WatchRunResponse,
} from '@toolhub/contracts';
import { type CallContext, principalOf } from '@toolhub/grpc-edge';
import { queuedRunRecord, type RunRecord, type RunStore, TERMINAL_RUN_STATES } from '@toolhub/run-store';
import { randomUUID } from 'node:crypto';

import { checkArgumentDepth } from '../arguments';
import type { CatalogService } from '../catalog';
import type { RunPipeline } from '../run-pipeline';
import { isRetrySafe } from '../retry';
import type { QueueLimits } from './queue-limits';
import { RunExecutor } from './run-executor';
import { newRunId, pageTokenId, pageTokenOf, RUN_ID_PATTERN, recordStateOf, toRunInfo } from './run-info';
import type { RunQueue } from './run-queue';
import { requeueStale } from './run-requeue';
import { RunUpdates } from './run-updates';

/** Settings of async runs. */
export interface AsyncRunsOptions {
  /** How long an ended run's record (and result) is kept. @default 24 h */
  retentionMs?: number;
  /** How often expired runs are deleted. @default 60000 */
  sweepIntervalMs?: number;
  /** How often a WatchRun stream re-reads the store (in case a pushed update was missed). @default 2000 */
  watchPollMs?: number;
  /**
   * How often runs left `running` by a dispatcher that is gone are looked for and taken over
   * (retried or reported unknown); 0 = never (one process: the restart does it). @default 0
   */
  orphanSweepMs?: number;
  /**
   * With the orphan sweep: a run still `queued` this long after it was queued is queued again (its
   * queue message may be lost: a crash between the record and the queue; see run-requeue.ts). @default 60000
   */
  requeueAfterMs?: number;
}

export interface AsyncRunsDeps {
  store: RunStore;
  queue: RunQueue;
  bus: Bus;
  pipeline: Pick<RunPipeline, 'runTool'>;
  catalog: Pick<CatalogService, 'resolveVisible'>;
  log: SdkLogger;
  maxArgumentDepth: number;
  /** Longest `timeout_ms` one attempt may ask for; StartRun refuses more. */
  maxAttemptMs: number;
  /** Bounds on queued runs (per principal, in total). */
  queueLimits: QueueLimits;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Statistics of each attempt (metrics). */
  onAttempt?: (sample: { queueWaitMs: number; runMs: number; retry: boolean; state: string }) => void;
}

const terminal = (run: RunRecord) => TERMINAL_RUN_STATES.includes(run.state);

export class AsyncRuns {
  readonly retentionMs: number;
  private readonly executor: RunExecutor;
  private readonly updates: RunUpdates;
  private readonly subs: Array<{ close(): Promise<void> }> = [];
  private sweeper: NodeJS.Timeout | undefined;
  private orphans: NodeJS.Timeout | undefined;
  private readonly watchPollMs: number;
  /** Counters for metrics and status. */
  readonly counts = { started: 0, deduplicated: 0, cancelled: 0, requeued: 0 };

  private constructor(
    private readonly deps: AsyncRunsDeps,
    options: AsyncRunsOptions,
    readonly instanceId: string,
  ) {
    this.retentionMs = options.retentionMs ?? 24 * 3_600_000;
    this.watchPollMs = options.watchPollMs ?? 2000;
    this.updates = new RunUpdates(deps.bus, (err) => deps.log.warn({ err }, 'run update not delivered'));
    this.executor = new RunExecutor({
      store: deps.store,
      pipeline: deps.pipeline,
      updates: this.updates,
      bus: deps.bus,
      log: deps.log,
      instanceId,
      retentionMs: this.retentionMs,
      maxAttemptMs: deps.maxAttemptMs,
      retryBaseMs: deps.retryBaseMs,
      retryMaxMs: deps.retryMaxMs,
      onAttempt: deps.onAttempt,
    });
  }

  /** Starts listening for updates and cancellations, the workers and the retention sweep. */
  static async start(deps: AsyncRunsDeps, options: AsyncRunsOptions = {}): Promise<AsyncRuns> {
    const runs = new AsyncRuns(deps, options, randomUUID().replace(/-/g, ''));
    await runs.updates.listen();
    runs.subs.push(await runs.executor.serveOwnerChecks());
    const cancels: Subscription = await deps.bus.subscribe(RUNS_CANCEL_SUBJECT, (msg) => void runs.executor.cancelLocal(new TextDecoder().decode(msg.data)));
    runs.subs.push(cancels);
    await deps.queue.start((id, redelivered) => runs.executor.work(id, redelivered));
    const sweep = options.sweepIntervalMs ?? 60_000;
    runs.sweeper = setInterval(() => {
      deps.store.deleteExpired(Date.now()).then(
        (n) => n > 0 && deps.log.info({ deleted: n }, 'deleted expired async runs'),
        (err: unknown) => deps.log.warn({ err }, 'could not delete expired async runs'),
      );
    }, sweep);
    runs.sweeper.unref();
    if (options.orphanSweepMs) {
      const requeueAfterMs = options.requeueAfterMs ?? 60_000;
      let sweeping = false;
      runs.orphans = setInterval(() => {
        if (sweeping) return;
        sweeping = true;
        runs.executor
          .sweepOrphans()
          .then(
            (n) => n > 0 && deps.log.info({ taken: n }, 'took over async runs whose dispatcher is gone'),
            (err: unknown) => deps.log.warn({ err }, 'could not look for async runs whose dispatcher is gone'),
          )
          .then(() => requeueStale(deps.store, deps.queue, requeueAfterMs))
          .then(
            (n) => {
              runs.counts.requeued += n;
              if (n > 0) deps.log.warn({ requeued: n, afterMs: requeueAfterMs }, 'queued async runs again that stayed queued too long (their queue message may have been lost)');
            },
            (err: unknown) => deps.log.warn({ err }, 'could not look for async runs that stayed queued too long'),
          )
          .finally(() => (sweeping = false));
      }, options.orphanSweepMs);
      runs.orphans.unref();
    }
    return runs;
  }

  /** Runs being worked on by this dispatcher now. */
  get active(): number {
    return this.executor.active.size;
  }

  /** StartRuns refused because the caller's queued runs (`principal`) or all queued runs (`total`) were at their limit. */
  get refusedQueueFull(): Readonly<Record<'principal' | 'total', number>> {
    return this.deps.queueLimits.refused;
  }

  get watchers(): number {
    return this.updates.watchers;
  }

  async startRun(req: StartRunRequest, call: CallContext): Promise<StartRunResponse> {
    const c = req.call;
    if (!c) throw ToolHubError.invalidArgument('StartRun needs `call`: the RunToolRequest to run ({provider, name, arguments, …}).', [{ field: 'call', message: 'missing' }]);
    assertProviderName(c.provider);
    const args = c.arguments ?? {};
    checkArgumentDepth(args, this.deps.maxArgumentDepth);
    assertRunIdentifiers(c);
    this.checkAttemptWindow(c.timeoutMs);
    const principal = principalOf(call);
    if (c.idempotencyKey) {
      const existing = await this.deps.store.findByIdempotencyKey(principal.id, c.idempotencyKey);
      if (existing) {
        this.counts.deduplicated++;
        return { run: toRunInfo(existing) };
      }
    }
    // Refused now if the caller cannot see the tool (or it does not exist): NOT_FOUND with close matches.
    const tool = (await this.deps.catalog.resolveVisible(c.provider, c.name, call)).tool!;
    // Refused (RESOURCE_EXHAUSTED) when the caller's or everyone's queue is full: nothing stored.
    await this.deps.queueLimits.admit(principal.id);
    const now = Date.now();
    const argumentsJson = JSON.stringify(args);
    const run = queuedRunRecord(
      {
        id: newRunId(now),
        principalId: principal.id,
        principalRoles: [...principal.roles],
        principalMethod: principal.method,
        caller: c.caller,
        provider: c.provider,
        name: c.name,
        argumentsJson,
        argumentsHash: contentHash(argumentsJson, 16),
        timeoutMs: c.timeoutMs,
        idempotencyKey: c.idempotencyKey,
        expectedVersion: c.expectedVersion,
        searchId: c.searchId,
        retrySafe: isRetrySafe(tool, c.idempotencyKey),
      },
      now,
    );
    await this.deps.store.create(run);
    try {
      await this.deps.queue.enqueue(run.id);
    } catch (err) {
      const e = ToolHubError.unavailable(`Could not queue the run of ${toolId(c.provider, c.name)} (${(err as Error).message}); nothing was run. Retry in a few seconds.`, err);
      await this.executor.finish(run, 'failed', undefined, e);
      throw e;
    }
    this.counts.started++;
    return { run: toRunInfo(run) };
  }

  async getRun(req: GetRunRequest, call: CallContext): Promise<GetRunResponse> {
    return { run: toRunInfo(await this.owned(req.runId, call)) };
  }

  async cancelRun(req: CancelRunRequest, call: CallContext): Promise<CancelRunResponse> {
    let run = await this.owned(req.runId, call);
    const reason = req.reason.slice(0, 500);
    for (let i = 0; i < 10 && !terminal(run); i++) {
      if (run.state === 'queued') {
        // Only while still queued: a worker taking it meanwhile wins, and it is cancelled as running.
        const ended = await this.executor.endQueued(run, new ToolHubError('failed', `The run was cancelled before it started${reason ? ` (${reason})` : ''}; nothing was run.`));
        if (ended) {
          run = ended;
          break;
        }
        run = await this.owned(req.runId, call);
        continue;
      }
      const asked = run.cancelRequested ? run : await this.deps.store.replace({ ...run, cancelRequested: true, cancelReason: reason });
      if (asked) {
        run = asked;
        // Whichever dispatcher works it aborts it (this one included); the adapter is told to stop.
        if (!this.executor.cancelLocal(run.id)) this.deps.bus.publish(RUNS_CANCEL_SUBJECT, new TextEncoder().encode(run.id));
        break;
      }
      run = await this.owned(req.runId, call);
    }
    this.counts.cancelled++;
    return { run: toRunInfo(run) };
  }

  async listRuns(req: ListRunsRequest, call: CallContext): Promise<ListRunsResponse> {
    const limit = Math.min(req.pageSize || 50, 500);
    const beforeId = req.pageToken ? pageTokenId(req.pageToken) : undefined;
    const state = recordStateOf(req.state);
    const page = await this.deps.store.list(principalOf(call).id, { limit: limit + 1, beforeId, state });
    const runs = page.slice(0, limit);
    return { runs: runs.map(toRunInfo), nextPageToken: page.length > limit ? pageTokenOf(runs.at(-1)!.id) : '' };
  }

  /**
   * Streams the run's changes to `send` until it ends (a last update with `final`) or the caller
   * goes away. The first update is the run as stored now.
   */
  async watchRun(req: WatchRunRequest, call: CallContext, send: (update: WatchRunResponse) => void): Promise<void> {
    // Listen before reading, so a change made between the read and the listening is not missed;
    // what arrives before the first update is held and sent after it.
    const held: WatchRunResponse[] = [];
    let deliver: ((u: WatchRunResponse) => void) | undefined;
    // The record is written at most once a second, so it lags behind the pushed updates: a re-read
    // is sent only when no push came since the last one (or the run ended), or progress would go back.
    let pushed = false;
    const stop = RUN_ID_PATTERN.test(req.runId)
      ? this.updates.watch(req.runId, (u) => {
          pushed = true;
          if (deliver) deliver(u);
          else held.push(u);
        })
      : () => undefined;
    let run: RunRecord;
    try {
      run = await this.owned(req.runId, call);
    } catch (err) {
      stop();
      throw err;
    }
    send({ run: toRunInfo(run), newLogLines: [], final: terminal(run) });
    if (terminal(run)) return void stop();
    let lastRev = run.rev;
    await new Promise<void>((resolve) => {
      let done = false;
      const end = (): void => {
        if (done) return;
        done = true;
        stop();
        clearInterval(poll);
        call.signal?.removeEventListener('abort', end);
        resolve();
      };
      deliver = (u) => {
        if (done) return;
        try {
          send(u);
        } catch {
          return end(); // the caller's stream is gone
        }
        if (u.final) end();
      };
      // A missed push (core NATS is at-most-once, or the result was too large to push): the store says.
      const poll = setInterval(() => {
        const pushedBefore = pushed;
        pushed = false;
        this.deps.store.get(run.id).then(
          (fresh) => {
            if (done || !fresh || fresh.rev === lastRev) return;
            lastRev = fresh.rev;
            if (pushedBefore && !terminal(fresh)) return;
            deliver?.({ run: toRunInfo(fresh), newLogLines: [], final: terminal(fresh) });
          },
          () => undefined,
        );
      }, this.watchPollMs);
      call.signal?.addEventListener('abort', end, { once: true });
      if (call.signal?.aborted) end();
      for (const u of held.splice(0)) deliver(u);
    });
  }

  /** @throws ToolHubError invalid_argument when `timeout_ms` is longer than an attempt may take. */
  private checkAttemptWindow(timeoutMs: number): void {
    const max = this.deps.maxAttemptMs;
    if (timeoutMs <= max) return;
    throw ToolHubError.invalidArgument(
      `call.timeout_ms ${timeoutMs} (${human(timeoutMs)}) is longer than one attempt of an async run may take here: at most ${max} (${human(max)}; the server's TOOLHUB_RUN_MAX_ATTEMPT). ` +
        `Send timeout_ms of at most ${max}, or split the work into shorter runs. Nothing was started.`,
      [{ field: 'call.timeout_ms', message: `at most ${max} ms`, expected: `0 (the tool's default) to ${max}`, example: String(Math.min(max, 600_000)) }],
    );
  }

  /** The run, if it exists and belongs to the caller; NOT_FOUND otherwise (the same for both). */
  private async owned(runId: string, call: CallContext): Promise<RunRecord> {
    const run = RUN_ID_PATTERN.test(runId) ? await this.deps.store.get(runId) : undefined;
    if (!run || run.principalId !== principalOf(call).id) {
      throw ToolHubError.notFound(
        `No run ${JSON.stringify(runId.slice(0, 80))} exists for you. Runs are kept for ${Math.round(this.retentionMs / 60_000)} min after they end; ListRuns shows yours, and StartRun returns the id to use.`,
      );
    }
    return run;
  }

  /** Stops the workers (runs in progress finish), listeners and the sweep; closes the store. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearInterval(this.orphans);
    this.executor.shutdown();
    await this.deps.queue.close();
    await Promise.all(this.subs.splice(0).map((s) => s.close()));
    await this.updates.close();
    await this.deps.store.close();
  }
}

/** `90 s`, `10 min`, `2 h` */
function human(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 360_000) / 10} h`;
}
