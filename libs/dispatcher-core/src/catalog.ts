/**
 * The catalog side of the dispatcher, below every door (gRPC, MCP, console): lists, tool info,
 * search and the preload set as one principal may see them, and the tool lookup the run pipeline
 * uses (cache → registry → adapter, shared by concurrent calls for the same tool).
 */
import type { AdapterClient } from '@toolhub/adapter-sdk';
import { type Grants, UNRESTRICTED_VIEW } from '@toolhub/auth';
import {
  type AdapterListResponse,
  assertProviderName,
  assertToolName,
  type Category,
  type GetPreloadSetRequest,
  type GetPreloadSetResponse,
  type GetToolInfoRequest,
  type GetToolInfoResponse,
  isToolHubError,
  type ListProvidersResponse,
  type ListToolsRequest,
  type ListToolsResponse,
  normalizePath,
  type RegisteredTool,
  type SearchToolsRequest,
  type SearchToolsResponse,
  ToolHubError,
  toolId,
} from '@toolhub/contracts';
import { type CallContext, principalOf } from '@toolhub/grpc-edge';

import { timeLeft } from './deadline';
import { pageOfListing } from './list-pages';
import type { MetadataCache } from './metadata-cache';
import type { ResolvedDispatcherOptions } from './options';
import type { ProviderDirectory } from './providers';
import type { RegistryClient } from './registry-client';
import { type CatalogVisibility, hiddenToolError, OPEN_VISIBILITY, Visibility } from './visibility';

/** What the catalog reads from. */
export interface CatalogDeps {
  client: AdapterClient;
  registry: RegistryClient;
  metadata: MetadataCache;
  providers: ProviderDirectory;
  options: ResolvedDispatcherOptions;
  /** Which tools each principal may see. @default everyone sees everything */
  grants?: Grants;
}

export class CatalogService {
  /** Tool lookups in progress by tool id, joined by calls for the same tool (see resolveTool). */
  private readonly lookups = new Map<string, Promise<RegisteredTool>>();

  constructor(private readonly deps: CatalogDeps) {}

  /** The principal's view of the catalog (see visibility.ts): the open view when nothing is hidden from it. */
  visibility(call: CallContext): CatalogVisibility {
    const principal = principalOf(call);
    const view = principal.method === 'local' || !this.deps.grants ? UNRESTRICTED_VIEW : this.deps.grants.viewOf(principal);
    if (view.unrestricted) return OPEN_VISIBILITY;
    return new Visibility(view, {
      listAll: (provider, path) => this.listCached(provider, path, true, call).then((r) => r.tools),
      info: (provider, name) => this.resolveTool(provider, name, call).then((t) => t.tool),
    });
  }

  async listTools(req: ListToolsRequest, call: CallContext): Promise<ListToolsResponse> {
    const vis = this.visibility(call);
    if (req.provider === '') return this.listRoot(vis);
    assertProviderName(req.provider);
    const path = normalizePath(req.path);
    // A provider with nothing visible answers before any path is looked at, and exactly like one that does not exist.
    if (vis.restricted && !(await vis.seesProvider(req.provider))) {
      throw unknownProviderError(req.provider, (await vis.providers(this.deps.providers.status().filter((p) => !p.incompatible))).map((p) => p.provider));
    }
    const res = await vis.list(req.provider, await this.listCached(req.provider, path, req.recursive, call));
    return pageOfListing({ ...req, path }, res, (whole) => listHint(req.provider, whole));
  }

  /** The root listing: the providers (with tools this view sees) as categories. */
  private async listRoot(vis: CatalogVisibility): Promise<ListToolsResponse> {
    // A provider refused for its contract version cannot serve agents, so they do not see it.
    const compatible = this.deps.providers.status().filter((p) => !p.incompatible);
    const categories: Category[] = (await vis.providers(compatible)).map((p) => ({ path: '', name: p.provider, toolCount: p.toolCount }));
    return {
      categories,
      tools: [],
      hint: categories.length
        ? `These are the providers. Call tool_list with provider set to one of: ${categories.map((c) => c.name).join(', ')}.`
        : vis.restricted
          ? 'No tools are available to you right now.'
          : 'No provider adapters are running right now; try again shortly.',
      nextPageToken: '',
      total: 0,
    };
  }

