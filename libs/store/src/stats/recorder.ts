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
 * Steps 4–5 may wait (`statsFlushMs`): B is durable once steps 1–2 are done — any process can finish
 * it from the store — so `record` returns then, and the statistics of the batches counted meanwhile
 * are written together: each tool's document once for all of them, with one guard entry per batch.
 * A batch finished meanwhile by another process (found by a redelivery, or by a sweep) is no
 * longer stored, and is skipped (see below). Reads through the same store write
 * what waits first, so they are exact; other processes see the counts up to `statsFlushMs` later.
 * A crash before the write leaves the batches stored: the next start-up or a sweep finishes them.
 *
 * Any process may finish any stored batch at any time (steps 2, 4, 5) with the same result: the
 * claims of B are complete once someone has run step 2 for all of B's records, so every finisher
 * computes the same per-tool groups, and the guard (written atomically with the counts, in the
 * same document) makes applying a group twice impossible. Hence a crash anywhere is repaired by a
 * redelivery, the next start-up, or the periodic sweep, and nothing is lost or double counted.
 *
 * The guard keeps only batches that are still stored: a batch is deleted only once every one of its
 * tools has it applied, so a deleted batch needs no guard entry — provided that a writer asks which
 * batches are stored AFTER it got the version of the document it writes over (compare-and-set on
 * `rev`), and applies only batches still stored then. If B's entry was gone from that version while
 * B had been applied, B was deleted before the entry was dropped, hence before the question, and is
 * skipped; if the document changed after that version, the compare-and-set fails and the writer
 * reads and asks again. So no writer, however long it stalls, applies a batch twice, and a hot
 * tool's guard holds the batches of about one write, not minutes of them.
 *
 * Limits: an event redelivered after `dedupWindowMs` is counted again (claims are pruned; with
 * slotted claims the window runs from the event's timestamp, see slotted-claims.ts). The compare-and-set
 * needs a backend whose conditional replace is atomic: MongoDB's is; FerretDB 1.24 on PostgreSQL
 * matches the filter in one statement and writes by `_id` in another, so two PROCESSES writing the
 * same tool's stats at once can both "win" and one group is lost (measured: 50 of 300 racing
 * pairs). One process's own writes never race: all its statistics writes run one flush or batch
 * at a time, and within one they are to distinct documents.
 */
import { randomBytes } from 'node:crypto';
import type { ToolCalled } from '@toolhub/contracts';

import type { BaseDoc, DocCollection } from '../backend';
import { StoreError } from '../errors';
import type { RecordStep, ResolvedStoreOptions } from '../options';
import type { RecordCallsResult } from '../store';
import { invalid } from '../validation';
import type { ClaimLedger } from './claims';
import { type CallSlice, sliceByTool } from './call-slices';
import { type CallRecord, normalizeEvents } from './events';
import { DigestCache } from './digest';
import { type StatsDoc, emptyStats, foldCalls } from './fold';

/** A batch of records: its content is fixed when it is inserted. */
export interface BatchDoc extends BaseDoc {
  at: number;
  events: CallRecord[];
}

export type { ClaimDoc } from './claims';

/** A claimed batch whose statistics are not written yet: the calls it counts, by tool. */
interface ClaimedBatch {
  id: string;
  byTool: Map<string, CallSlice>;
  count: number;
}

/** The calls of one batch for one tool. */
interface ToolPart {
  batchId: string;
  calls: CallSlice;
}

const CAS_ATTEMPTS = 100;
/** Statistics documents of one batch written at once. */
const STATS_WRITE_CONCURRENCY = 8;
/** Stale batches finished per sweep. */
const SWEEP_LIMIT = 20;
const MAX_PRUNE_INTERVAL_MS = 10 * 60 * 1000;
/** Tools whose statistics documents the recorder keeps in memory (a few KB each). */
export const STATS_CACHE_LIMIT = 5000;
/** Tools whose latency digest the recorder keeps decoded (~20 KB each: ≤ ~10 MB). */
export const DIGEST_CACHE_LIMIT = 512;
/**
 * Memory that counted calls waiting for the flush (`statsFlushMs`) may take, estimated: past it,
 * `record` writes them before it returns, so memory stays bounded when calls come faster than a
 * flush can wait for. Packed (call-slices.ts), a batch of 2,000 calls over ~300 tools takes
 * ~56 KB: 12 MiB holds a minute of ~7,000 calls/s. Each tool written fewer times is what the wait
 * saves: on FerretDB each write of a tool's statistics costs milliseconds of database CPU
 * (figures: bench/registry/README.md, "Figures the code cites").
 */
export const MAX_WAITING_BYTES = 12 * 1024 * 1024;
/**
 * What a backend that keeps its documents in memory (NeDB) holds per waiting event besides: the
 * batch's document, its records as objects. So ~59,000 events wait there at most.
 */
