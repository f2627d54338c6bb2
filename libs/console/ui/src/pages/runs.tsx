/**
 * The signed-in principal's async runs (ListRuns: newest first, paged, filtered by state), kept
 * fresh by short polling, and statistics of those runs: queue wait, run time, retries.
 */
import { useEffect, useRef, useState } from 'react';

import { call } from '../api';
import { ErrorBox, usePoll, when } from '../common';
import { useI18n } from '../i18n';
import { duration, queueWaitMs, runTimeMs, summarizeRuns, type RunSummary } from '../run-stats';
import type { RunInfo } from '../types';
import { RunProgress, StateBadge } from './run';

const STATES = ['RUN_STATE_QUEUED', 'RUN_STATE_RUNNING', 'RUN_STATE_SUCCEEDED', 'RUN_STATE_FAILED', 'RUN_STATE_CANCELLED', 'RUN_STATE_UNKNOWN'] as const;
const PAGE_SIZE = 20;
/** Runs the statistics are computed from (ListRuns answers at most 500 per page). */
const STATS_SAMPLE = 200;
const POLL_MS = 2000;

function RunStatsPanel() {
  const { t } = useI18n();
  const [summary, setSummary] = useState<RunSummary>();
  const [error, setError] = useState<unknown>();
  usePoll(() => {
    call<{ runs?: RunInfo[] }>('agent', 'ListRuns', { pageSize: STATS_SAMPLE }).then((r) => {
      setSummary(summarizeRuns(r.runs ?? []));
      setError(undefined);
    }, setError);
  }, 5000);
  return (
    <section aria-labelledby="run-stats-title">
      <h2 id="run-stats-title">{t('runs.stats')}</h2>
      <ErrorBox error={error} />
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

export function RunsPage() {
  const { t } = useI18n();
  const [state, setState] = useState('');
  /** page tokens of the pages before this one: the first is '' */
  const [tokens, setTokens] = useState<string[]>(['']);
  const [page, setPage] = useState<{ runs: RunInfo[]; next: string }>();
  const [error, setError] = useState<unknown>();
  const [now, setNow] = useState(Date.now());
  const token = tokens.at(-1) ?? '';
  const shown = useRef('');
  shown.current = `${state}|${token}`;
  const load = () => {
    const asked = `${state}|${token}`;
    call<{ runs?: RunInfo[]; nextPageToken?: string }>('agent', 'ListRuns', { pageSize: PAGE_SIZE, pageToken: token, state: state || undefined }).then((r) => {
      // An answer for a filter or page no longer shown is dropped.
      if (asked !== shown.current) return;
      setPage({ runs: r.runs ?? [], next: r.nextPageToken ?? '' });
      setNow(Date.now());
      setError(undefined);
    }, setError);
  };
  usePoll(load, POLL_MS);
  // A new filter or page loads at once, not at the next poll.
  useEffect(load, [state, token]);
  const filter = (s: string) => {
    setState(s);
    setTokens(['']);
    setPage(undefined);
  };
  return (
    <>
      <h1>{t('runs.title')}</h1>
      <p className="muted">{t('runs.help')}</p>
      <RunStatsPanel />
      <h2>{t('nav.runs')}</h2>
      <div className="toolbar">
        <label htmlFor="run-state">{t('runs.state')}</label>
        <select id="run-state" value={state} onChange={(e) => filter(e.target.value)}>
          <option value="">{t('runs.all')}</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {t(`state.${s}`).split(' (')[0]}
            </option>
          ))}
        </select>
        <span className="muted">
          {t('runs.page')} {tokens.length}
        </span>
        <button type="button" className="secondary" disabled={tokens.length < 2} onClick={() => setTokens([''])}>
          {t('runs.first')}
        </button>
        <button type="button" className="secondary" disabled={!page?.next} onClick={() => page?.next && setTokens([...tokens, page.next])}>
          {t('runs.next')}
        </button>
      </div>
      <ErrorBox error={error} />
      {page && page.runs.length === 0 && <p className="muted">{t('runs.none')}</p>}
      {page && page.runs.length > 0 && (
        <table data-testid="runs-table">
          <thead>
            <tr>
              <th scope="col">{t('runs.run')}</th>
              <th scope="col">{t('runs.tool')}</th>
              <th scope="col">{t('runs.state')}</th>
              <th scope="col">{t('runs.progress')}</th>
              <th scope="col">{t('runs.attempts')}</th>
              <th scope="col">{t('runs.queued')}</th>
              <th scope="col">{t('runs.queueWait')}</th>
              <th scope="col">{t('runs.runTime')}</th>
            </tr>
          </thead>
          <tbody>
            {page.runs.map((r) => (
              <tr key={r.runId} data-run-id={r.runId}>
                <td>
                  <a href={`#/run/${encodeURIComponent(r.runId)}`}>
                    <code>{r.runId}</code>
                  </a>
                </td>
                <td>
                  {r.provider}:{r.name}
                </td>
                <td>
                  <StateBadge state={r.state} />
                </td>
                <td>
                  <RunProgress run={r} id={`progress-${r.runId}`} />
                </td>
                <td>{r.attempts ?? 0}</td>
                <td>{when(r.queuedUnixMs)}</td>
                <td>{duration(queueWaitMs(r))}</td>
                <td>{duration(runTimeMs(r, now))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
