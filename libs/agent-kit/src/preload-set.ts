/**
 * The preload set: the four meta-tools plus the operators' chosen tools in compact form (name,
 * one-line description, key parameters), in the list's order, serialised byte-stably with a
 * fingerprint that changes only when the list or those tools change — so prompt caches stay warm.
 * Here, beside the meta-tools, so the registry (which serves the set) and the dispatcher (which
 * rebuilds it for a restricted view) share it without one core depending on the other.
 */
import { canonicalJson, contentHash, type GetPreloadSetResponse, PreloadFormat, type PreloadTool, summarize, type ToolInfo } from '@toolhub/contracts';

import { type ExposedTool, META_TOOLS } from './meta-tools';
import { renderTools, type ToolFormat } from './render';
import { exposedToolName } from './tool-names';

/** Most parameters kept per tool: the required ones first, then optional ones in schema order. */
const MAX_KEY_PARAMETERS = 6;
const MAX_PARAM_DESCRIPTION = 80;

/** Reduces a JSON Schema to its key parameters, each with type, enum and a short description. */
export function keyParameters(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const props = (schema?.['properties'] ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema?.['required']) ? (schema['required'] as string[]).filter((r) => r in props) : [];
  const optional = Object.keys(props).filter((k) => !required.includes(k));
  const keep = [...required, ...optional].slice(0, MAX_KEY_PARAMETERS);
  const properties: Record<string, unknown> = {};
  for (const name of keep) {
    const p = props[name] ?? {};
    const reduced: Record<string, unknown> = {};
    if (p['type'] !== undefined) reduced['type'] = p['type'];
    if (Array.isArray(p['enum'])) reduced['enum'] = p['enum'];
    if (typeof p['description'] === 'string') reduced['description'] = summarize(p['description']).slice(0, MAX_PARAM_DESCRIPTION);
    if (p['type'] === 'array' && p['items'] && typeof p['items'] === 'object') reduced['items'] = { type: (p['items'] as Record<string, unknown>)['type'] };
    properties[name] = reduced;
  }
  const out: Record<string, unknown> = { type: 'object', properties };
  if (required.length) out['required'] = required.slice(0, MAX_KEY_PARAMETERS);
  return out;
}

/** The compact, exposed form of one preloaded tool. */
export function compactTool(info: ToolInfo): ExposedTool {
  return { name: exposedToolName(info.provider, info.name), description: summarize(info.description), inputSchema: keyParameters(info.inputSchema) as ExposedTool['inputSchema'] };
}

const FORMATS: Partial<Record<PreloadFormat, ToolFormat>> = {
  [PreloadFormat.PRELOAD_FORMAT_OPENAI_CHAT]: 'openai-chat',
  [PreloadFormat.PRELOAD_FORMAT_OPENAI_RESPONSES]: 'openai-responses',
  [PreloadFormat.PRELOAD_FORMAT_ANTHROPIC]: 'anthropic',
  [PreloadFormat.PRELOAD_FORMAT_MCP]: 'mcp',
};

/**
 * Builds the preload set from the tools of the preload list, in its order (missing or disabled
 * tools are left out by the caller). Same input → same bytes and fingerprint.
 */
export function buildPreloadSet(tools: readonly ToolInfo[], format: PreloadFormat): GetPreloadSetResponse {
  const exposed = [...META_TOOLS, ...tools.map(compactTool)];
  const target = FORMATS[format];
  const rendered = target ? renderTools(exposed, target).json : canonicalJson(exposed.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })));
  const preloadTools: PreloadTool[] = [
    ...META_TOOLS.map((t) => ({ id: `toolhub:${t.name}`, provider: 'toolhub', name: t.name, description: t.description, inputSchema: t.inputSchema, version: contentHash(t) })),
    ...tools.map((t, i) => ({ id: t.id, provider: t.provider, name: t.name, description: exposed[META_TOOLS.length + i]!.description, inputSchema: exposed[META_TOOLS.length + i]!.inputSchema, version: t.version })),
  ];
  return { tools: preloadTools, fingerprint: contentHash(rendered), rendered };
}
