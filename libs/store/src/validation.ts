/**
 * Input checks shared by the store's operations. Each throws ToolHubError invalid_argument naming
 * the field, the rule and a valid example, so a person or an LLM can fix the call.
 */
import {
  Importance,
  PROVIDER_NAME_PATTERN,
  type ToolInfo,
  ToolHubError,
  assertProviderName,
  assertToolName,
  canonicalJson,
  contentHash,
  isValidToolName,
  normalizePath,
  parseToolId,
  toolId,
} from '@toolhub/contracts';

/** Longest output schema (JSON text) a tool may declare. */
const MAX_OUTPUT_SCHEMA_CHARS = 262_144;

/** Largest stored definition (canonical JSON); MongoDB documents stop at 16 MB. */
export const MAX_TOOL_JSON_BYTES = 512 * 1024;

/** Throws invalid_argument for `field` with a message and what is expected. */
export function invalid(field: string, message: string, expected: string, example: string): never {
  throw ToolHubError.invalidArgument(`${field} ${message}; expected ${expected}, e.g. ${example}.`, [{ field, message, expected, example }]);
}

/** True for a well-formed `<provider>:<name>`. */
export function isValidToolId(id: string): boolean {
  const parsed = parseToolId(id);
  return parsed !== undefined && PROVIDER_NAME_PATTERN.test(parsed.provider) && isValidToolName(parsed.name);
}

/** @throws ToolHubError invalid_argument unless `id` is `<provider>:<name>` with valid parts. */
export function assertToolId(id: unknown, field: string): asserts id is string {
  if (typeof id !== 'string' || !isValidToolId(id)) {
    invalid(field, `is ${JSON.stringify(id)}, not a tool id`, '"<provider>:<name>" with a valid provider and tool name', '"local:file_read"');
  }
}

/** @throws ToolHubError invalid_argument unless `value` is a string of at most `max` characters. */
export function assertText(value: unknown, field: string, max: number, required = false): asserts value is string {
  if (typeof value !== 'string') invalid(field, `is ${typeof value}`, 'a string', '"text"');
  if (required && value.trim() === '') invalid(field, 'is empty', 'a non-empty string', '"alice"');
  if (value.length > max) invalid(field, `has ${value.length} characters`, `at most ${max}`, '"a shorter text"');
}

/**
 * Checks and normalises a tool definition: provider and name rules, id consistency, path
 * normalisation, field types; fills an empty `version` with a content hash.
 * @param field prefix of field names in errors, e.g. `tools[3]` or `tool`.
 * @param provider the provider the tool must belong to (a sync); its own `provider` may then be empty.
 */
