/** Overview: providers, live call rate, error rate and latency charts, top tools, quarantined tools, consumer lag, statistics of your async runs. */
import { useRef, useState } from 'react';

import { call } from '../api';
import { TimeChart } from '../chart';
import { ErrorBox, pct, usePoll } from '../common';
import { useI18n } from '../i18n';
import type { ProviderStatus, ToolStats } from '../types';
import { RunStatsPanel } from './run-stats-panel';

const POLL_MS = 2000;
const KEEP_SAMPLES = 150; // 5 minutes at one sample per 2 s

interface Sample {
  t: number;
  calls: number;
  failures: number;
  perTool: Map<string, { calls: number; p50: number; p95: number }>;
}
interface Point {
  t: number;
  perMin: number | null;
  errorRate: number | null;
  p50: number | null;
  p95: number | null;
}

/** One chart point from two consecutive samples: rates over the interval, latency weighted by calls. */
function point(prev: Sample, cur: Sample): Point {
  const dt = cur.t - prev.t;
  const dCalls = Math.max(0, cur.calls - prev.calls);
  const dFail = Math.max(0, cur.failures - prev.failures);
  let w = 0;
  let p50 = 0;
  let p95 = 0;
  for (const [id, s] of cur.perTool) {
    const d = s.calls - (prev.perTool.get(id)?.calls ?? 0);
    if (d > 0) {
      w += d;
      p50 += d * s.p50;
      p95 += d * s.p95;
    }
  }
  return { t: cur.t, perMin: dt > 0 ? (dCalls * 60_000) / dt : null, errorRate: dCalls ? dFail / dCalls : null, p50: w ? p50 / w : null, p95: w ? p95 / w : null };
}

