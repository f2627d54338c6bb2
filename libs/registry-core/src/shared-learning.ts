/**
 * Learning from use across registry replicas and restarts. The search's UsageMemory lives in one
 * process; a search is remembered by the replica that answered it, while its run (`tool.called`
 * with the search id) is consumed by any replica. So:
 *
 * - the consuming replica learns the run itself when it answered the search; otherwise it
 *   broadcasts the run (`learning.run`), and the replica that remembers the search learns it;
 * - the replica that learned it stores the observations (one insert each) and broadcasts them
 *   (`learning.learned`); every other replica adds them to its memory;
 * - at start a replica loads what the store kept (younger than {@link KEPT_HALF_LIVES} half-lives).
 *
 * Observations carry ids derived from the run's event id, so a redelivered run, a broadcast and
 * the store add each one once. Broadcasting runs (only those the consumer cannot resolve, a few
 * dozen bytes each) rather than every search (queries and their vectors, on the hot path, mostly
 * never followed by a run) keeps the cost with the runs. Broadcasts are core NATS, not durable: a
 * replica that misses one gets it from the store at its next start; a run whose search no live
 * replica remembers (answered before a restart) teaches nothing, as before.
 */
import { randomBytes } from 'node:crypto';

import type { SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus, Subscription } from '@toolhub/bus';
import { LearningObserved, LearningRun, learningSubject, type LearnedObservation as WireObservation, type ToolCalled } from '@toolhub/contracts';
import type { HybridSearch, LearnedObservation } from '@toolhub/search';
import type { RegistryStore } from '@toolhub/store';

/** Observations older than this many half-lives (weight below 1/256) are not loaded, and pruned. */
export const KEPT_HALF_LIVES = 8;

/** Learning from use shared through the bus and kept in the store (see the module comment). */
export class SharedLearning {
  /** Tells this replica's broadcasts from the others'. */
  readonly instanceId = randomBytes(8).toString('hex');
  private readonly savedSincePrune = new Map<string, number>();
  /** Stores and prunes one after another, off the caller's path; close() waits for them. */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly bus: Bus,
    private readonly store: RegistryStore,
    private readonly hybrid: HybridSearch,
    private readonly log: SdkLogger,
  ) {}

  /**
   * Follows the other replicas' learning, then loads what the store kept (a failing store is
   * logged: the registry starts with what it learns from now on). Nothing when learning is off.
   */
  async start(): Promise<Subscription[]> {
    if (!this.hybrid.usage) return [];
    // Subscribed before loading: what is learned meanwhile arrives twice at most, and counts once.
    const subs = [
      await this.bus.subscribe(learningSubject('run'), (m) => this.onRun(m.data)),
      await this.bus.subscribe(learningSubject('learned'), (m) => this.onLearned(m.data)),
    ];
    const since = Date.now() - KEPT_HALF_LIVES * this.hybrid.usage.settings.halfLifeMs;
    try {
      const kept = await this.store.listLearnedUses(Math.max(0, since));
      for (const use of kept) this.hybrid.usage.add(use);
      if (kept.length) this.log.info({ observations: kept.length }, 'learning from use: loaded what the store kept');
    } catch (err) {
      this.log.warn({ err }, 'learning from use: could not load what the store kept; learning from now on');
    }
    this.queue(async () => void (await this.store.pruneLearnedUses({ beforeUnixMs: Math.max(0, since) })), 'pruning old learned pairs failed; tried again at the next start');
    return subs;
  }

  /** Learns from successful runs that carry a search id (a `tool.called` batch, redeliveries included). */
  learnFrom(events: readonly ToolCalled[]): void {
    if (!this.hybrid.usage) return;
    for (const e of events) {
      if (!e.searchId || e.status !== 'ok') continue;
      const atUnixMs = Number(e.timestampUnixMs) || undefined;
      const learned = this.hybrid.learnRun(e.searchId, { runId: e.eventId || undefined, toolId: e.toolId, provider: e.provider, atUnixMs });
      if (learned) this.share(learned);
      // Another replica answered the search (or this one restarted since): whoever remembers it learns it.
      else this.broadcast('run', LearningRun.encode({ origin: this.instanceId, searchId: e.searchId, runId: e.eventId, toolId: e.toolId, provider: e.provider, atUnixMs: atUnixMs ?? 0 }).finish());
    }
  }

  /** Waits for stores in progress (call after the last learnFrom, before closing the store). */
  async close(): Promise<void> {
    await this.writes;
  }

  private onRun(data: Uint8Array): void {
    const run = LearningRun.decode(data);
    if (run.origin === this.instanceId) return;
    const learned = this.hybrid.learnRun(run.searchId, { runId: run.runId || undefined, toolId: run.toolId, provider: run.provider, atUnixMs: Number(run.atUnixMs) || undefined });
    if (learned) this.share(learned);
  }

  private onLearned(data: Uint8Array): void {
    const msg = LearningObserved.decode(data);
    if (msg.origin === this.instanceId) return;
    for (const o of msg.observations) this.hybrid.usage?.add(fromWire(o));
  }

  /** Observations this replica learned: to every other replica, and into the store (only here). */
  private share(learned: readonly LearnedObservation[]): void {
    if (learned.length === 0) return; // learned before (a redelivered run)
    this.broadcast('learned', LearningObserved.encode({ origin: this.instanceId, observations: learned.map(toWire) }).finish());
    this.queue(async () => {
      for (const use of learned) await this.store.saveLearnedUse(use);
      const provider = learned[0]!.provider;
      const saved = (this.savedSincePrune.get(provider) ?? 0) + learned.length;
      const settings = this.hybrid.usage!.settings;
      // Every tenth of the bound: the stored pairs of a provider stay within 1.1 × maxPerProvider
      // per writing replica, and a prune deletes about a tenth of it.
      if (saved < Math.max(1, Math.floor(settings.maxPerProvider / 10))) {
        this.savedSincePrune.set(provider, saved);
        return;
      }
      this.savedSincePrune.set(provider, 0);
      await this.store.pruneLearnedUses({ provider, keepNewest: settings.maxPerProvider, beforeUnixMs: Math.max(0, Date.now() - KEPT_HALF_LIVES * settings.halfLifeMs) });
    }, 'storing learned pairs failed; they are held in memory and lost at the next restart');
  }

  /** Publishes without throwing: learning must not fail the statistics consumer that calls learnFrom. */
  private broadcast(kind: 'run' | 'learned', data: Uint8Array): void {
    try {
      this.bus.publish(learningSubject(kind), data);
    } catch (err) {
      this.log.warn({ err, kind }, 'learning from use: broadcast to the other registry replicas failed; they learn it at their next start, if it was stored');
    }
  }

  private queue(write: () => Promise<void>, failure: string): void {
    this.writes = this.writes.then(write).catch((err: unknown) => this.log.warn({ err }, `learning from use: ${failure}`));
  }
}

function toWire(o: LearnedObservation): WireObservation {
  return {
    id: o.id,
    query: o.query,
    toolId: o.toolId,
    provider: o.provider,
    atUnixMs: o.atUnixMs,
    vector: o.vector ? Buffer.from(o.vector.buffer, o.vector.byteOffset, o.vector.byteLength) : Buffer.alloc(0),
  };
}

function fromWire(o: WireObservation): LearnedObservation {
  const use: LearnedObservation = { id: o.id, query: o.query, toolId: o.toolId, provider: o.provider, atUnixMs: Number(o.atUnixMs) };
  if (o.vector.byteLength > 0 && o.vector.byteLength % 4 === 0) use.vector = new Float32Array(Uint8Array.from(o.vector).buffer);
  return use;
}
