/** One tool: readable schema, examples, statistics, history, and a "try it" form generated from the schema. */
import { useState } from 'react';

import { call } from '../api';
import { ErrorBox, pct, useLoad, when } from '../common';
import { useI18n } from '../i18n';
import type { AuditEntry, Json, RegisteredTool, ToolStats } from '../types';
import { ArgumentsForm } from './try-it';

interface Prop {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

export function SchemaTable({ schema }: { schema?: Json }) {
  const { t } = useI18n();
  const props = (schema?.['properties'] ?? {}) as Record<string, Prop>;
  const required = new Set((schema?.['required'] as string[] | undefined) ?? []);
  const names = Object.keys(props);
  if (!names.length) return <p className="muted">—</p>;
  return (
    <table data-testid="schema">
      <thead>
        <tr>
          <th scope="col">{t('tool.name')}</th>
          <th scope="col">{t('tool.type')}</th>
          <th scope="col">{t('tool.required')}</th>
          <th scope="col">{t('tool.description')}</th>
        </tr>
      </thead>
      <tbody>
        {names.map((n) => {
          const p = props[n]!;
          const limits = [p.enum ? `one of ${p.enum.map((e) => JSON.stringify(e)).join(', ')}` : '', p.minimum !== undefined ? `≥ ${p.minimum}` : '', p.maximum !== undefined ? `≤ ${p.maximum}` : '', p.default !== undefined ? `default ${JSON.stringify(p.default)}` : '']
            .filter(Boolean)
            .join('; ');
          return (
            <tr key={n}>
              <td>
                <code>{n}</code>
              </td>
              <td>{Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any')}</td>
              <td>{required.has(n) ? '✓' : ''}</td>
              <td>
                {p.description}
                {limits ? <span className="muted"> ({limits})</span> : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function ToolPage({ provider, name }: { provider: string; name: string }) {
  const { t } = useI18n();
  const id = `${provider}:${name}`;
  const tool = useLoad(() => call<{ tool?: RegisteredTool }>('admin', 'GetTool', { provider, name }), [id]);
  const stats = useLoad(
    () => call<{ stats?: ToolStats }>('admin', 'GetToolStats', { toolId: id }).catch((e: unknown) => ((e as { grpcStatus?: string }).grpcStatus === 'NOT_FOUND' ? {} : Promise.reject(e))),
    [id],
  );
  const history = useLoad(() => call<{ entries?: AuditEntry[] }>('admin', 'ListAuditLog', { target: id, limit: 20 }), [id]);
  const [showRendered, setShowRendered] = useState(false);
  const info = tool.data?.tool?.tool;
  const s = (stats.data as { stats?: ToolStats } | undefined)?.stats;
  return (
    <>
      <p>
        <a href="#/catalog">← {t('nav.catalog')}</a>
      </p>
      <h1>{id}</h1>
      <ErrorBox error={tool.error ?? stats.error ?? history.error} />
      {info && (
        <>
          <p className="muted">
            {info.path || '/'} · {info.version} · {tool.data?.tool?.origin} · {tool.data?.tool?.overlay?.enabled === false ? 'disabled' : 'enabled'}
          </p>
          <p className="description">{info.description}</p>
          {info.outputDescription && (
            <p>
              <strong>{t('tool.output')}:</strong> {info.outputDescription}
            </p>
          )}
          <div className="cols">
            <section>
              <h2>{t('tool.schema')}</h2>
              <SchemaTable schema={info.inputSchema} />
              <button type="button" className="link" onClick={() => setShowRendered(!showRendered)}>
                JSON Schema
              </button>
              {showRendered && <pre>{JSON.stringify(info.inputSchema ?? {}, null, 2)}</pre>}
              <h2>{t('tool.examples')}</h2>
              {(info.examples ?? []).length === 0 ? (
                <p className="muted">—</p>
              ) : (
                <ul>
                  {(info.examples ?? []).map((e, i) => (
                    <li key={i}>
                      {e.description} <code>{JSON.stringify(e.arguments ?? {})}</code>
                      {e.result ? <> → {e.result}</> : null}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section>
              <h2>{t('tool.stats')}</h2>
              {s ? (
                <dl className="stats">
                  <dt>{t('ov.calls')}</dt>
                  <dd data-testid="tool-calls">{s.calls ?? 0}</dd>
                  <dt>{t('ov.successRate')}</dt>
                  <dd>{pct(s.successRate)}</dd>
                  <dt>p50 / p95 / p99</dt>
                  <dd>
                    {Math.round(s.latencyP50Ms ?? 0)} / {Math.round(s.latencyP95Ms ?? 0)} / {Math.round(s.latencyP99Ms ?? 0)} ms
                  </dd>
                  <dt>{t('audit.when')}</dt>
                  <dd>{when(s.lastCallUnixMs)}</dd>
                  {Object.entries(s.failures ?? {}).map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{v}</dd>
                    </div>
                  ))}
                </dl>
              ) : (
                <p className="muted">{t('tool.noStats')}</p>
              )}
              <h2>{t('tool.history')}</h2>
              <ul>
                {(history.data?.entries ?? []).map((e) => (
                  <li key={e.id}>
                    {when(e.atUnixMs)} · {e.principal} · {e.action}
                    {e.comment ? ` · ${e.comment}` : ''}
                  </li>
                ))}
              </ul>
            </section>
          </div>
          <section>
            <h2>{t('tool.tryIt')}</h2>
            <ArgumentsForm provider={provider} name={name} schema={info.inputSchema} onRan={() => stats.reload()} />
          </section>
        </>
      )}
    </>
  );
}
