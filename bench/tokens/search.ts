/**
 * The search component the benchmark's agent uses: the real @toolhub/search ToolSearchIndex when
 * it can be loaded, else a simple deterministic keyword ranking written for this benchmark (and
 * the output says which one ran).
 */
import { type SearchToolsRequest, type SearchToolsResponse, type ToolInfo } from '@toolhub/contracts';

export interface BenchSearch {
  name: string;
  search(req: SearchToolsRequest): SearchToolsResponse;
}

const words = (text: string): string[] =>
  text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);

/** Fallback: per query, the sum over its words of name (3) + path/provider (2) + description (1) matches. */
function keywordSearch(tools: readonly ToolInfo[]): BenchSearch {
  const docs = tools.map((t) => ({ t, name: new Set(words(t.name)), cat: new Set(words(`${t.provider} ${t.path}`)), desc: new Set(words(t.description)) }));
  return {
    name: 'bench keyword ranking (fallback; @toolhub/search not loadable)',
    search(req) {
      const scores = new Map<string, { t: ToolInfo; score: number; q: number[] }>();
      req.queries.forEach((query, qi) => {
        for (const d of docs) {
          let s = 0;
          for (const w of words(query)) s += (d.name.has(w) ? 3 : 0) + (d.cat.has(w) ? 2 : 0) + (d.desc.has(w) ? 1 : 0);
          if (s === 0) continue;
          const prev = scores.get(d.t.id);
          if (!prev || prev.score < s) scores.set(d.t.id, { t: d.t, score: s, q: [...(prev?.q ?? []), qi] });
        }
      });
      const hits = [...scores.values()]
        .sort((a, b) => b.score - a.score || a.t.id.localeCompare(b.t.id))
        .slice(0, req.limit || 10)
        .map(({ t, score, q }) => ({ id: t.id, provider: t.provider, name: t.name, path: t.path, summary: t.description.split(/(?<=\.)\s/)[0] ?? '', score, queryIndexes: q, matchedOn: '' }));
      return { hits, suggestions: [], searchId: '', mode: 0, note: '' };
    },
  };
}

/** Indexes `tools` with @toolhub/search, or the fallback when that package cannot be loaded. */
export async function createBenchSearch(tools: readonly ToolInfo[]): Promise<BenchSearch> {
  try {
    const { ToolSearchIndex } = await import('@toolhub/search');
    const index = new ToolSearchIndex();
    index.upsert(tools);
    return { name: '@toolhub/search ToolSearchIndex (defaults)', search: (req) => index.search(req) };
  } catch (err) {
    console.warn(`@toolhub/search could not be loaded (${(err as Error).message}); using the bench keyword ranking.`);
    return keywordSearch(tools);
  }
}
