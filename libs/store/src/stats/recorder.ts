/**
 * Exactly-once counting of `tool.called` events without multi-document transactions.
 *
 * Three kinds of collections: `call_batches` (a batch of records, written as ONE document, so its
 * content is fixed the moment it exists), the claims (one document per event id, `_id` = event id,
 * naming the batch that counts it: the first insert wins, later ones fail on the unique `_id`; kept
 * by a {@link ClaimLedger}: one collection pruned by age, or one per time slot dropped whole), and
 * `tool_stats` (one document per tool, updated by compare-and-set on `rev`).
 *
 * recordCalls → for each batch B:
 *   1. insert B with its records;
 *   2. claim every record for B (insert-if-absent), then read the claims back: B counts exactly the
 *      records whose claim names B — everything else was counted, or is being counted, by another;
 *   3. finish any other batch named by those claims that is still stored (its writer crashed);
 *   4. per tool: take its stats as last written by this recorder (else read all of B's missing
 *      tools in one query); if the tool's `guard` lists B, skip (already applied); else fold
 *      B's records in, add B to `guard`, and write with compare-and-set on `rev` (retry on conflict).
 *      The tools' writes are independent and run a few at a time; a failed one fails the call only
 *      after the others have settled;
 *   5. delete B (once every tool's write succeeded).
 *
 * Any process may finish any stored batch at any time (steps 2, 4, 5) with the same result: the
 * claims of B are complete once someone has run step 2 for all of B's records, so every finisher
 * computes the same per-tool groups, and the guard (written atomically with the counts, in the
 * same document) makes applying a group twice impossible. Hence a crash anywhere is repaired by a
 * redelivery, the next start-up, or the periodic sweep, and nothing is lost or double counted.
 * A guard entry is dropped once its batch is deleted and older than `guardGraceMs`.
 * Limits: an event redelivered after `dedupWindowMs` is counted again (claims are pruned; with
 * slotted claims the window runs from the event's timestamp, see slotted-claims.ts); a
 * writer that stalls longer than `guardGraceMs` between reading and writing one tool's stats
 * while another process finishes its batch could count that group twice. The compare-and-set
 * needs a backend whose conditional replace is atomic: MongoDB's is; FerretDB 1.24 on PostgreSQL
 * matches the filter in one statement and writes by `_id` in another, so two PROCESSES writing the
 * same tool's stats at once can both "win" and one group is lost (measured: 50 of 300 racing
 * pairs). One process's own writes never race: its tools' writes within a batch are to distinct
 * documents, and its batches run one after another.
 */
import { randomBytes } from 'node:crypto';
import type { ToolCalled } from '@toolhub/contracts';

import type { BaseDoc, DocCollection } from '../backend';
import { StoreError } from '../errors';
import type { RecordStep, ResolvedStoreOptions } from '../options';
import type { RecordCallsResult } from '../store';
import { invalid } from '../validation';
import type { ClaimLedger } from './claims';
import { type CallRecord, normalizeEvents } from './events';
import { type GuardEntry, type StatsDoc, emptyStats, foldCalls } from './fold';

/** A batch of records: its content is fixed when it is inserted. */
export interface BatchDoc extends BaseDoc {
  at: number;
  events: CallRecord[];
}

export type { ClaimDoc } from './claims';

const CAS_ATTEMPTS = 100;
/** Statistics documents of one batch written at once. */
const STATS_WRITE_CONCURRENCY = 8;
/** Stale batches finished per sweep. */
const SWEEP_LIMIT = 20;
/** Guard entries kept without checking whether their batches are finished. */
const GUARD_SOFT_LIMIT = 32;
const MAX_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Tools whose statistics documents the recorder keeps in memory (a few KB each). */
export const STATS_CACHE_LIMIT = 5000;

/** Counts calls into `tool_stats`, exactly once per event id. */
export class CallRecorder {
  private lastSweep = Number.NEGATIVE_INFINITY;
  private lastPrune = Number.NEGATIVE_INFINITY;
  /** The test hook fires once, like a crash. */
  private failAt: RecordStep | undefined;
  /**
   * The statistics document of each recently written tool (least recently used first), so a
   * batch needs no read before its compare-and-set writes. At most {@link STATS_CACHE_LIMIT}.
   */
  private readonly cache = new Map<string, StatsDoc>();

