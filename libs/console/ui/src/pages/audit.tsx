/** Audit log with filters, and access (access.tsx): who may call, the grants, and which principals changed what. */
import { type FormEvent, useState } from 'react';

import { call, type Session } from '../api';
import { ErrorBox, useLoad, when } from '../common';
import { useI18n } from '../i18n';
import type { AuditEntry } from '../types';
import { AccessSection } from './access';

export function AuditPage({ session }: { session: Session }) {
  const { t } = useI18n();
  const [filters, setFilters] = useState({ target: '', principal: '', before: '' });
  const [applied, setApplied] = useState(filters);
  const audit = useLoad(
    () => call<{ entries?: AuditEntry[] }>('admin', 'ListAuditLog', { target: applied.target, principal: applied.principal, beforeUnixMs: applied.before ? new Date(applied.before).getTime() : 0, limit: 200 }),
    [applied],
  );
  const go = (e: FormEvent) => {
    e.preventDefault();
    setApplied({ ...filters });
  };
  const principals = new Map<string, Set<string>>();
  for (const e of audit.data?.entries ?? []) principals.set(e.principal ?? '', new Set([...(principals.get(e.principal ?? '') ?? []), ...(e.roles ?? [])]));
  return (
    <>
      <h1>{t('nav.audit')}</h1>
      <form onSubmit={go} className="inline filters">
        <label htmlFor="f-target">{t('audit.target')}</label>
        <input id="f-target" value={filters.target} onChange={(e) => setFilters({ ...filters, target: e.target.value })} />
        <label htmlFor="f-principal">{t('audit.principal')}</label>
        <input id="f-principal" value={filters.principal} onChange={(e) => setFilters({ ...filters, principal: e.target.value })} />
        <label htmlFor="f-before">{t('audit.before')}</label>
        <input id="f-before" type="datetime-local" value={filters.before} onChange={(e) => setFilters({ ...filters, before: e.target.value })} />
        <button type="submit">{t('audit.filter')}</button>
      </form>
      <ErrorBox error={audit.error} />
      <table data-testid="audit-table">
        <thead>
          <tr>
            <th scope="col">{t('audit.when')}</th>
            <th scope="col">{t('audit.principal')}</th>
            <th scope="col">{t('audit.action')}</th>
            <th scope="col">{t('audit.target')}</th>
            <th scope="col">{t('audit.comment')}</th>
            <th scope="col">{t('audit.change')}</th>
          </tr>
        </thead>
        <tbody>
          {(audit.data?.entries ?? []).map((e) => (
            <tr key={e.id}>
              <td>{when(e.atUnixMs)}</td>
              <td>
                {e.principal} <span className="muted">({(e.roles ?? []).join(', ')})</span>
              </td>
              <td>{e.action}</td>
              <td>
                <code>{e.target}</code>
              </td>
              <td>{e.comment}</td>
              <td>
                <details>
                  <summary>JSON</summary>
                  <pre>{`before: ${e.beforeJson || '—'}\nafter:  ${e.afterJson || '—'}`}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <AccessSection session={session} seen={principals} />
    </>
  );
}