export function normalizeToolInfo(tool: ToolInfo, field: string, provider?: string): ToolInfo {
  if (tool === null || typeof tool !== 'object') invalid(field, 'is not an object', 'a ToolInfo', '{"name": "file_read"}');
  const p = tool.provider || provider || '';
  if (provider !== undefined && tool.provider && tool.provider !== provider) {
    invalid(`${field}.provider`, `is ${JSON.stringify(tool.provider)} but the catalog being synced is provider ${JSON.stringify(provider)}`, `"" or ${JSON.stringify(provider)}`, JSON.stringify(provider));
  }
  assertProviderName(p, `${field}.provider`);
  assertToolName(tool.name, `${field}.name`);
  const id = toolId(p, tool.name);
  if (tool.id && tool.id !== id) invalid(`${field}.id`, `is ${JSON.stringify(tool.id)} but provider and name make ${JSON.stringify(id)}`, `"" or ${JSON.stringify(id)}`, JSON.stringify(id));
  const path = normalizePath(tool.path ?? '', `${field}.path`);
  assertText(tool.description ?? '', `${field}.description`, 16_384);
  assertText(tool.outputDescription ?? '', `${field}.outputDescription`, 16_384);
  if (tool.inputSchema !== undefined && (tool.inputSchema === null || typeof tool.inputSchema !== 'object' || Array.isArray(tool.inputSchema))) {
    invalid(`${field}.inputSchema`, 'is not a JSON object', 'a JSON Schema object', '{"type": "object", "properties": {}}');
  }
  if (tool.outputSchemaJson !== undefined) assertOutputSchema(tool.outputSchemaJson, `${field}.outputSchemaJson`);
  const importance = tool.importance ?? Importance.IMPORTANCE_UNSPECIFIED;
  if (!isImportance(importance)) {
    invalid(`${field}.importance`, `is ${JSON.stringify(importance)}`, 'an Importance value (0 to 3)', String(Importance.IMPORTANCE_NORMAL));
  }
  const tags = tool.tags ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) invalid(`${field}.tags`, 'is not a list of strings', 'a list of strings', '["files"]');
  const timeout = tool.defaultTimeoutMs ?? 0;
  if (!Number.isInteger(timeout) || timeout < 0) invalid(`${field}.defaultTimeoutMs`, `is ${JSON.stringify(timeout)}`, 'an integer >= 0 (0: the dispatcher default)', '30000');
  const examples = tool.examples ?? [];
  if (!Array.isArray(examples)) invalid(`${field}.examples`, 'is not a list', 'a list of ToolExample', '[]');

  const normalized: ToolInfo = {
    id,
    provider: p,
    name: tool.name,
    path,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    outputDescription: tool.outputDescription ?? '',
    examples,
    importance,
    annotations: tool.annotations,
    version: '',
    tags,
    defaultTimeoutMs: timeout,
    // Only when set, so the content hash of tools without a source name stays what it was.
    ...(typeof tool.sourceName === 'string' && tool.sourceName !== tool.name ? { sourceName: tool.sourceName.slice(0, 1024) } : {}),
    ...(tool.outputSchemaJson ? { outputSchemaJson: tool.outputSchemaJson } : {}),
  };
  const version = tool.version || contentHash({ ...normalized, id: '', version: '' });
  const result = { ...normalized, version };
  const size = Buffer.byteLength(canonicalJson(result));
  if (size > MAX_TOOL_JSON_BYTES) invalid(field, `is ${size} bytes as JSON`, `at most ${MAX_TOOL_JSON_BYTES} bytes`, 'a shorter description or schema');
  return result;
}

/** True for a defined Importance value (UNSPECIFIED included). */
export function isImportance(value: unknown): value is Importance {
  return typeof value === 'number' && Number.isInteger(value) && value >= Importance.IMPORTANCE_UNSPECIFIED && value <= Importance.IMPORTANCE_LOW;
}

/** Checks `provider` and `name` of a lookup. */
export function assertToolKey(provider: string, name: string): void {
  assertProviderName(provider, 'provider');
  assertToolName(name, 'name');
}

/** Checks a list of distinct tool ids; returns a copy. */
export function assertToolIdList(ids: unknown, field: string, max: number): string[] {
  if (!Array.isArray(ids)) invalid(field, 'is not a list', 'a list of tool ids', '["local:file_read"]');
  if (ids.length > max) invalid(field, `has ${ids.length} entries`, `at most ${max}`, '["local:file_read"]');
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    assertToolId(id, `${field}[${i}]`);
    const first = seen.get(id);
    if (first !== undefined) invalid(`${field}[${i}]`, `repeats ${JSON.stringify(id)} (already ${field}[${first}])`, 'each tool id once', JSON.stringify(id));
    seen.set(id, i);
  });
  return [...(ids as string[])];
}

/** An output schema travels as JSON text: it must be a JSON object, of a bounded size. */
function assertOutputSchema(text: unknown, field: string): void {
  const example = '{"type": "object", "properties": {"total": {"type": "number"}}}';
  if (typeof text !== 'string' || text.length > MAX_OUTPUT_SCHEMA_CHARS) invalid(field, `is not JSON text of at most ${MAX_OUTPUT_SCHEMA_CHARS} characters`, 'a JSON Schema object as JSON text', example);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    invalid(field, 'is not valid JSON', 'a JSON Schema object as JSON text', example);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) invalid(field, 'is not a JSON object', 'a JSON Schema object as JSON text', example);
}