  constructor(
    private readonly stats: DocCollection<StatsDoc>,
    private readonly batches: DocCollection<BatchDoc>,
    private readonly claims: ClaimLedger,
    private readonly options: ResolvedStoreOptions,
  ) {
    this.failAt = options.failAt;
  }

  async record(events: readonly ToolCalled[]): Promise<RecordCallsResult> {
    if (!Array.isArray(events)) invalid('events', 'is not a list', 'a list of ToolCalled events', '[]');
    const { records, rejected, duplicates } = normalizeEvents(events, this.options.clock());
    let recorded = 0;
    for (let i = 0; i < records.length; i += this.options.maxBatchEvents) {
      recorded += await this.recordBatch(records.slice(i, i + this.options.maxBatchEvents));
    }
    // The batch is counted: a failing upkeep must not fail it (its redelivery would then wait out
    // the consumer's ack wait for nothing). Seen on FerretDB, which refused to prune more than
    // 65,535 expired claims in one delete (before MongoRegistryStore's claims were slotted).
    const upkeepError = await this.housekeeping().then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    return { recorded, duplicates: duplicates + records.length - recorded, rejected, ...(upkeepError === undefined ? {} : { upkeepError }) };
  }

  /**
   * Finishes batches left behind by crashed writers: all of them (at start-up), or those older
   * than `olderThan`. Returns how many it finished.
   */
  async recover(olderThan?: number, limit = Number.POSITIVE_INFINITY): Promise<number> {
    let finished = 0;
    while (finished < limit) {
      const page = Math.min(100, limit - finished);
      const docs = await this.batches.find(olderThan === undefined ? {} : { at: { $lt: olderThan } }, { sort: { at: 1 }, limit: page });
      for (const doc of docs) await this.complete(doc);
      finished += docs.length;
      if (docs.length < page) break;
    }
    return finished;
  }

  private async recordBatch(records: CallRecord[]): Promise<number> {
    const batch: BatchDoc = { _id: randomBytes(12).toString('base64url'), at: this.options.clock(), events: records };
    if (!(await this.batches.insert(batch))) throw new StoreError('backend', `Batch id ${batch._id} collided; retry.`);
    this.crashPoint('batch-written');
    const owners = await this.claims.claim(batch);
    this.crashPoint('claims-written');
    // Records claimed by a batch that is still stored: its writer crashed (or is slow). Finish it
    // now, so the counts are exact when this call returns — the caller then acks the redelivery,
    // and nothing else would bring those records back.
    const others = [...new Set(owners.values())].filter((b) => b !== batch._id);
    if (others.length > 0) {
      for (const doc of await this.batches.find({ _id: { $in: others } })) await this.complete(doc);
    }
    return this.complete(batch, owners, true);
  }

  /** Steps 2, 4 and 5 for `batch`; returns how many records it counts. */
  private async complete(batch: BatchDoc, knownOwners?: Map<string, string>, original = false): Promise<number> {
    const owners = knownOwners ?? (await this.claims.claim(batch));
    const byTool = new Map<string, CallRecord[]>();
    let mine = 0;
    for (const record of batch.events) {
      if (owners.get(record.id) !== batch._id) continue;
      mine++;
      const group = byTool.get(record.t);
      if (group) group.push(record);
      else byTool.set(record.t, [record]);
    }
    // Each tool's statistics as this recorder last wrote or read them, else one query for all the
    // missing ones (not one per tool). A document changed meanwhile by another writer fails its
    // compare-and-set and is read again, so a stale copy costs a retry, never a wrong count.
    const known = new Map<string, StatsDoc | null>();
    const missing: string[] = [];
    for (const toolId of byTool.keys()) {
      const cached = this.cache.get(toolId);
      if (cached) known.set(toolId, cached);
      else missing.push(toolId);
    }
    if (missing.length > 0) {
      for (const toolId of missing) known.set(toolId, null);
      for (const doc of await this.stats.find({ _id: { $in: missing } })) known.set(doc._id, doc);
    }
    const groups = [...byTool];
    let next = 0;
    if (original && groups.length > 0) {
      // The first tool alone, so a crash injected after it finds the others untouched.
      const [toolId, group] = groups[next++]!;
      await this.apply(batch._id, toolId, group, known.get(toolId) ?? null);
      this.crashPoint('first-tool-applied');
    }
    // Tools are independent (each has its own document, guard and compare-and-set), so their writes
    // overlap: a round trip to FerretDB waits on FerretDB and PostgreSQL, which have cores of their own.
    await forEachLimited(groups.slice(next), STATS_WRITE_CONCURRENCY, ([toolId, group]) => this.apply(batch._id, toolId, group, known.get(toolId) ?? null));
    if (original) this.crashPoint('all-tools-applied');
    await this.batches.delete({ _id: batch._id });
    return mine;
  }

