/**
 * Catalog: provider → category path → tool, filterable, in one virtualised list (only the rows on
 * screen are in the DOM, so 20,000 tools scroll smoothly).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';

import { call } from '../api';
import { ErrorBox, useLoad } from '../common';
import { useI18n } from '../i18n';
import type { RegisteredTool } from '../types';

interface Tool {
  provider: string;
  name: string;
  path: string;
  summary: string;
  enabled: boolean;
}
interface Row {
  key: string;
  depth: number;
  kind: 'provider' | 'path' | 'tool';
  label: string;
  count?: number;
  tool?: Tool;
}

/** Every registered tool, page by page (ListRegisteredTools pages are bounded in count and bytes). */
async function loadAll(): Promise<Tool[]> {
  const tools: Tool[] = [];
  let pageToken = '';
  do {
    const page = await call<{ tools?: RegisteredTool[]; nextPageToken?: string }>('admin', 'ListRegisteredTools', { pageSize: 2000, pageToken });
    for (const r of page.tools ?? []) {
      const t = r.tool;
      if (t) tools.push({ provider: t.provider, name: t.name, path: t.path ?? '', summary: (t.description ?? '').split('\n')[0]!.slice(0, 160), enabled: r.overlay?.enabled ?? true });
    }
    pageToken = page.nextPageToken ?? '';
  } while (pageToken);
  return tools;
}

/** The visible rows: groups open unless collapsed; with a filter, only matching tools and their groups. */
function rowsOf(tools: Tool[], filter: string, collapsed: Set<string>): Row[] {
  const f = filter.trim().toLowerCase();
  const shown = f ? tools.filter((t) => `${t.provider}:${t.name} ${t.path} ${t.summary}`.toLowerCase().includes(f)) : tools;
  const sorted = [...shown].sort((a, b) => a.provider.localeCompare(b.provider) || a.path.localeCompare(b.path) || a.name.localeCompare(b.name));
  const counts = new Map<string, number>();
  for (const t of sorted) {
    counts.set(t.provider, (counts.get(t.provider) ?? 0) + 1);
    const parts = t.path ? t.path.split('/') : [];
    for (let i = 1; i <= parts.length; i++) {
      const k = `${t.provider}/${parts.slice(0, i).join('/')}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  const rows: Row[] = [];
  let open: string[] = [];
  let lastProvider = '';
  for (const t of sorted) {
    if (t.provider !== lastProvider) {
      lastProvider = t.provider;
      open = [];
      rows.push({ key: t.provider, depth: 0, kind: 'provider', label: t.provider, count: counts.get(t.provider) });
    }
    if (collapsed.has(t.provider) && !f) continue;
    const parts = t.path ? t.path.split('/') : [];
    let hidden = false;
    for (let i = 0; i < parts.length; i++) {
      const key = `${t.provider}/${parts.slice(0, i + 1).join('/')}`;
      if (open[i] !== key) {
        open = [...open.slice(0, i), key];
        if (!hidden) rows.push({ key, depth: i + 1, kind: 'path', label: parts[i]!, count: counts.get(key) });
      }
      if (collapsed.has(key) && !f) hidden = true;
    }
    open = open.slice(0, parts.length);
    if (!hidden) rows.push({ key: `${t.provider}:${t.name}`, depth: parts.length + 1, kind: 'tool', label: t.name, tool: t });
  }
  return rows;
}

const ROW_PX = 30;

export function CatalogPage() {
  const { t } = useI18n();
  const { data: tools, error, loading } = useLoad(loadAll);
  const [filter, setFilter] = useState('');
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const rows = useMemo(() => rowsOf(tools ?? [], filter, collapsed), [tools, filter, collapsed]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 12 });
  const toggle = (key: string) =>
    setCollapsed((c) => {
      const n = new Set(c);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });
  const toolCount = rows.filter((r) => r.kind === 'tool').length;

  return (
    <>
      <h1>{t('nav.catalog')}</h1>
      <ErrorBox error={error} />
      <div className="toolbar">
        <label htmlFor="filter" className="sr-only">
          {t('cat.filter')}
        </label>
        <input id="filter" type="search" placeholder={t('cat.filter')} value={filter} onChange={(e) => setFilter(e.target.value)} />
        <span data-testid="catalog-count">
          {loading && !tools ? t('loading') : `${tools?.length ?? 0} ${t('cat.count')}, ${toolCount} ${t('cat.shown')}`}
        </span>
      </div>
      <div ref={scroller} className="tree" role="tree" aria-label={t('cat.tree')} data-testid="catalog-tree" tabIndex={0}>
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((v) => {
            const row = rows[v.index]!;
            return (
              <div
                key={row.key}
                role="treeitem"
                aria-level={row.depth + 1}
                aria-expanded={row.kind === 'tool' ? undefined : !collapsed.has(row.key)}
                aria-selected={false}
                className={`row ${row.kind}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_PX, transform: `translateY(${v.start}px)`, paddingLeft: 8 + row.depth * 18 }}
              >
                {row.kind === 'tool' ? (
                  <>
                    <a href={`#/tool/${encodeURIComponent(row.tool!.provider)}/${encodeURIComponent(row.tool!.name)}`}>{row.label}</a>
                    {!row.tool!.enabled && <span className="badge">off</span>}
                    <span className="muted summary">{row.tool!.summary}</span>
                  </>
                ) : (
                  <button type="button" className="group" onClick={() => toggle(row.key)}>
                    {collapsed.has(row.key) ? '▸' : '▾'} {row.label} <span className="muted">({row.count})</span>
                  </button>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
