/**
 * Statistics of the signed-in principal's async runs (queue wait, run time, retries), computed from
 * ListRuns: shown on the Runs page and the overview. Dispatcher-wide figures are Prometheus metrics only.
 */
import { useState } from 'react';

import { ApiError, call } from '../api';
import { ErrorBox, usePoll } from '../common';
import { useI18n } from '../i18n';
import { duration, summarizeRuns, type RunSummary } from '../run-stats';
import type { RunInfo } from '../types';

export const RUN_STATES = ['RUN_STATE_QUEUED', 'RUN_STATE_RUNNING', 'RUN_STATE_SUCCEEDED', 'RUN_STATE_FAILED', 'RUN_STATE_CANCELLED', 'RUN_STATE_UNKNOWN'] as const;
const STATES = RUN_STATES;
/** Runs the statistics are computed from (ListRuns answers at most 500 per page). */
const STATS_SAMPLE = 200;
/** Async runs are off on the dispatcher, or the console has no agent API. */
const OFF = new Set(['FAILED_PRECONDITION', 'UNAVAILABLE']);

export function RunStatsPanel({ onOverview = false }: { onOverview?: boolean }) {
  const { t } = useI18n();
  const [summary, setSummary] = useState<RunSummary>();
  const [error, setError] = useState<unknown>();
  usePoll(() => {
    call<{ runs?: RunInfo[] }>('agent', 'ListRuns', { pageSize: STATS_SAMPLE }).then(
      (r) => {
        setSummary(summarizeRuns(r.runs ?? []));
        setError(undefined);
      },
      (err: unknown) => {
        setSummary(undefined);
        setError(err);
      },
    );
  }, 5000);
  return (
    <section aria-labelledby="run-stats-title">
      <h2 id="run-stats-title">
        {t('runs.stats')}
        {onOverview ? (
          <>
            {' '}
            <a className="small-link" href="#/runs">
              {t('nav.runs')} →
            </a>
          </>
        ) : null}
      </h2>
      {/* Async runs off (no run store) or no agent API: a note, not an alarm, on the overview. */}
      {onOverview && error instanceof ApiError && OFF.has(error.grpcStatus) ? <p className="muted">{error.message}</p> : <ErrorBox error={error} />}
      {summary && (
        <>
          <div className="tiles" data-testid="run-stats">
            <div className="tile">
              <span className="label">{t('runs.count')}</span>
              <span className="value" data-testid="run-stats-count">
                {summary.runs}
              </span>
              <span className="note">
                {STATES.filter((s) => summary.byState[s])
                  .map((s) => `${t(`state.${s}`).split(' ')[0]} ${summary.byState[s]}`)
                  .join(' · ') || '—'}
              </span>
            </div>
            <div className="tile">
              <span className="label">
                {t('runs.queueWait')} ({t('runs.p50p95')})
              </span>
              <span className="value" data-testid="run-stats-wait">
                {duration(summary.queueWaitP50Ms)} / {duration(summary.queueWaitP95Ms)}
              </span>
            </div>
            <div className="tile">
              <span className="label">
                {t('runs.runTime')} ({t('runs.p50p95')})
              </span>
              <span className="value" data-testid="run-stats-time">
                {duration(summary.runTimeP50Ms)} / {duration(summary.runTimeP95Ms)}
              </span>
            </div>
            <div className="tile">
              <span className="label">{t('runs.retried')}</span>
              <span className="value" data-testid="run-stats-retries">
                {summary.retriedRuns} ({summary.retries})
              </span>
            </div>
          </div>
          <p className="note">
            {t('runs.statsSample').replace('{n}', String(summary.runs))} {t('runs.statsNote')}
          </p>
        </>
      )}
    </section>
  );
}

