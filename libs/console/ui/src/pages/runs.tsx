/**
 * The signed-in principal's async runs (ListRuns: newest first, paged, filtered by state), kept
 * fresh by short polling, and statistics of those runs: queue wait, run time, retries.
 */
import { useEffect, useRef, useState } from 'react';

import { call } from '../api';
import { ErrorBox, usePoll, when } from '../common';
import { useI18n } from '../i18n';
import { duration, queueWaitMs, runTimeMs } from '../run-stats';
import type { RunInfo } from '../types';
import { RunProgress, StateBadge } from './run';
import { RUN_STATES as STATES, RunStatsPanel } from './run-stats-panel';

const PAGE_SIZE = 20;
const POLL_MS = 2000;

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
