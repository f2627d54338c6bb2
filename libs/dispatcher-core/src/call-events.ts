/**
 * Publishes a `tool.called` event for every RunTool, durably (JetStream), without ever slowing or
 * failing the call itself. An event that cannot be stored right now (bus down, stream busy) waits
 * in a bounded in-memory outbox and is retried with backoff; the event id makes retries safe
 * (the stream and the registry both de-duplicate by it).
 */
import type { Bus } from '@toolhub/bus';
import { eventSubject, ToolCalled } from '@toolhub/contracts';

export interface CallEventsOptions {
  /** Events kept while the bus cannot store them; the oldest are dropped past this (and counted). @default 100000 */
  maxPending?: number;
  /** First retry delay; doubles per failed attempt up to 5 s. @default 100 */
  retryDelayMs?: number;
  /** How long an event waits for others to be published with it. @default 10 */
  batchDelayMs?: number;
  onError?: (err: unknown) => void;
}

export class CallEventPublisher {
  private readonly pending: ToolCalled[] = [];
  private readonly maxPending: number;
  private readonly baseDelayMs: number;
  private readonly batchDelayMs: number;
  private delayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  private flushing = false;
  private closed = false;
  /** Events dropped because the outbox was full (reported in health). */
  dropped = 0;
  published = 0;

  constructor(
    private readonly bus: Bus,
    private readonly options: CallEventsOptions = {},
  ) {
    this.maxPending = options.maxPending ?? 100_000;
    this.baseDelayMs = options.retryDelayMs ?? 100;
    this.batchDelayMs = options.batchDelayMs ?? 10;
    this.delayMs = this.baseDelayMs;
  }

  /** Queues one event; returns at once. */
  emit(event: ToolCalled): void {
    if (this.closed) return;
    if (this.pending.length >= this.maxPending) {
      this.pending.shift();
      this.dropped++;
    }
    this.pending.push(event);
    // Publish a few milliseconds later: the call's reply goes out first, and the events of every
    // call finished meanwhile leave together (one socket write and one read of acks, not one each).
    if (!this.flushing && !this.timer && !this.scheduled) {
      this.scheduled = setTimeout(() => {
        this.scheduled = undefined;
        if (!this.flushing && !this.timer) void this.flush();
      }, this.batchDelayMs);
      this.scheduled.unref();
    }
  }

  get backlog(): number {
    return this.pending.length;
  }

  /**
   * Publishes what is pending in concurrent batches (order does not matter: the registry
   * aggregates); what fails stays queued and a retry is scheduled with backoff.
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, 256);
        const results = await Promise.allSettled(
          batch.map((event) => this.bus.publishEvent(eventSubject('tool.called', event.provider), ToolCalled.encode(event).finish(), { msgId: event.eventId })),
        );
        const failed = batch.filter((_, i) => results[i]!.status === 'rejected');
        this.published += batch.length - failed.length;
        if (failed.length > 0) {
          this.pending.unshift(...failed);
          throw (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
        }
        this.delayMs = this.baseDelayMs;
      }
    } catch (err) {
      this.options.onError?.(err);
      if (!this.closed) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.flush();
        }, this.delayMs);
        this.timer.unref();
        this.delayMs = Math.min(this.delayMs * 2, 5000);
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Tries for up to `timeoutMs` to publish what is pending, then stops. Returns how many were left. */
  async close(timeoutMs = 2000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.length > 0 && Date.now() < deadline) {
      if (!this.flushing) await this.flush();
      if (this.pending.length > 0) await new Promise((r) => setTimeout(r, 50));
    }
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.scheduled);
    return this.pending.length;
  }
}