export function OverviewPage() {
  const { t } = useI18n();
  const [providers, setProviders] = useState<ProviderStatus[]>();
  const [top, setTop] = useState<ToolStats[]>([]);
  const [lag, setLag] = useState<{ statsLagEvents?: number; statsLagSeconds?: number; ingestedEvents?: number }>();
  const [totals, setTotals] = useState<{ calls: number; failures: number }>();
  const [points, setPoints] = useState<Point[]>([]);
  const [error, setError] = useState<unknown>();
  const [providersError, setProvidersError] = useState<unknown>();
  const last = useRef<Sample | undefined>(undefined);

  usePoll(() => {
    Promise.all([
      // The agent API may be unconfigured (registry app without TOOLHUB_CONSOLE_AGENT_URL): the rest still shows.
      call<{ providers?: ProviderStatus[] }>('agent', 'ListProviders').catch((err: unknown) => {
        setProvidersError(err);
        return undefined;
      }),
      call<{ stats?: ToolStats[] }>('admin', 'ListToolStats', { sort: 'STATS_SORT_CALLS', limit: 1000 }),
      call<{ statsLagEvents?: number; statsLagSeconds?: number; ingestedEvents?: number }>('admin', 'GetRegistryStatus'),
    ]).then(([p, s, r]) => {
      setError(undefined);
      if (p) {
        setProvidersError(undefined);
        setProviders(p.providers ?? []);
      }
      const stats = s.stats ?? [];
      setTop(stats.slice(0, 10));
      setLag(r);
      const sample: Sample = { t: Date.now(), calls: 0, failures: 0, perTool: new Map() };
      for (const x of stats) {
        const calls = x.calls ?? 0;
        sample.calls += calls;
        sample.failures += calls - (x.successes ?? 0);
        sample.perTool.set(x.toolId, { calls, p50: x.latencyP50Ms ?? 0, p95: x.latencyP95Ms ?? 0 });
      }
      setTotals({ calls: sample.calls, failures: sample.failures });
      const prev = last.current;
      last.current = sample;
      if (prev) setPoints((ps) => [...ps, point(prev, sample)].slice(-KEEP_SAMPLES));
    }, setError);
  }, POLL_MS);

  const times = points.map((p) => p.t);
  const quarantined = (providers ?? []).flatMap((p) => (p.quarantined ?? []).map((q) => ({ provider: p.provider, ...q })));
  return (
    <>
      <h1>{t('nav.overview')}</h1>
      <ErrorBox error={error} />
      <section className="tiles" aria-label={t('nav.overview')}>
        <div className="tile">
          <span className="label">{t('ov.calls')}</span>
          <span className="value" data-testid="total-calls">
            {totals ? totals.calls : '…'}
          </span>
        </div>
        <div className="tile">
          <span className="label">{t('ov.callsPerMin')}</span>
          <span className="value" data-testid="calls-per-minute">
            {points.length ? Math.round(points[points.length - 1]!.perMin ?? 0) : '…'}
          </span>
        </div>
        <div className="tile">
          <span className="label">{t('ov.errorRate')}</span>
          <span className="value">{totals && totals.calls ? pct(totals.failures / totals.calls) : '—'}</span>
        </div>
        <div className="tile">
          <span className="label">{t('ov.lag')}</span>
          <span className="value" data-testid="consumer-lag">
            {lag ? `${lag.statsLagEvents ?? 0} ${t('ov.lagEvents')} / ${(lag.statsLagSeconds ?? 0).toFixed(1)} s` : '…'}
          </span>
        </div>
      </section>
      <section className="charts">
        <TimeChart title={t('ov.callsPerMin')} times={times} series={[{ label: t('ov.callsPerMin'), color: '#1f5fbf', values: points.map((p) => p.perMin) }]} />
        <TimeChart title={t('ov.errorRate')} times={times} series={[{ label: t('ov.errorRate'), color: '#b3261e', values: points.map((p) => (p.errorRate === null ? null : p.errorRate * 100)) }]} />
        <TimeChart
          title={t('ov.latency')}
          times={times}
          series={[
            { label: 'p50', color: '#2e7d32', values: points.map((p) => p.p50) },
            { label: 'p95', color: '#8e24aa', values: points.map((p) => p.p95) },
          ]}
        />
      </section>
      <p className="note">{t('ov.latencyNote')}</p>
      <div className="cols">
        <section>
          <h2>{t('ov.providers')}</h2>
          <ErrorBox error={providersError} />
          <table data-testid="providers">
            <thead>
              <tr>
                <th scope="col">{t('ov.provider')}</th>
                <th scope="col">{t('ov.live')}</th>
                <th scope="col">{t('ov.replicas')}</th>
                <th scope="col">{t('ov.tools')}</th>
              </tr>
            </thead>
            <tbody>
              {(providers ?? []).map((p) => (
                <tr key={p.provider}>
                  <td>{p.provider}</td>
                  <td>
                    <span className={p.healthy ? 'ok' : 'bad'}>{p.healthy ? t('ov.live') : t('ov.down')}</span>
                    {p.detail ? <span className="muted"> {p.detail}</span> : null}
                  </td>
                  <td>{p.replicas ?? 0}</td>
                  <td>{p.toolCount ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section>
          <h2>{t('ov.topTools')}</h2>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('tool.name')}</th>
                <th scope="col">{t('ov.calls')}</th>
                <th scope="col">{t('ov.successRate')}</th>
                <th scope="col">p50 / p95</th>
              </tr>
            </thead>
            <tbody>
              {top.map((s) => (
                <tr key={s.toolId}>
                  <td>
                    <a href={`#/tool/${s.toolId.split(':').map(encodeURIComponent).join('/')}`}>{s.toolId}</a>
                  </td>
                  <td>{s.calls ?? 0}</td>
                  <td>{pct(s.successRate)}</td>
                  <td>
                    {Math.round(s.latencyP50Ms ?? 0)} / {Math.round(s.latencyP95Ms ?? 0)} ms
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
      <section>
        <h2>{t('ov.quarantined')}</h2>
        {quarantined.length === 0 ? (
          <p>{t('ov.none')}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">{t('ov.provider')}</th>
                <th scope="col">{t('tool.name')}</th>
                <th scope="col">{t('ov.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {quarantined.map((q, i) => (
                <tr key={i}>
                  <td>{q.provider}</td>
                  <td>{q.tool || q.source || '—'}</td>
                  <td>{q.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <RunStatsPanel onOverview />
    </>
  );
}
