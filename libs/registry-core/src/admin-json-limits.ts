/**
 * Bounded work per admin request: the JSON an operator sends (a tool's input/output schema and
 * example arguments in RegisterTool/UpdateTool, an overlays file in ImportOverlays) is measured
 * against bytes, nodes and depth limits before it is parsed — decoding a ToolInfo parses its JSON
 * text, so RegisterTool/UpdateTool are counted on the protobuf wire first. Same errors as the
 * dispatcher's argument limits, naming these env vars.
 */
import { type ArgumentLimits, type ArgumentSize, type JsonFieldMap, measureArguments, measureJsonFields, measureJsonText, ToolHubError } from '@toolhub/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * Defaults: the message limit for bytes; nodes and depth generous enough for real vendor schemas
 * (catalog-limits: schemas of up to 128 levels are accepted from adapters) and overlays files
 * naming thousands of tools.
 */
export const DEFAULT_ADMIN_JSON_LIMITS: Readonly<ArgumentLimits> = Object.freeze({ maxBytes: 4 * 1024 * 1024, maxNodes: 100_000, maxDepth: 128 });

const ENV = { bytes: 'TOOLHUB_ADMIN_MAX_JSON_BYTES', nodes: 'TOOLHUB_ADMIN_MAX_JSON_NODES', depth: 'TOOLHUB_ADMIN_MAX_JSON_DEPTH' } as const;

/** Config fields of the admin JSON limits, spread into apps that serve the registry admin API. */
export function adminJsonLimitConfigFields() {
  const d = DEFAULT_ADMIN_JSON_LIMITS;
  return {
    adminMaxJsonBytes: { env: ENV.bytes, schema: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(d.maxBytes), description: 'Registry admin API: largest JSON of one request (schemas and examples of a tool, an overlays file), bytes; refused before parsing' },
    adminMaxJsonNodes: { env: ENV.nodes, schema: z.coerce.number().int().min(1).max(10_000_000).default(d.maxNodes), description: 'Registry admin API: most properties and array items in one request\'s JSON; counted before parsing' },
    adminMaxJsonDepth: { env: ENV.depth, schema: z.coerce.number().int().min(1).max(1000).default(d.maxDepth), description: 'Registry admin API: deepest nesting of objects/arrays in one request\'s JSON' },
  };
}

/** The limits from {@link adminJsonLimitConfigFields}' parsed values. */
export function adminJsonLimitsFromConfig(c: { adminMaxJsonBytes: number; adminMaxJsonNodes: number; adminMaxJsonDepth: number }): ArgumentLimits {
  return { maxBytes: c.adminMaxJsonBytes, maxNodes: c.adminMaxJsonNodes, maxDepth: c.adminMaxJsonDepth };
}

/** The INVALID_ARGUMENT for admin JSON past a limit: which limit, its env var, the size found. */
export function adminJsonLimitError(size: ArgumentSize, limits: ArgumentLimits, what: string): ToolHubError {
  const kind = size.exceeded ?? 'bytes';
  const found =
    kind === 'bytes'
      ? `${size.bytes} bytes; the limit is ${limits.maxBytes} bytes`
      : kind === 'nodes'
        ? `more than ${limits.maxNodes} properties and array items in all (counted ${size.nodes} before stopping); the limit is ${limits.maxNodes}`
        : `nested deeper than the limit of ${limits.maxDepth} levels`;
  return ToolHubError.invalidArgument(`${what}: ${found} (${ENV[kind]}). Send a smaller document, or raise the limit.`, [
    { field: '/', message: `${kind} limit exceeded`, expected: kind === 'bytes' ? `at most ${limits.maxBytes} bytes` : kind === 'nodes' ? `at most ${limits.maxNodes} properties and array items` : `at most ${limits.maxDepth} levels` },
  ]);
}

/** ToolInfo's JSON (proto field numbers): input_schema = 6 (Struct), input/output_schema_json = 20/21, examples = 8 (ToolExample: arguments = 2, arguments_json = 4). */
const TOOL_INFO_JSON: JsonFieldMap = { struct: [6], json: [20, 21], messages: { 8: { struct: [2], json: [4] } } };
/** RegisterToolRequest.tool = 1, UpdateToolRequest.tool = 1. */
const ADMIN_REQUEST_JSON: Readonly<Record<string, JsonFieldMap>> = {
  registerTool: { messages: { 1: TOOL_INFO_JSON } },
  updateTool: { messages: { 1: TOOL_INFO_JSON } },
};

/**
 * The precheck of the admin service's request decoder: RegisterTool/UpdateTool's schema and
 * examples measured on the wire (all together) before their JSON text is parsed.
 */
export function adminJsonPrecheck(limits: ArgumentLimits): (method: string, buf: Buffer) => Error | undefined {
  return (method, buf) => {
    const map = ADMIN_REQUEST_JSON[method];
    if (map === undefined) return undefined;
    const size = measureJsonFields(buf, map, limits);
    return size.exceeded ? adminJsonLimitError(size, limits, "The tool's schemas and examples (together)") : undefined;
  };
}

/**
 * Checks an overlays file against the limits: bytes before anything, JSON text counted before it is
 * parsed; YAML (no cheap count on its text) is parsed within the byte limit and its value measured
 * before it is checked against the schema or looked up tool by tool.
 * @throws ToolHubError invalid_argument naming the limit.
 */
export function checkOverlaysContent(content: string, format: string, limits: ArgumentLimits): void {
  const bytes = Buffer.byteLength(content);
  const what = 'The overlays file';
  if (bytes > limits.maxBytes) throw adminJsonLimitError({ bytes, nodes: 0, depth: 0, exceeded: 'bytes' }, limits, what);
  const kind = format || (content.trimStart().startsWith('{') ? 'json' : 'yaml');
  let size: ArgumentSize;
  if (kind === 'json') size = measureJsonText(Buffer.from(content), limits);
  else {
    let value: unknown;
    try {
      value = parseYaml(content);
    } catch {
      return; // unparsable: parseOverlaysFile says how
    }
    size = measureArguments(value, limits);
  }
  if (size.exceeded) throw adminJsonLimitError(size, limits, what);
}
