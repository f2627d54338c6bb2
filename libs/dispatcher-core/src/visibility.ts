/**
 * What a principal may see: filters every answer of the agent API through its grants view. A
 * hidden tool leaves no trace — no list entry, category, count, search hit, suggestion, preload
 * entry or distinct error — so a grant miss looks exactly like a tool that does not exist
 * (NOT_FOUND rather than PERMISSION_DENIED: the latter would confirm the tool exists).
 */
import type { ToolView } from '@toolhub/auth';
import {
  type AdapterListResponse,
  type GetPreloadSetResponse,
  type PreloadFormat,
  type ProviderStatus,
  type SearchToolsResponse,
  ToolHubError,
  toolId,
  type ToolInfo,
  type ToolSummary,
} from '@toolhub/contracts';
import { buildPreloadSet } from '@toolhub/agent-kit';

/**
 * One principal's view of the catalog. Every catalog and run answer goes through one, so no code
 * path branches on "is anything hidden": the open view ({@link OPEN_VISIBILITY}) returns its input.
 */
export interface CatalogVisibility {
  /** False for the open view (nothing hidden); a restricted view asks the registry for more search hits. */
  readonly restricted: boolean;
  permits(t: { provider: string; path: string; name: string }): boolean;
  /** The providers with tools this view sees, counted for it. */
  providers(all: ProviderStatus[]): Promise<ProviderStatus[]>;
  /** A list answer without hidden tools, with categories (and counts) of visible tools only. */
  list(provider: string, res: AdapterListResponse): Promise<AdapterListResponse>;
  /** Whether `provider` has any tool this view sees (a provider with none is answered as unknown). */
  seesProvider(provider: string): Promise<boolean>;
  /** How many hits to ask the registry for (0: its default), so hidden hits do not leave a restricted page short. */
  searchLimit(limit: number): number;
  /** Search hits and suggestions this view may see, at most `limit` hits. */
  search(res: SearchToolsResponse, limit: number): Promise<SearchToolsResponse>;
  /** The answer for a tool lookup that failed with not_found (hidden and missing tools look alike). */
  notFound(err: ToolHubError, provider: string, name: string): Promise<ToolHubError>;
  /** The preload set of this view. */
  preload(res: GetPreloadSetResponse, format: PreloadFormat): Promise<GetPreloadSetResponse>;
}

/** The view of a principal nothing is hidden from: every method returns its input. */
export const OPEN_VISIBILITY: CatalogVisibility = {
  restricted: false,
  permits: () => true,
  providers: async (all) => all,
  list: async (_provider, res) => res,
  seesProvider: async () => true,
  searchLimit: (limit) => limit,
  search: async (res) => res,
  notFound: async (err) => err,
  preload: async (res) => res,
};

/** Where visibility gets the facts it filters by (the dispatcher's cached lookups). */
export interface VisibilitySource {
  /** Every tool at or below `path` of `provider` (a recursive list; cached). */
  listAll(provider: string, path: string): Promise<ToolSummary[]>;
  /** The tool, or undefined when it does not exist or cannot be reached. */
  info(provider: string, name: string): Promise<ToolInfo | undefined>;
}

/** The one answer for a tool the caller may not see or that does not exist. */
export function hiddenToolError(provider: string, name: string, suggestions: string[] = []): ToolHubError {
  return ToolHubError.notFound(
    `Tool ${toolId(provider, name)} not found. Call tool_list with provider=${JSON.stringify(provider)} or tool_search to find the tools you can use.`,
    suggestions,
    '',
  );
}

/** The view of a principal some tools are hidden from. */
export class Visibility implements CatalogVisibility {
  readonly restricted = true;

  constructor(
    private readonly view: ToolView,
    private readonly source: VisibilitySource,
  ) {}

  permits(t: { provider: string; path: string; name: string }): boolean {
    return this.view.permits(t);
  }

  /** Tools of `provider` under `path` this view sees. */
  async visibleUnder(provider: string, path: string): Promise<number> {
    try {
      return (await this.source.listAll(provider, path)).filter((t) => this.view.permits({ provider, path: t.path, name: t.name })).length;
    } catch {
      return 0; // an unreachable provider shows nothing rather than failing the whole answer
    }
  }

  async seesProvider(provider: string): Promise<boolean> {
    return (await this.visibleUnder(provider, '')) > 0;
  }

  searchLimit(limit: number): number {
    const wanted = limit || 10;
    return Math.min(Math.max(wanted * 4, wanted + 20), 200);
  }

  async notFound(err: ToolHubError, provider: string, name: string): Promise<ToolHubError> {
    // Every "no such tool" answer looks the same, with only visible suggestions, so it cannot tell hidden from missing.
    return hiddenToolError(provider, name, await this.suggestions(err.suggestions));
  }

  async providers(all: ProviderStatus[]): Promise<ProviderStatus[]> {
    const out: ProviderStatus[] = [];
    for (const p of all) {
      const n = await this.visibleUnder(p.provider, '');
      if (n > 0) out.push({ ...p, toolCount: n });
    }
    return out;
  }

  /** A list answer without hidden tools and with categories (and their counts) of visible tools only. */
  async list(provider: string, res: AdapterListResponse): Promise<AdapterListResponse> {
    const tools = res.tools.filter((t) => this.view.permits({ provider, path: t.path, name: t.name }));
    const categories = [];
    for (const c of res.categories) {
      const n = await this.visibleUnder(provider, c.path);
      if (n > 0) categories.push({ ...c, toolCount: n });
    }
    return { categories, tools };
  }

  /** Search hits and suggestions this view may see, at most `limit` hits. */
  async search(res: SearchToolsResponse, limit: number): Promise<SearchToolsResponse> {
    const hits = res.hits.filter((h) => this.view.permits({ provider: h.provider, path: h.path, name: h.name })).slice(0, limit);
    return { ...res, hits, suggestions: await this.suggestions(res.suggestions) };
  }

  /** Suggestions (`provider:name` tools, `provider:path/` categories, `provider:` roots) that lead to visible tools. */
  async suggestions(list: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const s of list) {
      const colon = s.indexOf(':');
      if (colon < 1) continue;
      const provider = s.slice(0, colon);
      const rest = s.slice(colon + 1);
      if (rest === '' || rest.endsWith('/')) {
        if ((await this.visibleUnder(provider, rest.replace(/\/$/, ''))) > 0) out.push(s);
      } else {
        const info = await this.source.info(provider, rest).catch(() => undefined);
        if (info && this.view.permits(info)) out.push(s);
      }
    }
    return out;
  }

  /**
   * The preload set of this view: the shared set when every tool in it is visible (same bytes),
   * else rebuilt from the visible tools — byte-stable per view, with its own fingerprint.
   */
  async preload(res: GetPreloadSetResponse, format: PreloadFormat): Promise<GetPreloadSetResponse> {
    const listed = res.tools.filter((t) => t.provider !== 'toolhub');
    const infos = await Promise.all(listed.map((t) => this.source.info(t.provider, t.name).catch(() => undefined)));
    const visible = infos.filter((i): i is ToolInfo => i !== undefined && this.view.permits(i));
    if (visible.length === listed.length) return res;
    return buildPreloadSet(visible, format);
  }
}
