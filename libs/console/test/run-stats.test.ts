/** The Runs page's statistics (ui/src/run-stats.ts): queue wait, run time and retries from RunInfo records. */
import { duration, percentile, queueWaitMs, runTimeMs, summarizeRuns } from '../ui/src/run-stats';

describe('run statistics of the console', () => {
  const runs = [
    { state: 'RUN_STATE_SUCCEEDED', attempts: 1, queuedUnixMs: 1000, startedUnixMs: 1010, finishedUnixMs: 1510 },
    { state: 'RUN_STATE_SUCCEEDED', attempts: 3, queuedUnixMs: 2000, startedUnixMs: 2200, finishedUnixMs: 4200 },
    { state: 'RUN_STATE_CANCELLED', attempts: 1, queuedUnixMs: 3000, startedUnixMs: 3050, finishedUnixMs: 3150 },
    // Cancelled while queued: never started, so neither a queue wait nor a run time.
    { state: 'RUN_STATE_CANCELLED', attempts: 0, queuedUnixMs: 4000, startedUnixMs: 0, finishedUnixMs: 4100 },
    { state: 'RUN_STATE_RUNNING', attempts: 2, queuedUnixMs: 5000, startedUnixMs: 5400 },
  ];

  it('counts runs by state, and retries as the attempts past the first', () => {
    const s = summarizeRuns(runs);
    expect(s.runs).toBe(5);
    expect(s.byState).toEqual({ RUN_STATE_SUCCEEDED: 2, RUN_STATE_CANCELLED: 2, RUN_STATE_RUNNING: 1 });
    expect(s.retriedRuns).toBe(2);
    expect(s.retries).toBe(3);
  });

  it('takes queue waits of started runs and run times of runs that started and ended (nearest-rank percentiles)', () => {
    const s = summarizeRuns(runs);
    // waits: 10, 200, 50, 400 → p50 50 (rank 2 of 4), p95 400
    expect(s.started).toBe(4);
    expect([s.queueWaitP50Ms, s.queueWaitP95Ms]).toEqual([50, 400]);
    // run times: 500, 2000, 100 → p50 500, p95 2000
    expect([s.runTimeP50Ms, s.runTimeP95Ms]).toEqual([500, 2000]);
  });

  it('has no percentiles without data, and a running run’s time runs to now', () => {
    expect(summarizeRuns([])).toMatchObject({ runs: 0, queueWaitP50Ms: null, runTimeP95Ms: null, retries: 0 });
    expect(percentile([], 0.5)).toBeNull();
    expect(queueWaitMs({ queuedUnixMs: 5 })).toBeUndefined();
    expect(runTimeMs({ startedUnixMs: 5400 }, 6000)).toBe(600);
    expect(runTimeMs({ startedUnixMs: 0 }, 6000)).toBeUndefined();
  });

  it('writes durations readably', () => {
    expect([duration(null), duration(12.4), duration(1234), duration(125_000)]).toEqual(['—', '12 ms', '1.2 s', '2 min 5 s']);
  });
});
