/**
 * The preload set by hand: the current set and its token cost, suggestions from the statistics, a
 * draft edited with one click per change, the diff (fingerprint and token delta, from
 * PreviewPreloadSet) before applying, apply, revert, and the audit of past changes.
 */
import { useEffect, useMemo, useState } from 'react';

import { type Session, call } from '../api';
import { ErrorBox, pct, useLoad, when } from '../common';
import { useI18n } from '../i18n';
import type { AuditEntry, PreloadList, PreloadSet, PreloadSuggestion } from '../types';

interface Preview {
  current?: PreloadSet;
  proposed?: PreloadSet;
  currentTokens?: number;
  proposedTokens?: number;
  leftOut?: string[];
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function PreloadPage({ session }: { session: Session }) {
  const { t } = useI18n();
  const list = useLoad(() => call<{ list?: PreloadList }>('admin', 'GetPreloadList'));
  const agentSet = useLoad(() => call<PreloadSet>('agent', 'GetPreloadSet', {}));
  const suggestions = useLoad(() => call<{ suggestions?: PreloadSuggestion[]; removals?: PreloadSuggestion[] }>('admin', 'SuggestPreload', { limit: 10 }));
  const audit = useLoad(() => call<{ entries?: AuditEntry[] }>('admin', 'ListAuditLog', { target: 'preload', limit: 20 }));
  const current = useMemo(() => list.data?.list?.toolIds ?? [], [list.data]);
  const [draft, setDraft] = useState<string[]>();
  const [preview, setPreview] = useState<Preview>();
  const [comment, setComment] = useState('');
  const [addId, setAddId] = useState('');
  const [error, setError] = useState<unknown>();
  const [applied, setApplied] = useState<number>();
  const ids = draft ?? current;
  const changed = !same(ids, current);

  useEffect(() => {
    if (!list.data) return;
    call<Preview>('admin', 'PreviewPreloadSet', { toolIds: ids }).then(setPreview, setError);
  }, [ids, list.data]);

  const reloadAll = () => {
    list.reload();
    agentSet.reload();
    suggestions.reload();
    audit.reload();
  };
  const edit = (next: string[]) => {
    setApplied(undefined);
    setDraft(next);
  };
  const add = (id: string) => !ids.includes(id) && edit([...ids, id]);
  const remove = (id: string) => edit(ids.filter((x) => x !== id));
  const apply = (toolIds: string[], why: string) => {
    setError(undefined);
    call<{ list?: PreloadList }>('admin', 'SetPreloadList', { toolIds, expectedRevision: list.data?.list?.revision ?? 0, changedBy: session.principal ?? 'console', comment: why })
      .then((r) => {
        setApplied(r.list?.revision);
        setDraft(undefined);
        setComment('');
        reloadAll();
      }, setError);
  };
  const lastChange = (audit.data?.entries ?? []).find((e) => e.action === 'SetPreloadList' && e.beforeJson);
  const revert = () => {
    if (!lastChange?.beforeJson) return;
    const before = JSON.parse(lastChange.beforeJson) as { toolIds?: string[]; revision?: number };
    apply(before.toolIds ?? [], `revert of revision ${list.data?.list?.revision ?? '?'} to revision ${before.revision ?? '?'}`);
  };

  const added = ids.filter((x) => !current.includes(x));
  const removed = current.filter((x) => !ids.includes(x));
  const delta = (preview?.proposedTokens ?? 0) - (preview?.currentTokens ?? 0);
  return (
    <>
      <h1>{t('nav.preload')}</h1>
      <ErrorBox error={error ?? list.error ?? suggestions.error ?? agentSet.error} />
      <div className="cols">
        <section>
          <h2>{t('pre.current')}</h2>
          <p>
            {t('pre.revision')} <strong data-testid="preload-revision">{list.data?.list?.revision ?? 0}</strong> · {list.data?.list?.changedBy} · {when(list.data?.list?.changedUnixMs)}
          </p>
          <p>
            {t('pre.fingerprint')} (agents): <code data-testid="agent-fingerprint">{agentSet.data?.fingerprint ?? '…'}</code> · {preview?.currentTokens ?? '…'} {t('pre.tokens')}
          </p>
          <h3>
            {t('pre.draft')} ({ids.length})
          </h3>
          <ul className="plain" data-testid="preload-draft">
            {ids.map((id) => (
              <li key={id}>
                <code>{id}</code>{' '}
                <button type="button" className="small" onClick={() => remove(id)} aria-label={`${t('pre.remove')} ${id}`}>
                  {t('pre.remove')}
                </button>
              </li>
            ))}
          </ul>
          <form
            className="inline"
            onSubmit={(e) => {
              e.preventDefault();
              if (addId.trim()) add(addId.trim());
              setAddId('');
            }}
          >
            <label htmlFor="add-id">{t('pre.addId')}</label>
            <input id="add-id" value={addId} onChange={(e) => setAddId(e.target.value)} />
            <button type="submit">{t('pre.add')}</button>
          </form>
        </section>
        <section>
          <h2>{t('pre.suggestions')}</h2>
          <table data-testid="suggestions">
            <thead>
              <tr>
                <th scope="col">{t('tool.name')}</th>
                <th scope="col">{t('ov.calls')} (7d)</th>
                <th scope="col">{t('ov.successRate')}</th>
                <th scope="col">{t('ov.reason')}</th>
                <th scope="col">
                  <span className="sr-only">{t('pre.add')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(suggestions.data?.suggestions ?? []).map((s) => (
                <tr key={s.toolId}>
                  <td>
                    <code>{s.toolId}</code>
                  </td>
                  <td>{s.calls7d ?? 0}</td>
                  <td>{pct(s.successRate)}</td>
                  <td>{(s.reasons ?? []).join('; ')}</td>
                  <td>
                    {s.alreadyPreloaded || ids.includes(s.toolId) ? (
                      '✓'
                    ) : (
                      <button type="button" className="small" onClick={() => add(s.toolId)} aria-label={`${t('pre.add')} ${s.toolId}`}>
                        {t('pre.add')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {(suggestions.data?.removals ?? []).length > 0 && (
            <>
              <h3>{t('pre.removals')}</h3>
              <ul className="plain">
                {(suggestions.data?.removals ?? []).map((s) => (
                  <li key={s.toolId}>
                    <code>{s.toolId}</code> — {(s.reasons ?? []).join('; ')}{' '}
                    {ids.includes(s.toolId) && (
                      <button type="button" className="small" onClick={() => remove(s.toolId)} aria-label={`${t('pre.remove')} ${s.toolId}`}>
                        {t('pre.remove')}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      </div>
      <section className="diff" data-testid="preload-diff" aria-live="polite">
        <h2>{t('pre.diff')}</h2>
        {applied !== undefined && (
          <p className="ok" role="status">
            {t('pre.applied')} {applied}
          </p>
        )}
        {!changed ? (
          <p className="muted">{t('pre.noChange')}</p>
        ) : (
          <>
            <p>
              {t('pre.added')}: {added.map((x) => <code key={x} className="add">+{x} </code>)} {t('pre.removed')}: {removed.map((x) => <code key={x} className="del">−{x} </code>)}
            </p>
            <p>
              {t('pre.fingerprint')}: <code>{preview?.current?.fingerprint}</code> → <code data-testid="proposed-fingerprint">{preview?.proposed?.fingerprint}</code>
            </p>
            <p>
              {t('pre.tokenDelta')}: {preview?.currentTokens ?? '…'} → {preview?.proposedTokens ?? '…'} (
              <strong data-testid="token-delta">{delta >= 0 ? `+${delta}` : delta}</strong>)
            </p>
            {(preview?.leftOut ?? []).length > 0 && (
              <p className="warn">
                {t('pre.leftOut')}: {(preview?.leftOut ?? []).join(', ')}
              </p>
            )}
            <div className="field">
              <label htmlFor="comment">{t('pre.comment')}</label>
              <input id="comment" value={comment} onChange={(e) => setComment(e.target.value)} />
            </div>
          </>
        )}
        <div className="buttons">
          <button type="button" disabled={!changed} onClick={() => apply(ids, comment || `added ${added.join(', ') || '-'}; removed ${removed.join(', ') || '-'}`)}>
            {t('pre.apply')}
          </button>
          <button type="button" disabled={!changed} onClick={() => setDraft(undefined)}>
            {t('pre.reset')}
          </button>
          <button type="button" disabled={!lastChange} onClick={revert}>
            {t('pre.revert')}
          </button>
        </div>
      </section>
      <section>
        <h2>{t('pre.audit')}</h2>
        <table data-testid="preload-audit">
          <thead>
            <tr>
              <th scope="col">{t('audit.when')}</th>
              <th scope="col">{t('audit.principal')}</th>
              <th scope="col">{t('pre.revision')}</th>
              <th scope="col">{t('audit.comment')}</th>
            </tr>
          </thead>
          <tbody>
            {(audit.data?.entries ?? []).map((e) => (
              <tr key={e.id}>
                <td>{when(e.atUnixMs)}</td>
                <td>{e.principal}</td>
                <td>{e.afterJson ? (JSON.parse(e.afterJson) as { revision?: number }).revision : ''}</td>
                <td>{e.comment}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
