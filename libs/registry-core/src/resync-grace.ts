/**
 * The registry's grace period after it starts. A started registry serves the catalogs it stored,
 * which may be stale: while no registry listened, an adapter's catalog may have changed or the
 * adapter may have gone. The registry asks every live adapter to announce again (resync) and gives
 * them `graceMs`; then each provider it loaded from the store is settled:
 *
 * - **confirmed** — this replica synced an announcement of it since the start, or a live replica's
 *   heartbeat reports the catalog version the store holds (a re-announcement that another registry
 *   replica took and skipped as the catalog already in place): nothing to do;
 * - **no live replica** — retired: its adapter tools leave the store, search and tool info (their
 *   overlays and statistics are kept and come back with the tools when an adapter announces again);
 * - **live, other catalog** (the announcement was lost, or its sync failed) — asked to announce
 *   again and checked after another grace period; after `rounds` rounds it stays as it is, with a
 *   warning (its adapter answers for itself: a tool it no longer has fails with not_found there).
 *
 * Nothing here throws into the registry: a failed check or retirement is logged and tried again in
 * the next round, within `rounds`.
 */
import type { SdkLogger } from '@toolhub/adapter-sdk';

export interface ResyncGraceOptions {
  /**
   * How long after the start adapters have to announce again before stored catalogs they did not
   * confirm are settled (see the module comment). 0 turns settling off: stored catalogs are served
   * until their adapters announce. @default 30000
   */
  graceMs?: number;
  /** Rounds of `graceMs` a live provider with another catalog version is asked again. @default 3 */
  rounds?: number;
}

/** What the registry knows about a provider when a round settles it. */
export interface ProviderCheck {
  /** A replica was heard from within the liveness TTL. */
  live: boolean;
  /** A live replica's heartbeat reports the catalog version of the provider's stored adapter tools. */
  matchesStore: boolean;
}

/** The registry's side of settling: each may fail (store down); the round then logs and retries. */
export interface GraceHandlers {
  inspect(provider: string): Promise<ProviderCheck>;
  /**
   * Removes the provider's adapter tools, unless an announcement of it arrived at or after
   * `checkedAt` (when `inspect` was asked): then it resolves false and the provider is checked
   * again in the next round.
   */
  retire(provider: string, checkedAt: number): Promise<boolean>;
  /** Asks every adapter to announce its catalog again. */
  askAgain(): void;
}

/** What one round did, provider names sorted. */
export interface GraceRound {
  confirmed: string[];
  retired: string[];
  /** Live with another catalog version, or not settled because a step failed: checked next round. */
  pending: string[];
  /** Live with another catalog version after the last round: left as they are. */
  gaveUp: string[];
}

export class ResyncGrace {
  /** Unconfirmed providers → rounds they have been through. */
  private readonly unsettled = new Map<string, number>();
  private readonly graceMs: number;
  private readonly rounds: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The round in progress, if any: rounds never overlap. */
  private running: Promise<GraceRound> | undefined;

  constructor(
    providers: Iterable<string>,
    private readonly handlers: GraceHandlers,
    private readonly log: SdkLogger,
    options: ResyncGraceOptions = {},
  ) {
    this.graceMs = options.graceMs ?? 30_000;
    this.rounds = Math.max(1, options.rounds ?? 3);
    for (const p of providers) this.unsettled.set(p, 0);
  }

  /** Schedules the first round, `graceMs` from now (nothing when off or nothing is unconfirmed). */
  start(): void {
    this.schedule();
  }

  /** A sync of `provider` was applied: its catalog is current. */
  confirm(provider: string): void {
    this.unsettled.delete(provider);
  }

  /** Providers loaded from the store that have not been settled yet, sorted. */
  get unconfirmed(): string[] {
    return [...this.unsettled.keys()].sort();
  }

  /** Runs one round now (the timer calls it; tests call it directly); a call during a round joins it. */
  settle(): Promise<GraceRound> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<GraceRound> {
    const round: GraceRound = { confirmed: [], retired: [], pending: [], gaveUp: [] };
    let askAgain = false;
    for (const provider of this.unconfirmed) {
      if (this.closed) break;
      const rounds = (this.unsettled.get(provider) ?? 0) + 1;
      let live = false;
      try {
        const checkedAt = Date.now();
        const check = await this.handlers.inspect(provider);
        if (!this.unsettled.has(provider)) continue; // confirmed by a sync meanwhile
        if (check.live && check.matchesStore) {
          this.unsettled.delete(provider);
          round.confirmed.push(provider);
          continue;
        }
        if (!check.live && (await this.handlers.retire(provider, checkedAt))) {
          this.unsettled.delete(provider);
          round.retired.push(provider);
          continue;
        }
        live = check.live;
      } catch (err) {
        this.log.warn({ err, provider }, 'could not settle a stored catalog after the registry start; trying again');
      }
      if (!this.unsettled.has(provider)) continue;
      if (rounds >= this.rounds) {
        this.unsettled.delete(provider);
        round.gaveUp.push(provider);
      } else {
        this.unsettled.set(provider, rounds);
        round.pending.push(provider);
        askAgain ||= live;
      }
    }
    if (round.retired.length) this.log.info({ providers: round.retired }, 'retired stored catalogs: no adapter replica re-announced within the grace period after the registry start');
    if (round.gaveUp.length) this.log.warn({ providers: round.gaveUp }, `stored catalogs left as they are after ${this.rounds} rounds: live adapters report another catalog version (or checking failed)`);
    try {
      if (askAgain && !this.closed) this.handlers.askAgain();
    } catch (err) {
      // The bus is down or closing: the next round asks again.
      this.log.warn({ err }, 'could not ask adapters to announce again after the registry start');
    }
    this.schedule();
    return round;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed || this.graceMs <= 0 || this.unsettled.size === 0) return;
    this.timer = setTimeout(() => void this.settle().catch((err: unknown) => this.log.warn({ err }, 'resync grace round failed')), this.graceMs);
    this.timer.unref();
  }
}
