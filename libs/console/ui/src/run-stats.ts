/**
 * Statistics of async runs computed from RunInfo records (ListRuns): queue wait, run time and
 * retries, as the dispatcher's Prometheus metrics count them, but over the runs the signed-in
 * principal can list (the only async-run figures the console's APIs give; no DOM here).
 */
export interface RunTimes {
  state?: string;
  attempts?: number;
  queuedUnixMs?: number;
  startedUnixMs?: number;
  finishedUnixMs?: number;
}

export interface RunSummary {
  runs: number;
  /** Runs by state name (RUN_STATE_…). */
  byState: Record<string, number>;
  /** Runs that have started (a queue wait is known). */
  started: number;
  queueWaitP50Ms: number | null;
  queueWaitP95Ms: number | null;
  /** Over runs that ended after starting. */
  runTimeP50Ms: number | null;
  runTimeP95Ms: number | null;
  /** Runs that took more than one attempt, and the extra attempts they took. */
  retriedRuns: number;
  retries: number;
}

/** Nearest-rank percentile of `values` (0 < q ≤ 1); null when empty. */
export function percentile(values: readonly number[], q: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Time from queueing to the first attempt's start; undefined while queued (or never started). */
export const queueWaitMs = (r: RunTimes) => (r.startedUnixMs && r.queuedUnixMs ? Math.max(0, r.startedUnixMs - r.queuedUnixMs) : undefined);

/** Time from the start to the end; while running, to `now`. */
export function runTimeMs(r: RunTimes, now: number): number | undefined {
  if (!r.startedUnixMs) return undefined;
  return Math.max(0, (r.finishedUnixMs || now) - r.startedUnixMs);
}

export function summarizeRuns(runs: readonly RunTimes[]): RunSummary {
  const byState: Record<string, number> = {};
  const waits: number[] = [];
  const times: number[] = [];
  let retriedRuns = 0;
  let retries = 0;
  for (const r of runs) {
    const state = r.state ?? 'RUN_STATE_UNSPECIFIED';
    byState[state] = (byState[state] ?? 0) + 1;
    const wait = queueWaitMs(r);
    if (wait !== undefined) waits.push(wait);
    if (r.startedUnixMs && r.finishedUnixMs) times.push(Math.max(0, r.finishedUnixMs - r.startedUnixMs));
    if ((r.attempts ?? 0) > 1) {
      retriedRuns++;
      retries += r.attempts! - 1;
    }
  }
  return {
    runs: runs.length,
    byState,
    started: waits.length,
    queueWaitP50Ms: percentile(waits, 0.5),
    queueWaitP95Ms: percentile(waits, 0.95),
    runTimeP50Ms: percentile(times, 0.5),
    runTimeP95Ms: percentile(times, 0.95),
    retriedRuns,
    retries,
  };
}

/** "850 ms", "12.3 s", "4 min 5 s". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
