/** Options shared by both RegistryStore implementations, with their defaults in one place. */
import { StoreError } from './errors';

/**
 * Points inside `recordCalls` where a test can make the store fail as if the process died there.
 * - `batch-written`: the batch document is stored, no event is claimed yet.
 * - `claims-written`: the batch's events are claimed, no statistics changed yet.
 * - `first-tool-applied`: one tool's statistics are updated, the others' not yet.
 * - `all-tools-applied`: every tool's statistics are updated, the batch document not removed yet.
 */
export type RecordStep = 'batch-written' | 'claims-written' | 'first-tool-applied' | 'all-tools-applied';

/** Options of both stores. */
export interface StoreOptions {
  /** Milliseconds since the epoch. Tests pass a fake clock. @default Date.now */
  clock?: () => number;
  /**
   * How long an event id is remembered after it was counted. A redelivery later than this is
   * counted again. @default 86400000 (24 h)
   */
  dedupWindowMs?: number;
  /** Hours of hourly buckets kept per tool. @default 168 (7 days) */
  hourlyRetentionHours?: number;
  /**
   * A batch left behind by a crashed writer is finished by the next `recordCalls` that meets one of
   * its events, by the next start-up, or by any `recordCalls` once it is this old. Left out, it is
   * 60 s or twice `statsFlushMs`, whichever is longer: a live writer's batches wait up to
   * `statsFlushMs` for their write, and a sweep finishing them first would write each batch's tools
   * on its own — the per-tool writes the wait exists to share. @default max(60000, 2 × statsFlushMs)
   */
  recoverAfterMs?: number;
  /**
   * Events per stored batch; longer inputs are split. Each batch writes every distinct tool's
   * statistics once, so larger batches write fewer documents per event (500 Zipf-distributed
   * tools: ~250 writes per 1,000 events, ~470 per 5,000). @default 5000
   */
  maxBatchEvents?: number;
  /**
   * How long counted calls may wait before their tools' statistics are written. 0: before
   * `recordCalls` returns. Otherwise `recordCalls` returns once its events are durably claimed, and
   * the statistics of all batches of this interval are written together — each tool's document once,
   * not once per batch, which is most of the statistics' cost (bench/registry). Reads through the
   * same store write what waits first (exact); other processes see counts up to this much later; a
   * crash leaves the batches stored, finished at the next start-up. At most 50,000 events wait.
   * @default 0
   */
  statsFlushMs?: number;
  /**
   * For tests only: the first `recordCalls` that reaches this step throws there, as if the process
   * had been killed (what was written before stays written); later calls run normally.
   */
  failAt?: RecordStep;
}

/** {@link StoreOptions} with every default filled in. */
export type ResolvedStoreOptions = Required<Omit<StoreOptions, 'failAt'>> & Pick<StoreOptions, 'failAt'>;

/** The defaults of {@link StoreOptions}. */
export const storeDefaults = {
  clock: Date.now,
  dedupWindowMs: 24 * 60 * 60 * 1000,
  hourlyRetentionHours: 168,
  recoverAfterMs: 60_000,
  maxBatchEvents: 5000,
  statsFlushMs: 0,
} as const satisfies Required<Omit<StoreOptions, 'failAt'>>;

/** See {@link StoreOptions.recoverAfterMs}; an invalid `statsFlushMs` is reported as itself, not through this. */
function defaultRecoverAfterMs(statsFlushMs: number | undefined): number {
  const flush = Number.isInteger(statsFlushMs) ? statsFlushMs! : storeDefaults.statsFlushMs;
  return Math.max(storeDefaults.recoverAfterMs, 2 * flush);
}

/** Fills in defaults. @throws StoreError invalid_options naming the field. */
export function withStoreDefaults(options: StoreOptions): ResolvedStoreOptions {
  const resolved: ResolvedStoreOptions = {
    clock: options.clock ?? storeDefaults.clock,
    dedupWindowMs: options.dedupWindowMs ?? storeDefaults.dedupWindowMs,
    hourlyRetentionHours: options.hourlyRetentionHours ?? storeDefaults.hourlyRetentionHours,
    recoverAfterMs: options.recoverAfterMs ?? defaultRecoverAfterMs(options.statsFlushMs),
    maxBatchEvents: options.maxBatchEvents ?? storeDefaults.maxBatchEvents,
    statsFlushMs: options.statsFlushMs ?? storeDefaults.statsFlushMs,
    failAt: options.failAt,
  };
  positiveInt('dedupWindowMs', resolved.dedupWindowMs);
  positiveInt('hourlyRetentionHours', resolved.hourlyRetentionHours);
  positiveInt('recoverAfterMs', resolved.recoverAfterMs);
  positiveInt('maxBatchEvents', resolved.maxBatchEvents);
  if (!Number.isInteger(resolved.statsFlushMs) || resolved.statsFlushMs < 0 || resolved.statsFlushMs > 60_000) {
    throw new StoreError('invalid_options', `statsFlushMs must be an integer from 0 to 60000 (milliseconds), got ${JSON.stringify(resolved.statsFlushMs)}.`);
  }
  if (resolved.maxBatchEvents > 5000) {
    // A batch is one document: 5000 events stay far below MongoDB's 16 MB document limit.
    throw new StoreError('invalid_options', `maxBatchEvents is ${resolved.maxBatchEvents}; at most 5000 are allowed.`);
  }
  if (typeof resolved.clock !== 'function') throw new StoreError('invalid_options', 'clock must be a function returning milliseconds since the epoch.');
  return resolved;
}

/** @throws StoreError invalid_options when `value` is not a positive integer. */
export function positiveInt(field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new StoreError('invalid_options', `${field} must be a positive integer, got ${JSON.stringify(value)}.`);
  }
}
