/**
 * One async run, live: state, tool, times, attempts, a progress bar and log lines pushed by
 * WatchRun (relayed by the console as Server-Sent Events), then its result or error; Cancel asks
 * for confirmation, then calls CancelRun.
 */
import { type FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError, call, watch } from '../api';
import { ErrorBox, Violations, when } from '../common';
import { type TextKey, useI18n } from '../i18n';
import { duration, queueWaitMs, runTimeMs } from '../run-stats';
import type { ErrorInfo, RunInfo, RunResult, WatchRunUpdate } from '../types';

const ENDED = new Set(['RUN_STATE_SUCCEEDED', 'RUN_STATE_FAILED', 'RUN_STATE_CANCELLED', 'RUN_STATE_UNKNOWN']);
export const runEnded = (r?: RunInfo) => ENDED.has(r?.state ?? '');
/** Errors after which watching again cannot help. */
const FINAL_ERRORS = new Set(['NOT_FOUND', 'PERMISSION_DENIED', 'UNAUTHENTICATED', 'INVALID_ARGUMENT']);

export function StateBadge({ state, testId }: { state?: string; testId?: string }) {
  const { t } = useI18n();
  const s = state ?? 'RUN_STATE_UNSPECIFIED';
  return (
    <span className={`state state-${s.replace('RUN_STATE_', '').toLowerCase()}`} data-state={s} data-testid={testId}>
      {t(`state.${s}` as TextKey) ?? s}
    </span>
  );
}

/** The run's progress: a bar when a total is known, the count and the tool's status line. */
export function RunProgress({ run, id }: { run: RunInfo; id: string }) {
  const p = run.progress ?? {};
  const total = p.total ?? 0;
  const done = p.progress ?? 0;
  const label = [total > 0 ? `${done} / ${total}` : done ? String(done) : '', p.message ?? ''].filter(Boolean).join(' · ');
  const ended = runEnded(run);
  return (
    <div className="run-progress">
      {total > 0 ? <progress id={id} max={total} value={done} aria-label={label || '—'} /> : !ended && run.state === 'RUN_STATE_RUNNING' ? <progress id={id} aria-label={label || '…'} /> : null}
      <span className="muted" data-testid="run-progress-text">
        {label || '—'}
      </span>
    </div>
  );
}

export function ErrorInfoBox({ error }: { error?: ErrorInfo }) {
  if (!error?.message) return null;
  return (
    <div className="error" data-testid="run-error">
      <strong>{(error.code ?? '').replace('ERROR_CODE_', '').toLowerCase()}</strong>: {error.message}
      <Violations violations={error.violations} />
      {error.suggestions?.length ? <p>{error.suggestions.join(' · ')}</p> : null}
    </div>
  );
}

export function ResultView({ result }: { result: RunResult }) {
  return (
    <div data-testid="run-result">
      <p>
        <strong>{result.status}</strong> · {result.latencyMs ?? 0} ms{result.servedBy ? ` · ${result.servedBy}` : ''}
      </p>
      {(result.content ?? []).map((c, i) => (
        <pre key={i}>{c.text ?? JSON.stringify(c.json ?? c, null, 2)}</pre>
      ))}
      {result.structured !== undefined && <pre>{JSON.stringify(result.structured, null, 2)}</pre>}
    </div>
  );
}

/** Follows the run through WatchRun; opens a new stream when one ends (deadline, network) before the run. */
function useWatchedRun(runId: string) {
  const [run, setRun] = useState<RunInfo>();
  const [error, setError] = useState<unknown>();
  const [reconnecting, setReconnecting] = useState(false);
  useEffect(() => {
    const abort = new AbortController();
    let ended = false;
    let retryMs = 1000;
    const open = (): void => {
      watch<WatchRunUpdate>(
        'agent',
        'WatchRun',
        { runId },
        (u) => {
          if (!u.run) return;
          setRun(u.run);
          setError(undefined);
          setReconnecting(false);
          retryMs = 1000;
          if (u.final) ended = true;
        },
        abort.signal,
      ).then(
        () => {
          if (ended || abort.signal.aborted) return;
          setReconnecting(true);
          setTimeout(open, retryMs);
        },
        (err: unknown) => {
          if (abort.signal.aborted) return;
          setError(err);
          if (err instanceof ApiError && FINAL_ERRORS.has(err.grpcStatus)) return;
          setReconnecting(true);
          setTimeout(open, retryMs);
          retryMs = Math.min(retryMs * 2, 15_000);
        },
      );
    };
    open();
    return () => abort.abort();
  }, [runId]);
  return { run, setRun, error, reconnecting };
}