  /**
   * Folds `group` into the tool's stats unless batch `batchId` is already in its guard. `known` is
   * the tool's document as just read (null: none), used for the first attempt.
   */
  private async apply(batchId: string, toolId: string, group: readonly CallRecord[], known?: StatsDoc | null): Promise<void> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = attempt === 0 && known !== undefined ? (known ?? undefined) : await this.stats.get(toolId);
      if (current?.guard.some((g) => g.b === batchId)) return;
      const now = this.options.clock();
      const base = current ?? emptyStats(toolId);
      const next = foldCalls(base, group, now, this.options.hourlyRetentionHours);
      next.guard = [...(await this.liveGuard(base.guard, now)), { b: batchId, at: now }];
      next.rev = base.rev + 1;
      const written = current ? await this.stats.replace({ _id: toolId, rev: current.rev }, next) : await this.stats.insert(next);
      this.cache.delete(toolId);
      if (written) {
        this.remember(next);
        return;
      }
      // Another writer changed this tool's stats in between: re-read and fold again.
      if (attempt >= 3) await sleep(Math.random() * Math.min(50, attempt * 2));
    }
    throw new StoreError('contention', `The statistics of ${toolId} are updated by too many writers at once; the events were not acknowledged, retry them.`);
  }

  /** `guard` without entries of batches that are finished and older than the grace period. */
  private async liveGuard(guard: readonly GuardEntry[], now: number): Promise<GuardEntry[]> {
    const grace = this.options.guardGraceMs;
    const old = guard.filter((g) => g.at < now - grace);
    // Checking costs a query: do it when the guard grows or an entry is well past the grace period.
    if (old.length === 0 || (guard.length <= GUARD_SOFT_LIMIT && !old.some((g) => g.at < now - 2 * grace))) return [...guard];
    const pending = new Set((await this.batches.find({ _id: { $in: old.map((g) => g.b) } }, { include: [] })).map((d) => d._id));
    return guard.filter((g) => g.at >= now - grace || pending.has(g.b));
  }

  /** Finishes stale batches now and then, and forgets event ids older than the de-dup window. */
  private async housekeeping(): Promise<void> {
    const now = this.options.clock();
    if (now - this.lastSweep >= this.options.recoverAfterMs / 2) {
      this.lastSweep = now;
      await this.recover(now - this.options.recoverAfterMs, SWEEP_LIMIT);
    }
    if (now - this.lastPrune >= Math.min(MAX_PRUNE_INTERVAL_MS, this.options.dedupWindowMs / 4)) {
      this.lastPrune = now;
      await this.claims.prune(now, this.options.dedupWindowMs);
    }
  }

  private remember(doc: StatsDoc): void {
    this.cache.set(doc._id, doc);
    if (this.cache.size > STATS_CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
  }

  private crashPoint(step: RecordStep): void {
    if (this.failAt !== step) return;
    this.failAt = undefined;
    throw new Error(`Injected failure at ${step} (StoreOptions.failAt): the write stops here, as if the process died.`);
  }
}

/**
 * Runs `fn` on every item, at most `limit` at a time. After a failure no further item starts; it
 * returns (rejecting with the first error) only once those running have settled, so nothing of
 * this call is still writing when its caller hears of the failure.
 */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      try {
        await fn(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
