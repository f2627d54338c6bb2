/**
 * Bounds on queued async runs: at most `perPrincipal` runs of one principal and `total` runs in all
 * may wait in the queue (state `queued`); StartRun past either is refused with RESOURCE_EXHAUSTED.
 *
 * Counting queued runs in the store on every StartRun is too dear (FerretDB counted 6,666 queued
 * records in ~490 ms), so each count is cached and refreshed in the background at most every
 * `refreshMs`, with this dispatcher's own starts added meanwhile. A start that would pass a limit
 * is checked against a fresh count before it is refused, so runs that left the queue meanwhile
 * are not held against the caller. Other replicas' starts are seen at the next refresh: together,
 * replicas may pass a limit by what they accept in that time.
 */
import { ToolHubError } from '@toolhub/contracts';
import type { RunStore } from '@toolhub/run-store';

/** Limits of {@link QueueLimits}. */
export interface QueueLimitOptions {
  /** Queued runs one principal may have. @default 1000 */
  perPrincipal?: number;
  /** Queued runs in all. @default 10000 */
  total?: number;
  /** Longest a cached count is used before it is counted again. @default 2000 */
  refreshMs?: number;
}

/** Which limit refused a start. */
export type QueueLimitKind = 'principal' | 'total';

interface Count {
  /** Queued runs as last counted, plus this dispatcher's starts since. */
  n: number;
  /** When it was counted (0: never). */
  at: number;
  /** Starts added since the count: the count is too high by those that started meanwhile. */
  added: number;
  refreshing?: Promise<number>;
}

/** A count younger than this is fresh enough to refuse on. */
const FRESH_MS = 250;
/** Principals whose counts are cached at most (the oldest are dropped). */
const MAX_PRINCIPALS = 10_000;

export class QueueLimits {
  readonly perPrincipal: number;
  readonly total: number;
  private readonly refreshMs: number;
  private readonly all: Count = { n: 0, at: 0, added: 0 };
  private readonly principals = new Map<string, Count>();
  /** Refusals by limit (metrics). */
  readonly refused: Record<QueueLimitKind, number> = { principal: 0, total: 0 };

  constructor(
    private readonly store: Pick<RunStore, 'countInStates'>,
    options: QueueLimitOptions = {},
  ) {
    this.perPrincipal = options.perPrincipal ?? 1000;
    this.total = options.total ?? 10_000;
    this.refreshMs = options.refreshMs ?? 2000;
  }

  /**
   * Resolves when one more queued run of `principalId` fits, counting it; rejects otherwise.
   * @throws ToolHubError rate_limited (RESOURCE_EXHAUSTED) saying how many are queued, the limit, and what to do
   */
  async admit(principalId: string): Promise<void> {
    const mine = this.principalCount(principalId);
    const [total, own] = await Promise.all([this.current(this.all, undefined, this.total), this.current(mine, principalId, this.perPrincipal)]);
    if (own >= this.perPrincipal) throw this.refuse('principal', own);
    if (total >= this.total) throw this.refuse('total', total);
    for (const c of [this.all, mine]) {
      c.n++;
      c.added++;
    }
  }

  /**
   * The count, refreshed in the background when stale. At the limit it is counted afresh unless it
   * was counted in the last FRESH_MS with nothing added since, so a refusal rests on the store's count.
   */
  private async current(count: Count, principalId: string | undefined, limit: number): Promise<number> {
    const age = Date.now() - count.at;
    if (count.at === 0 || (count.n >= limit && (count.added > 0 || age > FRESH_MS))) return this.recount(count, principalId, limit);
    if (age > this.refreshMs) void this.recount(count, principalId, limit).catch(() => undefined);
    return count.n;
  }

  private recount(count: Count, principalId: string | undefined, limit: number): Promise<number> {
    count.refreshing ??= this.store
      .countInStates(['queued'], { principalId, limit: limit + 1 })
      .then((n) => {
        count.n = n;
        count.at = Date.now();
        count.added = 0;
        return n;
      })
      .finally(() => (count.refreshing = undefined));
    return count.refreshing;
  }

  private principalCount(principalId: string): Count {
    let c = this.principals.get(principalId);
    if (!c) {
      if (this.principals.size >= MAX_PRINCIPALS) this.principals.delete(this.principals.keys().next().value!);
      this.principals.set(principalId, (c = { n: 0, at: 0, added: 0 }));
    }
    return c;
  }

  private refuse(kind: QueueLimitKind, queued: number): ToolHubError {
    this.refused[kind]++;
    const limit = kind === 'principal' ? this.perPrincipal : this.total;
    const what =
      kind === 'principal'
        ? `You have ${queued} async runs queued (not started yet); the limit per caller is ${limit} (TOOLHUB_RUN_MAX_QUEUED_PER_PRINCIPAL).`
        : `${queued} async runs are queued on this ToolHub (all callers); the limit is ${limit} (TOOLHUB_RUN_MAX_QUEUED).`;
    return new ToolHubError(
      'rate_limited',
      `${what} Nothing was started. Wait for queued runs to start or end (ListRuns with state QUEUED shows yours; CancelRun drops ones you no longer need), then call StartRun again; or use RunTool for a short call.`,
      { retryable: true, retryAfterMs: 5000 },
    );
  }
}