  async getToolInfo(req: GetToolInfoRequest, call: CallContext): Promise<GetToolInfoResponse> {
    // A provider whose every live replica is refused (another contract major) cannot serve agents:
    // its tools are hidden like a missing provider's, even where the registry still knows them.
    if (req.provider && this.deps.providers.refusal(req.provider)) {
      const vis = this.visibility(call);
      throw unknownProviderError(req.provider, (await vis.providers(this.deps.providers.status().filter((p) => !p.incompatible))).map((p) => p.provider));
    }
    return { tool: (await this.resolveVisible(req.provider, req.name, call)).tool };
  }

  async searchTools(req: SearchToolsRequest, call: CallContext): Promise<SearchToolsResponse> {
    const queries = req.queries.map((q) => q.trim()).filter(Boolean);
    if (queries.length === 0) {
      throw ToolHubError.invalidArgument('tool_search needs at least one non-empty query, e.g. queries=["read a file"].', [
        { field: 'queries', message: 'empty', expected: '1 to 10 non-empty strings', example: '["read a file"]' },
      ]);
    }
    if (req.provider) assertProviderName(req.provider);
    const vis = this.visibility(call);
    const res = await this.deps.registry.search(
      { ...req, limit: vis.searchLimit(req.limit), queries, path: normalizePath(req.path) },
      timeLeft(call, this.deps.options.searchTimeoutMs),
      call.traceHeaders,
    );
    const refused = new Set(res.hits.map((h) => h.provider).filter((p) => this.deps.providers.refusal(p) !== undefined));
    return vis.search(refused.size ? { ...res, hits: res.hits.filter((h) => !refused.has(h.provider)) } : res, req.limit || 10);
  }

  async getPreloadSet(req: GetPreloadSetRequest, call: CallContext): Promise<GetPreloadSetResponse> {
    const res = await this.deps.registry.preload(req, timeLeft(call, this.deps.options.searchTimeoutMs), call.traceHeaders);
    return this.visibility(call).preload(res, req.format);
  }

  /** Providers as this caller may see them (only those with tools visible to it, counted for it). */
  async listProvidersFor(call: CallContext): Promise<ListProvidersResponse> {
    return { providers: await this.visibility(call).providers(this.deps.providers.status()) };
  }

  /** Lists through the metadata cache. */
  async listCached(provider: string, path: string, recursive: boolean, call: CallContext): Promise<AdapterListResponse> {
    let res: AdapterListResponse | undefined = await this.deps.metadata.getList(provider, path, recursive);
    if (!res) {
      res = await this.guardProvider(provider, () =>
        this.deps.client.list(provider, path, recursive, { timeoutMs: timeLeft(call, this.deps.options.metadataTimeoutMs), requestId: call.requestId, headers: call.traceHeaders }),
      );
      await this.deps.metadata.setList(provider, path, recursive, res);
    }
    return res;
  }

  /**
   * The tool with its operator overlay, if this caller may see it: cache, then the registry (which
   * applies overlays), then the adapter itself (when the registry is not running or does not know the tool yet).
   * @throws ToolHubError not_found (unknown, hidden or disabled tool, unknown provider), invalid_argument
   */
  async resolveVisible(provider: string, name: string, call: CallContext): Promise<RegisteredTool> {
    const vis = this.visibility(call);
    let tool: RegisteredTool;
    try {
      tool = await this.resolveTool(provider, name, call);
    } catch (err) {
      if (err instanceof ToolHubError && err.code === 'not_found') throw await vis.notFound(err, provider, name);
      throw err;
    }
    if (!vis.permits(tool.tool!)) throw hiddenToolError(provider, name);
    return tool;
  }

  /**
   * {@link resolveVisible} without waiting: the tool when this process's cache holds it, it is
   * enabled and the caller may see it; otherwise `undefined` (then call `resolveVisible`, which
   * looks further or says what is wrong). Saves a RunTool the chain of promises of a cache read.
   */
  resolveVisibleNow(provider: string, name: string, call: CallContext): RegisteredTool | undefined {
    const tool = this.deps.metadata.peekInfo(provider, name);
    if (!tool?.tool || (tool.overlay && !tool.overlay.enabled)) return undefined;
    return this.visibility(call).permits(tool.tool) ? tool : undefined;
  }

