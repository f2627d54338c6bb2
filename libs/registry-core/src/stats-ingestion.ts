/**
 * Statistics ingestion: the durable `tool.called` consumers that feed `store.recordCalls` — one for
 * single and batched events (`durable`), one of its own for grouped events (`<durable>-grouped`, so
 * registries of the version before, sharing the first, never receive one: contracts'
 * tool-called-messages.ts) — and what operators need to know about them:
 * - store failures are logged once per episode (when it starts, and when it ends with the count
 *   of failed batches and how long it lasted), not once per retried batch;
 * - how far behind the calls the statistics are (consumer lag in events and seconds);
 * - where a new deployment starts: not the whole 7-day stream. If the store already holds
 *   statistics (a restored snapshot, i.e. a database backup), from the newest call it counted minus
 *   an overlap (the store counts each event id once, so the overlap cannot double-count); on an
 *   empty store, from a bounded recent window. An existing consumer always resumes where it was.
 */
import type { SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus, ConsumerLag, EventConsumer } from '@toolhub/bus';
import { decodeToolCalledMessage, TOOL_CALLED_FILTERS, TOOL_CALLED_GROUPED_FILTERS, type ToolCalled } from '@toolhub/contracts';
import type { RegistryStore } from '@toolhub/store';

/**
 * How far back a new grouped consumer starts (at least). No registry of the version before reads
 * grouped events, so those in the stream were counted by no one, unless a grouped consumer existed
 * before and was deleted; then the store's claims (kept 24 h by default) refuse what it counted.
 * So dispatchers that publish grouped before any registry of this version runs lose nothing
 * younger than this.
 */
export const GROUPED_START_LOOKBACK_MS = 24 * 3_600_000;

/** Options of {@link StatsIngestion.start}. */
export interface StatsIngestionOptions {
  durable: string;
  maxBatch: number;
  /** How long a partial batch waits for more events before it is written (ConsumeOptions.lingerMs). @default 0 */
  lingerMs?: number;
  /**
   * A new consumer on an empty store starts this far back; 0 replays the whole stream.
   * @default 3600000 (1 h)
   */
  startWindowMs?: number;
  /** A new consumer on a store with statistics starts this long before its newest call. @default 600000 (10 min) */
  snapshotOverlapMs?: number;
  log: SdkLogger;
  /** Called with each batch once the store has recorded it (redelivered batches included). */
  onRecorded?: (events: readonly ToolCalled[]) => void;
}

/** What {@link StatsIngestion.status} reports. */
export interface StatsIngestionStatus {
  /** Events counted since start. */
  ingested: number;
  storeHealthy: boolean;
  /** Failed batches in the current episode (0 when healthy). */
  storeFailures: number;
  storeFailuresTotal: number;
  storeDetail: string;
  /** Where the consumer started when this registry created it, or "resumed". */
  start: string;
}

