/**
 * What to offer when a search finds nothing: tools whose names are close to the query, categories
 * whose names are close to its words, and failing both the biggest categories — never an empty
 * list while the catalog has tools. Suggestions are strings an agent can act on:
 * a tool as its id `provider:name` (for tool_info), a category as `provider:path/` (for tool_list;
 * the trailing slash marks a category, like `ls -F`), a provider's root as `provider:`.
 */
import { closestMatches, toToolName } from '@toolhub/contracts';

import type { ToolEntry } from './documents';
import { ENGLISH_STOP_WORDS } from './lexicon';

/** Most query words compared against names (edit distances are the slow part of this path). */
const MAX_WORDS = 4;
/** Whole queries longer than this are sentences, not misspelt names: only their words are compared. */
const MAX_NAME_QUERY = 64;

/** `provider:path/`, or `provider:` for the root. */
export function categorySuggestion(provider: string, path: string): string {
  return path === '' ? `${provider}:` : `${provider}:${path}/`;
}

/**
 * Lowercase words of at least 4 letters of the queries, stop words left out: shorter words are
 * inside too many names to say anything ("the" is in "weather").
 */
function queryWords(queries: readonly string[]): string[] {
  const words = new Set<string>();
  for (const q of queries) {
    for (const m of q.toLowerCase().matchAll(/[\p{L}\p{N}]{4,}/gu)) if (!ENGLISH_STOP_WORDS.has(m[0])) words.add(m[0]);
  }
  return [...words].slice(0, MAX_WORDS);
}

/** The names and categories of a set of tools, as suggestions need them. Build once per catalog version. */
export class CatalogOutline {
  readonly idsByName = new Map<string, string[]>();
  /** Category suggestion → tools at or below it. */
  readonly categories = new Map<string, number>();
  /** Last path segment → category suggestions ending in it. */
  readonly categoriesBySegment = new Map<string, string[]>();
  readonly providers: string[];
  /** Categories by tool count, largest first. */
  private biggestCache: string[] | undefined;

  constructor(entries: Iterable<ToolEntry>) {
    const providers = new Set<string>();
    for (const e of entries) {
      providers.add(e.provider);
      const ids = this.idsByName.get(e.name);
      if (ids) ids.push(e.id);
      else this.idsByName.set(e.name, [e.id]);
      // Every ancestor of the tool's path is a category too.
      const segments = e.path === '' ? [] : e.path.split('/');
      for (let depth = 1; depth <= segments.length; depth++) {
        const key = categorySuggestion(e.provider, segments.slice(0, depth).join('/'));
        const n = this.categories.get(key);
        this.categories.set(key, (n ?? 0) + 1);
        if (n === undefined) {
          const seg = segments[depth - 1]!;
          const list = this.categoriesBySegment.get(seg);
          if (list) list.push(key);
          else this.categoriesBySegment.set(seg, [key]);
        }
      }
    }
    for (const ids of this.idsByName.values()) ids.sort();
    for (const keys of this.categoriesBySegment.values()) keys.sort();
    this.providers = [...providers].sort();
  }

  get biggest(): string[] {
    this.biggestCache ??= [...this.categories.entries()].sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : ka > kb ? 1 : 0)).map(([k]) => k);
    return this.biggestCache;
  }

  get size(): number {
    return this.providers.length;
  }
}

/**
 * Close names and categories for queries that matched nothing, from `outline` (the tools the
 * request's filters allow, or a wider set when they allow none); `lead` strings come first.
 * Falls back to the biggest categories, then the providers: never empty while there are tools.
 */
export function closeSuggestions(queries: readonly string[], outline: CatalogOutline, limit: number, lead: readonly string[] = []): string[] {
  if (limit === 0) return [];
  const out = new Set<string>(lead);
  if (outline.size === 0) return [...out].slice(0, limit);

  const words = queryWords(queries);
  const names = queries.filter((q) => q.length <= MAX_NAME_QUERY).map((q) => toToolName(q)).filter((n) => n.length >= 4);
  for (const needle of new Set([...names, ...words])) {
    for (const name of closestMatches(needle, outline.idsByName.keys(), 2)) for (const id of outline.idsByName.get(name)!) out.add(id);
  }
  for (const word of words) {
    for (const seg of closestMatches(word, outline.categoriesBySegment.keys(), 2)) for (const key of outline.categoriesBySegment.get(seg)!) out.add(key);
  }
  // Nothing (or little) close: the biggest categories are the best places to start browsing.
  for (const key of outline.biggest) {
    if (out.size >= limit) break;
    out.add(key);
  }
  for (const p of outline.providers) {
    if (out.size >= limit) break;
    out.add(categorySuggestion(p, ''));
  }
  return [...out].slice(0, limit);
}
