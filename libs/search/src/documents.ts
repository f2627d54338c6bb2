/**
 * What of a ToolInfo is searchable, and in which field: the name; the category (provider, path,
 * tags); the description (with the output description); the parameters (names and descriptions).
 */
import { Importance, summarize, type ToolInfo } from '@toolhub/contracts';

import { embeddingText } from './embedding-text';
import { forEachParameter } from './schema-parameters';

/** The searchable fields, from strongest to weakest. */
export type SearchField = 'name' | 'category' | 'description' | 'params';

/** The fields in index order. */
export const SEARCH_FIELDS: readonly SearchField[] = ['name', 'category', 'description', 'params'];

/** One tool as the full-text index sees it. */
export type SearchDocument = { id: string } & Record<SearchField, string>;

/** What a hit shows, kept beside the index (MiniSearch stores no fields, so there is one copy). */
export interface ToolEntry {
  id: string;
  provider: string;
  name: string;
  path: string;
  summary: string;
  /** Multiplier of the tool's score from its importance. */
  prior: number;
  /** Content hash; an upsert with the same non-empty version is skipped. */
  version: string;
  /** What the tool's vector is computed from (see embedding-text.ts). */
  embeddingText: string;
}

/** Property names and descriptions of a JSON Schema, nested objects and array items included. */
export function parameterText(schema: unknown): string {
  const parts: string[] = [];
  forEachParameter(schema, (name, prop) => {
    parts.push(name);
    if (typeof prop['description'] === 'string') parts.push(prop['description']);
  });
  return parts.join(' \n ');
}

/** The document indexed for a tool. */
export function toDocument(tool: ToolInfo): SearchDocument {
  return {
    id: tool.id,
    name: tool.name,
    // Path segments and tags describe where the tool sits; the provider is its top category.
    category: [tool.provider, tool.path.replaceAll('/', ' '), ...(tool.tags ?? [])].join(' \n '),
    description: tool.outputDescription ? `${tool.description} \n ${tool.outputDescription}` : tool.description,
    params: parameterText(tool.inputSchema),
  };
}

/** Score multipliers by importance: core tools win close calls, low ones lose them. */
export const IMPORTANCE_PRIOR: Readonly<Record<Importance, number>> = {
  [Importance.IMPORTANCE_UNSPECIFIED]: 1,
  [Importance.IMPORTANCE_CORE]: 1.1,
  [Importance.IMPORTANCE_NORMAL]: 1,
  [Importance.IMPORTANCE_LOW]: 0.9,
};

/** The entry kept for a tool's hits. */
export function toEntry(tool: ToolInfo): ToolEntry {
  return {
    id: tool.id,
    provider: tool.provider,
    name: tool.name,
    path: tool.path,
    summary: summarize(tool.description),
    prior: IMPORTANCE_PRIOR[tool.importance] ?? 1,
    version: tool.version,
    embeddingText: embeddingText(tool),
  };
}