export const IN_MEMORY_BATCH_BYTES_PER_EVENT = 200;

/** The estimate {@link MAX_WAITING_BYTES} bounds: typed arrays per call, a slice per tool, the batch. */
function estimatedBytes(batch: ClaimedBatch, backendBytesPerEvent: number): number {
  return (13 + backendBytesPerEvent) * batch.count + 100 * batch.byTool.size + 400;
}

/** What a test hook throws: the process "died" there, so nothing of it is retried. */
class InjectedCrash extends Error {}

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
  /** The decoded latency digests of the most recently written tools. */
  private readonly digests = new DigestCache(DIGEST_CACHE_LIMIT);
  /** Claimed batches whose statistics wait for the flush, oldest first. */
  private waiting: ClaimedBatch[] = [];
  /** Their estimated memory (see {@link MAX_WAITING_BYTES}). */
  private waitingBytes = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Why the last timed flush failed (reported by the next `record` as its upkeep error). */
  private flushError: string | undefined;
  /** Every statistics write of this process runs after the previous one (see the header). */
  private writes: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly stats: DocCollection<StatsDoc>,
    private readonly batches: DocCollection<BatchDoc>,
    private readonly claims: ClaimLedger,
    private readonly options: ResolvedStoreOptions,
    /** Memory the backend itself holds per waiting event (see {@link MAX_WAITING_BYTES}). */
    private readonly backendBytesPerEvent = 0,
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
    let upkeepError = await this.housekeeping().then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
    if (this.flushError !== undefined) {
      upkeepError = [upkeepError, this.flushError].filter(Boolean).join('; ');
      this.flushError = undefined;
    }
    return { recorded, duplicates: duplicates + records.length - recorded, rejected, ...(upkeepError === undefined ? {} : { upkeepError }) };
  }

  /**
   * Writes the statistics of every batch counted so far (those waiting for `statsFlushMs`), after
   * any write already running. Reads call it first, so they see every counted event.
   */
  flush(): Promise<void> {
    return this.serially(() => this.writeWaiting());
  }

  /** Writes what waits and stops the flush timer (the store is closing). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.flushTimer);
    await this.flush();
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
      for (const doc of docs) await this.serially(() => this.finish(doc));
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
    // Records claimed by a batch that is still stored and not ours to write: its writer crashed (or
    // is slow). Finish it now, so the counts are exact when this call returns — the caller then
    // acks the redelivery, and nothing else would bring those records back.
    const ours = new Set(this.waiting.map((w) => w.id));
    const others = [...new Set(owners.values())].filter((b) => b !== batch._id && !ours.has(b));
    if (others.length > 0) {
      const docs = await this.batches.find({ _id: { $in: others } });
      for (const doc of docs) await this.serially(() => this.finish(doc));
    }
    const claimed = claimedRecords(batch, owners);
    if (this.options.statsFlushMs === 0) {
      await this.serially(() => this.writeStats([claimed], true));
      return claimed.count;
    }
    this.waiting.push(claimed);
    this.waitingBytes += estimatedBytes(claimed, this.backendBytesPerEvent);
    if (this.waitingBytes >= MAX_WAITING_BYTES) await this.flush();
    else this.scheduleFlush();
    return claimed.count;
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined || this.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush().then(
        () => undefined,
        (err: unknown) => {
          this.flushError = `statistics of counted calls not written yet (retried in ${this.options.statsFlushMs} ms): ${err instanceof Error ? err.message : String(err)}`;
          if (this.waiting.length > 0) this.scheduleFlush();
        },
      );
    }, this.options.statsFlushMs);
    this.flushTimer.unref();
  }

  /** Steps 4–5 for every waiting batch; on failure they wait for the next flush (not after an injected crash). */
  private async writeWaiting(): Promise<void> {
    if (this.waiting.length === 0) return;
    const taken = this.waiting;
    this.waiting = [];
    this.waitingBytes = 0;
    try {
      await this.writeStats(taken, true);
    } catch (err) {
      if (!(err instanceof InjectedCrash)) {
        this.waiting = [...taken, ...this.waiting];
        this.waitingBytes = this.waiting.reduce((sum, b) => sum + estimatedBytes(b, this.backendBytesPerEvent), 0);
      }
      throw err;
    }
  }

  /** Steps 2, 4 and 5 for a stored batch another writer left. */
  private async finish(batch: BatchDoc): Promise<void> {
    await this.writeStats([claimedRecords(batch, await this.claims.claim(batch))], false);
  }

  /** Steps 4 and 5 for `batches`: each tool's statistics written once for all of them. */
  private async writeStats(batches: readonly ClaimedBatch[], original: boolean): Promise<void> {
    if (batches.length === 0) return;
    const byTool = new Map<string, ToolPart[]>();
    for (const batch of batches) {
      for (const [toolId, calls] of batch.byTool) {
        const parts = byTool.get(toolId);
        if (parts) parts.push({ batchId: batch.id, calls });
        else byTool.set(toolId, [{ batchId: batch.id, calls }]);
      }
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
    // Asked after every document above was obtained (see the header): a batch no longer stored was
    // finished by another process and is skipped; guard entries of such batches are dropped.
    const stored = await this.storedBatches(batches.map((b) => b.id), [...known.values()]);
    const groups = [...byTool];
    let next = 0;
    if (original && groups.length > 0) {
      // The first tool alone, so a crash injected after it finds the others untouched.
      const [toolId, parts] = groups[next++]!;
      await this.apply(toolId, parts, known.get(toolId) ?? null, stored);
      this.crashPoint('first-tool-applied');
    }
    // Tools are independent (each has its own document, guard and compare-and-set), so their writes
    // overlap: a round trip to FerretDB waits on FerretDB and PostgreSQL, which have cores of their own.
    await forEachLimited(groups.slice(next), STATS_WRITE_CONCURRENCY, ([toolId, parts]) => this.apply(toolId, parts, known.get(toolId) ?? null, stored));
    if (original) this.crashPoint('all-tools-applied');
    const ids = batches.map((b) => b.id);
    await this.batches.delete(ids.length === 1 ? { _id: ids[0] } : { _id: { $in: ids } });
  }

  /**
   * Folds the parts of batches still stored and not yet in the tool's guard into its stats, adds
   * those batches to the guard and drops the entries of batches no longer stored. `known` is the
   * tool's document (null: none) and `stored` the batches stored when asked after it was obtained,
   * both used for the first attempt; a retry reads and asks again.
   */
  private async apply(toolId: string, parts: readonly ToolPart[], known: StatsDoc | null, stored: ReadonlySet<string>): Promise<void> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = attempt === 0 ? (known ?? undefined) : await this.stats.get(toolId);
      const live = attempt === 0 ? stored : await this.storedBatches(parts.map((p) => p.batchId), [current ?? null]);
      const fresh = parts.filter((p) => live.has(p.batchId) && !current?.guard.some((g) => g.b === p.batchId));
      if (fresh.length === 0) return;
      const now = this.options.clock();
      const base = current ?? emptyStats(toolId);
      const digest = this.digests.take(toolId, base.latency);
      const next = foldCalls(base, fresh.map((p) => p.calls), now, this.options.hourlyRetentionHours, digest);
      next.guard = [...base.guard.filter((g) => live.has(g.b)), ...fresh.map((p) => ({ b: p.batchId, at: now }))];
      next.rev = base.rev + 1;
      const written = current ? await this.stats.replace({ _id: toolId, rev: current.rev }, next) : await this.stats.insert(next);
      this.cache.delete(toolId);
      if (written) {
        this.remember(next);
        this.digests.keep(toolId, next.latency, digest);
        return;
      }
      // Another writer changed this tool's stats in between: re-read and fold again.
      if (attempt >= 3) await sleep(Math.random() * Math.min(50, attempt * 2));
    }
    throw new StoreError('contention', `The statistics of ${toolId} are updated by too many writers at once; the events were not acknowledged, retry them.`);
  }

  /** Which of `ids` and of the batches in the guards of `docs` are still stored (one query). */
  private async storedBatches(ids: readonly string[], docs: ReadonlyArray<StatsDoc | null>): Promise<Set<string>> {
    const asked = new Set(ids);
    for (const doc of docs) for (const g of doc?.guard ?? []) asked.add(g.b);
    if (asked.size === 0) return asked;
    return new Set((await this.batches.find({ _id: { $in: [...asked] } }, { include: [] })).map((d) => d._id));
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
    throw new InjectedCrash(`Injected failure at ${step} (StoreOptions.failAt): the write stops here, as if the process died.`);
  }

  /** Runs `op` after every statistics write already queued (see {@link writes}). */
  private serially(op: () => Promise<void>): Promise<void> {
    const run = this.writes.then(op);
    this.writes = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}

/** The calls of `batch` that its claims give to it, by tool, packed (see call-slices.ts). */
function claimedRecords(batch: BatchDoc, owners: ReadonlyMap<string, string>): ClaimedBatch {
  const byTool = new Map<string, CallRecord[]>();
  let count = 0;
  for (const record of batch.events) {
    if (owners.get(record.id) !== batch._id) continue;
    count++;
    const group = byTool.get(record.t);
    if (group) group.push(record);
    else byTool.set(record.t, [record]);
  }
  return { id: batch._id, byTool: sliceByTool(byTool), count };
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
