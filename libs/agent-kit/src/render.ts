/**
 * Renders tool lists in the shapes LLM APIs take, byte-stable: object keys are sorted at every
 * level (the contract's canonicalJson), and the returned objects are built in that order too, so
 * whatever serialiser an SDK uses sends the same bytes run after run and prompt caches stay warm.
 * Array order is kept as given: the caller decides the order (prefix first, discovered appended).
 */
import { createHash } from 'node:crypto';

import { canonicalJson } from '@toolhub/contracts';

import { AgentKitError } from './errors';
import type { ExposedTool, JsonObjectSchema } from './meta-tools';
import { EXPOSED_NAME_PATTERN } from './tool-names';

/** The tool-list formats the kit renders. */
export const TOOL_FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** OpenAI Chat Completions `tools[]` entry. */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonObjectSchema };
}
/** OpenAI Responses API `tools[]` entry (a function tool, non-strict: ToolHub schemas are not strict-mode subsets). */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonObjectSchema;
  strict: false;
}
/** Anthropic Messages `tools[]` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonObjectSchema;
}
/** MCP `tools/list` entry. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonObjectSchema;
  /** Present only when the tool declares an object-typed output schema (MCP requires `type: "object"`). */
  outputSchema?: { type: 'object'; [key: string]: unknown };
}

/** The entry type of each format. */
export interface RenderedToolByFormat {
  'openai-chat': OpenAIChatTool;
  'openai-responses': OpenAIResponsesTool;
  anthropic: AnthropicTool;
  mcp: McpTool;
}

/** A rendered tool list with its byte-stable serialisation and fingerprint. */
export interface RenderedTools<F extends ToolFormat> {
  format: F;
  /** Pass these to the SDK; keys are in canonical order. */
  tools: Array<RenderedToolByFormat[F]>;
  /** The canonical JSON of `tools`: identical bytes for identical tools. */
  json: string;
  /** First 16 hex characters of the SHA-256 of `json`. */
  fingerprint: string;
}

/**
 * Normalises an input schema for every LLM API: an object schema (`type: "object"`, `properties`
 * present), without `$schema` (no API needs it; it only costs tokens). Other keywords are kept.
 */
export function normalizeInputSchema(schema: Record<string, unknown> | undefined): JsonObjectSchema {
  const rest: Record<string, unknown> = { ...(schema ?? {}) };
  delete rest.$schema;
  const properties = rest.properties !== null && typeof rest.properties === 'object' && !Array.isArray(rest.properties) ? (rest.properties as Record<string, object>) : {};
  return { ...rest, type: 'object', properties };
}

function entry(tool: ExposedTool, format: ToolFormat): RenderedToolByFormat[ToolFormat] {
  const { name } = tool;
  const description = tool.description.trim();
  const schema = normalizeInputSchema(tool.inputSchema);
  switch (format) {
    case 'openai-chat':
      return { type: 'function', function: { name, description, parameters: schema } };
    case 'openai-responses':
      return { type: 'function', name, description, parameters: schema, strict: false };
    case 'anthropic':
      return { name, description, input_schema: schema };
    case 'mcp':
      return tool.outputSchema?.['type'] === 'object' ? { name, description, inputSchema: schema, outputSchema: tool.outputSchema as McpTool['outputSchema'] } : { name, description, inputSchema: schema };
  }
}

/**
 * Renders `tools` in `format`, keeping their order.
 * @throws AgentKitError invalid_options for an unknown format, a name no LLM API accepts, or a
 *   name that appears twice (the model could not tell the two apart).
 */
export function renderTools<F extends ToolFormat>(tools: readonly ExposedTool[], format: F): RenderedTools<F> {
  if (!(TOOL_FORMATS as readonly string[]).includes(format)) {
    throw new AgentKitError('invalid_options', `Unknown tool format ${JSON.stringify(format)}; use one of ${TOOL_FORMATS.join(', ')}.`);
  }
  const seen = new Set<string>();
  for (const t of tools) {
    if (!EXPOSED_NAME_PATTERN.test(t.name)) {
      throw new AgentKitError('invalid_options', `Tool name ${JSON.stringify(t.name)} is not accepted by LLM APIs (${EXPOSED_NAME_PATTERN.source}); use exposedToolName().`);
    }
    if (seen.has(t.name)) throw new AgentKitError('invalid_options', `Tool name ${JSON.stringify(t.name)} appears twice in one tool list.`);
    seen.add(t.name);
  }
  const json = canonicalJson(tools.map((t) => entry(t, format)));
  // Re-parsing the canonical text gives objects whose insertion order is the canonical order.
  // Same value as contentHash(tools) of @toolhub/contracts: SHA-256 of the canonical JSON.
  const fingerprint = createHash('sha256').update(json).digest('hex').slice(0, 16);
  return { format, tools: JSON.parse(json) as Array<RenderedToolByFormat[F]>, json, fingerprint };
}

/** The fingerprint of a tool list in one format, without keeping the rendered objects. */
export function toolsFingerprint(tools: readonly ExposedTool[], format: ToolFormat): string {
  return renderTools(tools, format).fingerprint;
}