  /** The tool with its overlay, whoever asks. @throws ToolHubError not_found when disabled or missing */
  async resolveTool(provider: string, name: string, call: CallContext): Promise<RegisteredTool> {
    assertProviderName(provider);
    assertToolName(name);
    const key = toolId(provider, name);
    let tool: RegisteredTool;
    const shared = this.lookups.get(key);
    if (shared) {
      try {
        tool = await shared;
      } catch (err) {
        // The shared lookup ran within its first caller's deadline: a caller with time left tries again on its own.
        if (!isToolHubError(err, 'timeout') || Date.now() >= call.deadline) throw err;
        tool = await this.lookUpTool(provider, name, call);
      }
    } else {
      // Calls that need the same tool at the same moment (a burst after a start or an eviction) share
      // one cache read, registry request and cache write instead of making one each.
      const lookup = this.lookUpTool(provider, name, call).finally(() => this.lookups.delete(key));
      this.lookups.set(key, lookup);
      tool = await lookup;
    }
    if (tool.overlay && !tool.overlay.enabled) {
      throw ToolHubError.notFound(`Tool ${toolId(provider, name)} is disabled by the operators; use tool_search to find an alternative.`, [], tool.tool?.path ?? '');
    }
    return tool;
  }

  /** The tool from the cache, else the registry, else its adapter (then cached). */
  private async lookUpTool(provider: string, name: string, call: CallContext): Promise<RegisteredTool> {
    const { metadata, registry, client, options } = this.deps;
    let tool = await metadata.getInfo(provider, name);
    if (!tool) {
      tool = await registry.info(provider, name, timeLeft(call, options.registryTimeoutMs), call.traceHeaders).catch((err: unknown) => {
        if (isToolHubError(err, 'unavailable') || isToolHubError(err, 'timeout')) return undefined;
        throw err;
      });
      if (!tool?.tool) {
        const info = await this.guardProvider(provider, () => client.info(provider, name, { timeoutMs: timeLeft(call, options.metadataTimeoutMs), requestId: call.requestId, headers: call.traceHeaders }));
        tool = { tool: info, overlay: { importance: info.importance, enabled: true, fallbacks: [] }, origin: 1, updatedUnixMs: Date.now() };
      }
      await metadata.setInfo(tool);
    }
    return tool;
  }

  /**
   * Refuses a provider of another contract major (FAILED_PRECONDITION, saying what to upgrade) and
   * turns "nobody serves this provider" into NOT_FOUND naming the providers that do exist.
   */
  async guardProvider<T>(provider: string, fn: () => Promise<T>, knownTool?: { name: string }): Promise<T> {
    const { providers } = this.deps;
    // Replicas of another contract major are heard but never called: their messages may differ.
    const refusal = providers.refusal(provider);
    if (refusal) throw new ToolHubError('failed_precondition', `${refusal} Ask the operators; other providers still work.`);
    try {
      return await fn();
    } catch (err) {
      if (isToolHubError(err, 'unavailable') && !providers.has(provider) && knownTool) {
        // The tool exists (the registry or the cache knows it): its provider is down, not unknown.
        const since = providers.downSince(provider);
        throw ToolHubError.unavailable(
          `Provider ${JSON.stringify(provider)} has no live replica${since !== undefined ? ` since ${new Date(since).toISOString()}` : ''}, so ${toolId(provider, knownTool.name)} cannot run now. ` +
            'Retry later, or use tool_search to find an equivalent tool of another provider.',
          err,
        );
      }
      if (isToolHubError(err, 'unavailable') && !providers.has(provider)) throw unknownProviderError(provider, providers.known());
      throw err;
    }
  }
}

/**
 * The one NOT_FOUND for a provider that does not exist or is hidden from the caller; `known` must be
 * the providers this caller may see, so the list cannot reveal a hidden one.
 */
function unknownProviderError(provider: string, known: string[]): ToolHubError {
  return ToolHubError.notFound(
    `Unknown provider ${JSON.stringify(provider)}. ` + (known.length ? `Known providers: ${known.join(', ')}. ` : 'No providers are running right now. ') + 'Call tool_list with no provider to see them.',
    known,
    '',
  );
}

/** What to do next after a tool_list answer. */
function listHint(provider: string, res: AdapterListResponse): string {
  const hintParts: string[] = [];
  const first = res.tools[0];
  if (first) hintParts.push(`Call tool_info with provider=${JSON.stringify(provider)} and name=${JSON.stringify(first.name)} (or another tool above) for its full schema.`);
  if (res.categories[0]) hintParts.push(`Call tool_list with path=${JSON.stringify(res.categories[0].path)} (or another category) to go deeper.`);
  return hintParts.join(' ') || 'This category is empty.';
}
