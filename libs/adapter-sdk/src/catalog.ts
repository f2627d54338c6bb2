/**
 * A provider catalog built from tool definitions in code: implements list/info/run and the
 * catalog announcement, so an adapter of code-defined tools is just `staticCatalog(...)`.
 */
import {
  assertToolName,
  type Category,
  closestMatches,
  contentHash,
  importanceFromName,
  isWithinPath,
  normalizePath,
  parentPath,
  summarize,
  ToolHubError,
  type ToolInfo,
  type ToolSummary,
  toolId,
} from '@toolhub/contracts';

import type { AdapterOperations, ListResult, RunContext, ToolDefinition, ToolResult } from './types';

/** Operations plus the full catalog, ready for {@link serveAdapter}. */
export interface StaticCatalog extends AdapterOperations {
  catalog(): Promise<ToolInfo[]>;
  /** Tool infos by name (read-only view). */
  readonly tools: ReadonlyMap<string, ToolInfo>;
}

// The one-line summary lives in contracts, so the preload set (agent-kit) and search share it.
export { summarize };

/** Builds the wire ToolInfo of a definition; `version` is a hash of everything an agent sees. */
export function toToolInfo(provider: string, def: ToolDefinition<never>): ToolInfo {
  const path = normalizePath(def.path, `${def.name}.path`);
  const described = {
    name: def.name,
    path,
    description: def.description,
    inputSchema: def.inputSchema,
    outputDescription: def.outputDescription ?? '',
    examples: def.examples ?? [],
    importance: def.importance ?? 'normal',
    annotations: def.annotations ?? {},
    tags: def.tags ?? [],
    defaultTimeoutMs: def.defaultTimeoutMs ?? 0,
    // Only when declared, so the version of tools without one stays what it was.
    ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
  };
  return {
    id: toolId(provider, def.name),
    provider,
    name: def.name,
    path,
    description: def.description,
    inputSchema: def.inputSchema,
    outputDescription: described.outputDescription,
    examples: described.examples.map((e) => ({ description: e.description, arguments: e.arguments, result: e.result ?? '' })),
    importance: importanceFromName(def.importance),
    annotations: {
      readOnly: def.annotations?.readOnly,
      destructive: def.annotations?.destructive,
      idempotent: def.annotations?.idempotent,
      openWorld: def.annotations?.openWorld,
    },
    version: contentHash(described),
    tags: described.tags,
    defaultTimeoutMs: described.defaultTimeoutMs,
    ...(def.sourceName !== undefined && def.sourceName !== def.name ? { sourceName: def.sourceName } : {}),
    ...(def.outputSchema ? { outputSchemaJson: JSON.stringify(def.outputSchema) } : {}),
  };
}

/** The summary row of a tool in listings. */
export function toSummary(info: ToolInfo): ToolSummary {
  return { id: info.id, provider: info.provider, name: info.name, path: info.path, summary: summarize(info.description), importance: info.importance };
}

/**
 * Lists one level of a tool tree. Shared by every adapter whose catalog is a list of ToolInfo.
 * @throws ToolHubError not_found when nothing lives at or below `path`, with close category paths.
 */
export function listCatalog(infos: Iterable<ToolInfo>, rawPath: string, recursive: boolean): ListResult {
  const path = normalizePath(rawPath);
  const all = [...infos];
  const below = all.filter((t) => isWithinPath(t.path, path));
  if (path !== '' && below.length === 0) {
    const known = new Set<string>();
    for (const t of all) for (let p = t.path; p !== ''; p = parentPath(p)) known.add(p);
    let parent = parentPath(path);
    while (parent !== '' && !known.has(parent)) parent = parentPath(parent);
    throw ToolHubError.notFound(
      `No category ${JSON.stringify(path)}. ` +
        (known.size ? `Categories include: ${[...known].sort().slice(0, 12).join(', ')}. ` : '') +
        'Call tool_list with one of those paths, or tool_search to find tools by keyword.',
      closestMatches(path, known),
      parent,
    );
  }
  const counts = new Map<string, number>();
  for (const t of below) {
    if (t.path === path) continue;
    const rest = path === '' ? t.path : t.path.slice(path.length + 1);
    const child = path === '' ? rest.split('/')[0]! : `${path}/${rest.split('/')[0]}`;
    counts.set(child, (counts.get(child) ?? 0) + 1);
  }
  const categories: Category[] = [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([p, n]) => ({ path: p, name: p.slice(p.lastIndexOf('/') + 1), toolCount: n }));
  const tools = (recursive ? below : below.filter((t) => t.path === path))
    .sort((a, b) => a.path.localeCompare(b.path) || a.name.localeCompare(b.name))
    .map(toSummary);
  return { categories, tools };
}

/** The not_found error for an unknown tool name: close names, and the path of the closest one. */
export function toolNotFound(provider: string, name: string, infos: ReadonlyMap<string, ToolInfo>): ToolHubError {
  const suggestions = closestMatches(name, infos.keys());
  const parent = suggestions[0] !== undefined ? (infos.get(suggestions[0])?.path ?? '') : '';
  return ToolHubError.notFound(
    `Provider ${JSON.stringify(provider)} has no tool ${JSON.stringify(name)}.` +
      (suggestions.length ? ` Did you mean ${suggestions.map((s) => JSON.stringify(s)).join(' or ')}?` : '') +
      ` Call tool_list with provider=${JSON.stringify(provider)}${parent ? ` and path=${JSON.stringify(parent)}` : ''} to see what exists.`,
    suggestions,
    parent,
  );
}

/**
 * Builds list/info/run over tools defined in code.
 * @throws ToolHubError invalid_argument for a bad name, already_exists for a duplicate name.
 */
export function staticCatalog(provider: string, definitions: ReadonlyArray<ToolDefinition<never>>): StaticCatalog {
  const infos = new Map<string, ToolInfo>();
  const defs = new Map<string, ToolDefinition<never>>();
  for (const def of definitions) {
    assertToolName(def.name);
    if (defs.has(def.name)) {
      throw new ToolHubError('already_exists', `Tool name ${JSON.stringify(def.name)} is defined twice in provider ${JSON.stringify(provider)}; tool names must be unique per provider.`);
    }
    defs.set(def.name, def);
    infos.set(def.name, toToolInfo(provider, def));
  }
  return {
    tools: infos,
    async catalog() {
      return [...infos.values()];
    },
    async listTools(path, recursive) {
      return listCatalog(infos.values(), path, recursive);
    },
    async getToolInfo(name) {
      const info = infos.get(name);
      if (!info) throw toolNotFound(provider, name, infos);
      return info;
    },
    async runTool(name: string, args: Record<string, unknown>, ctx: RunContext): Promise<ToolResult> {
      const def = defs.get(name);
      if (!def) throw toolNotFound(provider, name, infos);
      return def.run(args as never, ctx);
    },
  };
}
