/** Search playground: the hits an agent would get, with the "matched on" note, scores and the search mode. */
import { type FormEvent, useState } from 'react';

import { call } from '../api';
import { ErrorBox, useLoad } from '../common';
import { useI18n } from '../i18n';
import type { SearchHit } from '../types';
import { loadAccess } from './access';

interface SearchResult {
  hits?: SearchHit[];
  suggestions?: string[];
  searchId?: string;
  mode?: string;
  note?: string;
}
const MODES = ['SEARCH_MODE_UNSPECIFIED', 'SEARCH_MODE_LEXICAL', 'SEARCH_MODE_SEMANTIC', 'SEARCH_MODE_HYBRID'];

export function SearchPage() {
  const { t } = useI18n();
  const [query, setQuery] = useState('');
  const [provider, setProvider] = useState('');
  const [mode, setMode] = useState(MODES[0]!);
  const [explain, setExplain] = useState(true);
  const [viewAs, setViewAs] = useState('');
  // Whom an operator may search as: the principals the configuration names and the three roles.
  const access = useLoad(loadAccess, []);
  const subjects = access.data && !access.data.localMode ? [...(access.data.principals ?? []).map((p) => p.id), 'role:agent', 'role:operator', 'role:admin'] : ['role:agent', 'role:operator', 'role:admin'];
  const [result, setResult] = useState<SearchResult>();
  const [error, setError] = useState<unknown>();
  const parts = (result?.hits ?? []).some((h) => h.lexicalScore !== undefined || h.semanticScore !== undefined);
  const go = (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const queries = query
      .split('\n')
      .map((q) => q.trim())
      .filter(Boolean);
    call<SearchResult>('agent', 'SearchTools', { queries, provider, mode, explain, limit: 20, ...(viewAs ? { viewAs } : {}) }).then(setResult, (err: unknown) => {
      setResult(undefined);
      setError(err);
    });
  };
  return (
    <>
      <h1>{t('nav.search')}</h1>
      <form onSubmit={go} className="search-form">
        <div className="field">
          <label htmlFor="q">{t('search.query')}</label>
          <textarea id="q" rows={2} value={query} onChange={(e) => setQuery(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="sp">{t('search.provider')}</label>
          <input id="sp" value={provider} onChange={(e) => setProvider(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="mode">{t('search.mode')}</label>
          <select id="mode" value={mode} onChange={(e) => setMode(e.target.value)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m.replace('SEARCH_MODE_', '').toLowerCase()}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="view-as">{t('search.viewAs')}</label>
          <select id="view-as" value={viewAs} onChange={(e) => setViewAs(e.target.value)}>
            <option value="">{t('search.yourself')}</option>
            {subjects.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div className="field check">
          <input id="explain" type="checkbox" checked={explain} onChange={(e) => setExplain(e.target.checked)} />
          <label htmlFor="explain">{t('search.explain')}</label>
        </div>
        <button type="submit">{t('search.go')}</button>
      </form>
      <p className="note">{t('search.grantsNote')}</p>
      <ErrorBox error={error} />
      {result && (
        <section aria-live="polite">
          {/* The keyword / meaning split exists only where the registry fused two rankings. */}
          <p>
            {t('search.mode')}: <strong>{result.mode}</strong>
            {result.note ? (
              <>
                {' '}
                · {t('search.note')}: {result.note}
              </>
            ) : null}
          </p>
          <table data-testid="search-hits">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">{t('tool.name')}</th>
                <th scope="col">{t('search.score')}</th>
                {parts && <th scope="col">{t('search.lexical')}</th>}
                {parts && <th scope="col">{t('search.semantic')}</th>}
                <th scope="col">{t('search.matchedOn')}</th>
                <th scope="col">{t('tool.description')}</th>
              </tr>
            </thead>
            <tbody>
              {(result.hits ?? []).map((h, i) => (
                <tr key={h.id}>
                  <td>{i + 1}</td>
                  <td>
                    <a href={`#/tool/${encodeURIComponent(h.provider ?? '')}/${encodeURIComponent(h.name ?? '')}`}>{h.id}</a>
                    {h.unavailable ? <span className="badge">unavailable</span> : null}
                  </td>
                  <td>{(h.score ?? 0).toFixed(3)}</td>
                  {parts && <td data-testid="lexical-part">{(h.lexicalScore ?? 0).toFixed(3)}</td>}
                  {parts && <td data-testid="semantic-part">{(h.semanticScore ?? 0).toFixed(3)}</td>}
                  <td className="matched">{h.matchedOn}</td>
                  <td>{h.summary}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {(result.suggestions ?? []).length > 0 && <p>{(result.suggestions ?? []).join(' · ')}</p>}
        </section>
      )}
    </>
  );
}
