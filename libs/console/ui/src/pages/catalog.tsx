/**
 * Catalog: provider → category path → tool (as the signed-in principal sees it on the agent API), filterable, in one virtualised list (only the rows on
 * screen are in the DOM, so 20,000 tools scroll smoothly).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';

import { call } from '../api';
import { ErrorBox, useLoad } from '../common';
import { useI18n } from '../i18n';
import type { RegisteredTool } from '../types';

interface Tool {
  provider: string;
  name: string;
  path: string;
  summary: string;
  /** Lower-cased "provider:name path summary", what the filter matches. */
  hay: string;
  /** Path segments, and each segment's group key ("provider/a", "provider/a/b"), computed once. */
  parts: string[];
  groups: string[];
}
interface Row {
  key: string;
  depth: number;
  kind: 'provider' | 'path' | 'tool';
  label: string;
  count?: number;
  tool?: Tool;
}
interface Summary {
  provider: string;
  name: string;
  path?: string;
  summary?: string;
}

interface Listing {
  categories?: Array<{ name: string; path?: string }>;
  tools?: Summary[];
  nextPageToken?: string;
}

/** Every page of one ListTools request. */
async function pages(req: { provider: string; path: string; recursive: boolean }): Promise<Listing> {
  const all: Listing = { categories: [], tools: [] };
  let pageToken = '';
  do {
    const page = await call<Listing>('agent', 'ListTools', { ...req, pageSize: 2000, pageToken });
    all.categories!.push(...(page.categories ?? []));
    all.tools!.push(...(page.tools ?? []));
    pageToken = page.nextPageToken ?? '';
  } while (pageToken);
  return all;
}

/**
 * The tools under `path`: one recursive listing, or — when that is refused (an adapter built before
 * listings came in parts cannot send a big provider's whole listing over the bus) — this level's
 * tools and each category in turn.
 */
async function toolsUnder(provider: string, path: string): Promise<Summary[]> {
  try {
    return (await pages({ provider, path, recursive: true })).tools ?? [];
  } catch {
    const level = await pages({ provider, path, recursive: false });
    const nested = await Promise.all((level.categories ?? []).map((c) => toolsUnder(provider, c.path || (path ? `${path}/${c.name}` : c.name))));
    return [...(level.tools ?? []), ...nested.flat()];
  }
}

function toTool(t: Summary): Tool {
  const summary = (t.summary ?? '').split('\n')[0]!.slice(0, 160);
  const path = t.path ?? '';
  const parts = path ? path.split('/') : [];
  const groups = parts.map((_, i) => `${t.provider}/${parts.slice(0, i + 1).join('/')}`);
  return { provider: t.provider, name: t.name, path, summary, hay: `${t.provider}:${t.name} ${path} ${summary}`.toLowerCase(), parts, groups };
}

function sortTools(tools: Tool[]): Tool[] {
  const keyed = tools.map((t) => [`${t.provider}\u0000${t.path}\u0000${t.name}`, t] as const);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return keyed.map(([, t]) => t);
}

/**
 * Every tool agents can list, provider by provider, through the agent API's ListTools (summaries,
 * answered from the dispatcher's catalog cache: the registry's ListRegisteredTools carries whole
 * definitions and took ~10x longer for 20,000 tools), sorted once.
 */
async function loadAll(): Promise<Tool[]> {
  const top = await call<Listing>('agent', 'ListTools', { provider: '' });
  const tools: Tool[] = [];
  for (const { name: provider } of top.categories ?? []) for (const t of await toolsUnder(provider, '')) tools.push(toTool(t));
  return sortTools(tools);
}

/**
 * Then the registry's own list, for the providers agents do not list (tools registered by hand or
 * by file, whose provider has no live adapter): loaded after the tree is shown.
 */
async function registryOnly(known: Set<string>): Promise<Tool[]> {
  const extra: Tool[] = [];
  let pageToken = '';
  do {
    const page = await call<{ tools?: RegisteredTool[]; nextPageToken?: string }>('admin', 'ListRegisteredTools', { pageSize: 2000, pageToken });
    for (const r of page.tools ?? []) if (r.tool && !known.has(r.tool.provider)) extra.push(toTool({ provider: r.tool.provider, name: r.tool.name, path: r.tool.path, summary: r.tool.description }));
    pageToken = page.nextPageToken ?? '';
  } while (pageToken);
  return extra;
}

/** The visible rows: groups open unless collapsed; with a filter, only matching tools and their groups. */
function rowsOf(sorted: Tool[], filter: string, collapsed: Set<string>): Row[] {
  const f = filter.trim().toLowerCase();
  const shown = f ? sorted.filter((t) => t.hay.includes(f)) : sorted;
  const counts = new Map<string, number>();
  for (const t of shown) {
    counts.set(t.provider, (counts.get(t.provider) ?? 0) + 1);
    for (const k of t.groups) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const rows: Row[] = [];
  let open: string[] = [];
  let lastProvider = '';
  for (const t of shown) {
    if (t.provider !== lastProvider) {
      lastProvider = t.provider;
      open = [];
      rows.push({ key: t.provider, depth: 0, kind: 'provider', label: t.provider, count: counts.get(t.provider) });
    }
    if (collapsed.has(t.provider) && !f) continue;
    const parts = t.parts;
    let hidden = false;
    for (let i = 0; i < parts.length; i++) {
      const key = t.groups[i]!;
      if (open[i] !== key) {
        open.length = i;
        open.push(key);
        if (!hidden) rows.push({ key, depth: i + 1, kind: 'path', label: parts[i]!, count: counts.get(key) });
      }
      if (collapsed.has(key) && !f) hidden = true;
    }
    open.length = Math.min(open.length, parts.length);
    if (!hidden) rows.push({ key: `${t.provider}:${t.name}`, depth: parts.length + 1, kind: 'tool', label: t.name, tool: t });
  }
  return rows;
}

const ROW_PX = 30;

export function CatalogPage() {
  const { t } = useI18n();
  const { data: listed, error, loading } = useLoad(loadAll);
  const [extra, setExtra] = useState<Tool[]>();
  useEffect(() => {
    if (!listed) return undefined;
    let live = true;
    registryOnly(new Set(listed.map((t) => t.provider))).then(
      (x) => live && setExtra(x),
      () => live && setExtra([]),
    );
    return () => {
      live = false;
    };
  }, [listed]);
  const tools = useMemo(() => (extra?.length ? sortTools([...(listed ?? []), ...extra]) : listed), [listed, extra]);
  const [filter, setFilter] = useState('');
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  // Typing stays responsive: the tree follows the filter when React has time.
  const deferredFilter = useDeferredValue(filter);
  const rows = useMemo(() => rowsOf(tools ?? [], deferredFilter, collapsed), [tools, deferredFilter, collapsed]);
  const scroller = useRef<HTMLDivElement>(null);
  // Fixed row height and no flushSync per scroll event: React batches the few rows that change.
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 12, useFlushSync: false });
  const toggle = (key: string) =>
    setCollapsed((c) => {
      const n = new Set(c);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });
  const toolCount = useMemo(() => rows.reduce((n, r) => (r.kind === 'tool' ? n + 1 : n), 0), [rows]);

  return (
    <>
      <h1>{t('nav.catalog')}</h1>
      <ErrorBox error={error} />
      <div className="toolbar">
        <label htmlFor="filter" className="sr-only">
          {t('cat.filter')}
        </label>
        <input id="filter" type="search" placeholder={t('cat.filter')} value={filter} onChange={(e) => setFilter(e.target.value)} />
        <span data-testid="catalog-count" data-complete={extra !== undefined}>
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
