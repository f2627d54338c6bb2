/**
 * Where queued runs wait for a worker. Two implementations: {@link LocalRunQueue} (one process:
 * the run store itself is the durable queue) and {@link JetStreamRunQueue} (dispatcher replicas:
 * a JetStream work-queue stream, each message one run id, taken by whichever replica is free).
 */
import type { Bus, EventConsumer } from '@toolhub/bus';
import { runsQueueSubject } from '@toolhub/contracts';
import type { RunStore } from '@toolhub/run-store';

/**
 * Works one run. Resolving means the run needs nothing more from this delivery; throwing hands it
 * back to be delivered again later (with a backoff), e.g. while another live worker still holds it.
 * `redelivered`: an earlier delivery of this run was not finished (its worker died or gave it back).
 */
export type RunWork = (runId: string, redelivered: boolean) => Promise<void>;

export interface RunQueue {
  /** Durably queues a run whose record is stored. */
  enqueue(runId: string): Promise<void>;
  /** Starts the workers (`concurrency` runs at once). */
  start(work: RunWork): Promise<void>;
  /** Stops taking runs; runs in progress finish first. */
  close(): Promise<void>;
}

/**
 * One process: the run store is the queue. At start, runs left `queued` or `running` by the
 * previous process are taken again (oldest first); new ones are handed over in memory. Memory
 * holds run ids only (tens of bytes each), the records stay in the store.
 */
export class LocalRunQueue implements RunQueue {
  private readonly waiting: string[] = [];
  private readonly redelivered = new Set<string>();
  private work: RunWork | undefined;
  private active = 0;
  private closed = false;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly store: RunStore,
    private readonly concurrency: number,
    /** Retry delay after a work item threw. */
    private readonly retryMs = 1000,
  ) {}

  async enqueue(runId: string): Promise<void> {
    this.waiting.push(runId);
    this.pump();
  }

  async start(work: RunWork): Promise<void> {
    // What the previous process left: runs cut short first (they are the oldest), then the queue.
    const seen = new Set(this.waiting);
    for (const run of await this.store.listInStates(['running'], Number.MAX_SAFE_INTEGER)) {
      this.redelivered.add(run.id);
      this.waiting.unshift(run.id);
      seen.add(run.id);
    }
    for (const run of await this.store.listInStates(['queued'], Number.MAX_SAFE_INTEGER)) if (!seen.has(run.id)) this.waiting.push(run.id);
    this.work = work;
    this.pump();
  }

  private pump(): void {
    while (this.work && !this.closed && this.active < this.concurrency && this.waiting.length > 0) {
      const id = this.waiting.shift()!;
      const redelivered = this.redelivered.delete(id);
      this.active++;
      this.work(id, redelivered)
        .catch(() => {
          // Given back: try again later, as a redelivery.
          const timer = setTimeout(() => {
            this.redelivered.add(id);
            void this.enqueue(id);
          }, this.retryMs);
          timer.unref();
        })
        .finally(() => {
          this.active--;
          if (this.active === 0) for (const f of this.idle) f();
          this.pump();
        });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.active > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}

/** Options of {@link JetStreamRunQueue}. */
export interface JetStreamRunQueueOptions {
  /** Runs this replica works at once. */
  concurrency: number;
  /**
   * How long a run held by a worker that stopped answering waits before another replica takes it
   * (JetStream ack wait; the worker renews it every third of it while the run goes on).
   */
  ackWaitMs: number;
  /** Longest a worker keeps renewing (the longest a run can take). */
  maxWorkMs: number;
  /** The queue of the dispatchers sharing one run store (a subject token; see runsQueueSubject). */
  queue: string;
}

/** Name of the durable consumer the dispatcher replicas of one queue share. */
export function runWorkersDurable(queue: string): string {
  return `toolhub_run_workers_${queue}`;
}

/**
 * Dispatcher replicas: runs on the work-queue stream TOOLHUB_RUNS. Each worker is one pull loop
 * of the shared durable consumer taking one run at a time; a run stays "in progress" while its
 * worker lives, and is delivered again to another replica when the worker dies (no renewals for
 * `ackWaitMs`).
 */
export class JetStreamRunQueue implements RunQueue {
  private consumers: EventConsumer[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly options: JetStreamRunQueueOptions,
  ) {}

  enqueue(runId: string): Promise<void> {
    return this.bus.publishEvent(runsQueueSubject(this.options.queue), new TextEncoder().encode(runId), { msgId: runId });
  }

  async start(work: RunWork): Promise<void> {
    const { concurrency, ackWaitMs, maxWorkMs, queue } = this.options;
    for (let i = 0; i < concurrency; i++) {
      this.consumers.push(
        await this.bus.consumeEvents({
          durable: runWorkersDurable(queue),
          filterSubjects: [runsQueueSubject(queue)],
          maxBatch: 1,
          ackWaitMs,
          maxWorkMs,
          // Every worker of many replicas may hold a run.
          maxAckPending: 10_000,
          handler: async ([msg]) => {
            if (msg) await work(new TextDecoder().decode(msg.data), msg.deliveryCount > 1);
          },
        }),
      );
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.consumers.splice(0).map((c) => c.close()));
  }
}