function CancelBox({ run, onCancelled }: { run: RunInfo; onCancelled: (r: RunInfo) => void }) {
  const { t } = useI18n();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const reasonRef = useRef<HTMLInputElement>(null);
  // The confirmation takes the focus, so a keyboard user lands in it.
  useEffect(() => {
    if (asking) reasonRef.current?.focus();
  }, [asking]);
  if (run.cancelRequested) return <p className="warn">{t('runs.cancelRequested')}</p>;
  if (!asking) {
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        {t('runs.cancel')}
      </button>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    call<{ run?: RunInfo }>('agent', 'CancelRun', { runId: run.runId, reason })
      .then((r) => {
        if (r.run) onCancelled(r.run);
        setAsking(false);
      }, setError)
      .finally(() => setBusy(false));
  };
  return (
    <form className="confirm" role="alertdialog" aria-labelledby="cancel-ask" onSubmit={submit} data-testid="cancel-confirm">
      <p id="cancel-ask">{t('runs.cancelAsk')}</p>
      <div className="field">
        <label htmlFor="cancel-reason">{t('runs.cancelReason')}</label>
        <input id="cancel-reason" ref={reasonRef} type="text" value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
      </div>
      <div className="inline">
        <button type="submit" className="danger" disabled={busy}>
          {t('runs.cancelYes')}
        </button>
        <button type="button" className="secondary" onClick={() => setAsking(false)}>
          {t('runs.cancelNo')}
        </button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

export function RunPage({ runId }: { runId: string }) {
  const { t } = useI18n();
  const { run, setRun, error, reconnecting } = useWatchedRun(runId);
  const [now, setNow] = useState(Date.now());
  const ended = runEnded(run);
  useEffect(() => {
    if (ended) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ended]);
  const log = run?.logLines ?? [];
  return (
    <>
      <p>
        <a href="#/runs">← {t('runs.back')}</a>
      </p>
      <h1>
        {t('runs.detail')} <code>{runId}</code>
      </h1>
      <ErrorBox error={error} />
      {run && (
        <>
          <p className="inline" aria-live="polite">
            <StateBadge state={run.state} testId="run-state" />
            <span className="muted">{ended ? t('runs.ended') : reconnecting ? t('runs.reconnecting') : t('runs.live')}</span>
          </p>
          <div className="cols">
            <section>
              <dl className="stats" data-testid="run-facts">
                <dt>{t('runs.tool')}</dt>
                <dd>
                  <a href={`#/tool/${encodeURIComponent(run.provider ?? '')}/${encodeURIComponent(run.name ?? '')}`}>
                    {run.provider}:{run.name}
                  </a>
                </dd>
                <dt>{t('runs.attempts')}</dt>
                <dd data-testid="run-attempts">{run.attempts ?? 0}</dd>
                <dt>{t('runs.queued')}</dt>
                <dd>{when(run.queuedUnixMs)}</dd>
                <dt>{t('runs.started')}</dt>
                <dd>{when(run.startedUnixMs)}</dd>
                <dt>{t('runs.finished')}</dt>
                <dd>{when(run.finishedUnixMs)}</dd>
                <dt>{t('runs.queueWait')}</dt>
                <dd>{duration(queueWaitMs(run) ?? (run.state === 'RUN_STATE_QUEUED' && run.queuedUnixMs ? now - run.queuedUnixMs : undefined))}</dd>
                <dt>{t('runs.runTime')}</dt>
                <dd>{duration(runTimeMs(run, now))}</dd>
                {run.caller ? (
                  <>
                    <dt>{t('runs.caller')}</dt>
                    <dd>{run.caller}</dd>
                  </>
                ) : null}
                {run.idempotencyKey ? (
                  <>
                    <dt>{t('runs.idempotencyKey')}</dt>
                    <dd>
                      <code>{run.idempotencyKey}</code>
                    </dd>
                  </>
                ) : null}
                {run.expiresUnixMs ? (
                  <>
                    <dt>{t('runs.expires')}</dt>
                    <dd>{when(run.expiresUnixMs)}</dd>
                  </>
                ) : null}
              </dl>
              {/* The stream may have brought the end before CancelRun's answer (still "running"): an ended run stays ended. */}
              {!ended && <CancelBox run={run} onCancelled={(r) => setRun((cur) => (runEnded(cur) ? cur : r))} />}
            </section>
            <section>
              <h2 id="progress-label">{t('runs.progress')}</h2>
              <RunProgress run={run} id="run-progress" />
              <h2>{t('runs.log')}</h2>
              {log.length ? (
                <pre data-testid="run-log" tabIndex={0} aria-label={t('runs.log')}>
                  {log.join('\n')}
                </pre>
              ) : (
                <p className="muted">{t('runs.noLog')}</p>
              )}
            </section>
          </div>
          {(run.result || run.error) && (
            <section>
              {run.result && (
                <>
                  <h2>{t('runs.result')}</h2>
                  <ResultView result={run.result} />
                </>
              )}
              {run.error?.message && (
                <>
                  <h2>{t('runs.error')}</h2>
                  <ErrorInfoBox error={run.error} />
                </>
              )}
            </section>
          )}
        </>
      )}
    </>
  );
}