export class StatsIngestion {
  ingested = 0;
  private failingSince = 0;
  private failures = 0;
  private failuresTotal = 0;
  private lastError = '';
  private consumers: EventConsumer[] = [];
  private start = 'resumed';
  /** The store records one batch at a time, whichever consumer it came from (as with one consumer). */
  private recording: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: RegistryStore,
    private readonly options: StatsIngestionOptions,
  ) {}

  static async start(bus: Bus, store: RegistryStore, options: StatsIngestionOptions): Promise<StatsIngestion> {
    const self = new StatsIngestion(store, options);
    const { startAtUnixMs, description } = await self.startPoint();
    // Single events and the batches dispatchers publish, then grouped events (contracts'
    // tool-called-messages.ts), the latter from at least GROUPED_START_LOOKBACK_MS back.
    for (const [durable, filters, from] of [
      [options.durable, TOOL_CALLED_FILTERS, startAtUnixMs],
      [`${options.durable}-grouped`, TOOL_CALLED_GROUPED_FILTERS, Math.min(startAtUnixMs, Date.now() - GROUPED_START_LOOKBACK_MS)],
    ] as const) {
      try {
        const consumer = await bus.consumeEvents({
          durable,
          filterSubjects: [...filters],
          maxBatch: options.maxBatch,
          lingerMs: options.lingerMs ?? 0,
          startAtUnixMs: from,
          // Resolving acknowledges the batch: only after the store has written it. Throwing leaves it
          // for redelivery; the store counts each event id once, so redelivery never double-counts.
          handler: (batch) => self.serially(() => self.record(self.decode(batch))),
        });
        self.consumers.push(consumer);
        if (consumer.created) {
          if (durable === options.durable) self.start = description;
          const start = durable === options.durable ? description : from > 0 ? `from ${new Date(from).toISOString()}` : 'stream start (full replay)';
          options.log.info({ consumer: durable, start }, 'statistics consumer created');
        }
      } catch (err) {
        await self.close();
        throw err;
      }
    }
    return self;
  }

  /**
   * Consumer lag, both consumers together (events summed, the oldest's age); undefined when the
   * bus cannot tell (in-process bus) or NATS is unreachable.
   */
  async lag(): Promise<ConsumerLag | undefined> {
    try {
      const lags = await Promise.all(this.consumers.map((c) => c.lag?.()));
      if (lags.length === 0 || lags.some((l) => l === undefined)) return undefined;
      return { events: lags.reduce((n, l) => n + l!.events, 0), seconds: Math.max(...lags.map((l) => l!.seconds)) };
    } catch {
      return undefined;
    }
  }

  status(): StatsIngestionStatus {
    const failing = this.failingSince > 0;
    return {
      ingested: this.ingested,
      storeHealthy: !failing,
      storeFailures: this.failures,
      storeFailuresTotal: this.failuresTotal,
      storeDetail: failing ? `writing statistics fails since ${new Date(this.failingSince).toISOString()} (${this.failures} batches): ${this.lastError}` : 'ok',
      start: this.start,
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.close()));
  }

  /** Runs `op` after every recording already queued. */
  private serially(op: () => Promise<void>): Promise<void> {
    const run = this.recording.then(op);
    this.recording = run.catch(() => undefined);
    return run;
  }

  /** The events of a batch of messages; a message that does not decode is skipped (and acknowledged), with a warning. */
  private decode(messages: ReadonlyArray<{ subject: string; data: Uint8Array }>): ToolCalled[] {
    const events: ToolCalled[] = [];
    for (const m of messages) {
      try {
        events.push(...decodeToolCalledMessage(m.subject, m.data));
      } catch (err) {
        // Redelivering it would fail the same way for ever and hold back every event behind it.
        this.options.log.warn({ subject: m.subject, bytes: m.data.length, err }, 'undecodable tool.called message skipped');
      }
    }
    return events;
  }

  private async record(events: ToolCalled[]): Promise<void> {
    let res;
    try {
      res = await this.store.recordCalls(events);
    } catch (err) {
      this.failed(err);
      throw err;
    }
    if (this.failingSince > 0) {
      this.options.log.info(
        { failedBatches: this.failures, outageMs: Date.now() - this.failingSince, lastError: this.lastError },
        'statistics store works again; the events of the failed batches are being counted now',
      );
      this.failingSince = 0;
      this.failures = 0;
    }
    this.ingested += res.recorded;
    this.options.onRecorded?.(events);
    if (res.rejected.length) this.options.log.warn({ rejected: res.rejected.slice(0, 5), count: res.rejected.length }, 'malformed tool.called events skipped');
    // At most once per upkeep interval (minutes), so no episode bookkeeping.
    if (res.upkeepError) this.options.log.warn({ error: res.upkeepError }, 'statistics upkeep failed (finishing stale batches or pruning old event ids); the events were counted, the upkeep is retried later');
  }

  private failed(err: unknown): void {
    this.failures++;
    this.failuresTotal++;
    this.lastError = err instanceof Error ? err.message : String(err);
    if (this.failingSince === 0) {
      this.failingSince = Date.now();
      // Once per episode: the batch is redelivered with capped backoff, and each retry would log again.
      this.options.log.error({ err }, 'writing statistics failed; events stay in the stream and are retried until the store works again');
    }
  }

  private async startPoint(): Promise<{ startAtUnixMs: number; description: string }> {
    const windowMs = this.options.startWindowMs ?? 3_600_000;
    let newest = 0;
    try {
      newest = (await this.store.listToolStats({ sortBy: 'recency', limit: 1 }))[0]?.lastCallUnixMs ?? 0;
    } catch (err) {
      this.options.log.warn({ err }, 'could not read the newest statistic; a new statistics consumer starts from the recent window');
    }
    if (newest > 0) {
      const at = newest - (this.options.snapshotOverlapMs ?? 600_000);
      return { startAtUnixMs: at, description: `snapshot: from ${new Date(at).toISOString()} (the newest call the store holds, minus an overlap)` };
    }
    if (windowMs <= 0) return { startAtUnixMs: 0, description: 'stream start (full replay)' };
    const at = Date.now() - windowMs;
    return { startAtUnixMs: at, description: `recent window: from ${new Date(at).toISOString()} (empty store)` };
  }
}
