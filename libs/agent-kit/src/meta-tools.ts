/**
 * The four meta-tools every agent gets instead of the whole catalog. They sit in every prompt, so
 * descriptions and schemas are as short as they can be while still teaching the workflow:
 * tool_search or tool_list (like `ls`) → tool_info (like `man`) → tool_run.
 */

/** A JSON Schema for an arguments object (what every LLM API wants for tool parameters). */
export interface JsonObjectSchema {
  type: 'object';
  /** Each property's schema (an object: the MCP SDK's Tool type rejects boolean schemas here). */
  properties?: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/** A tool as the model sees it: a unique name, a description and an input schema. */
export interface ExposedTool {
  /** Unique among the tools of one prompt; matches ^[a-zA-Z0-9_-]{1,64}$. */
  name: string;
  description: string;
  inputSchema: JsonObjectSchema;
  /**
   * JSON Schema of the tool's structured result, when it declares one (an MCP tool's
   * `outputSchema`). Only the `mcp` format carries it: the others have no place for it.
   */
  outputSchema?: Record<string, unknown>;
}

/** Names of the meta-tools. */
export const META_TOOL_NAMES = ['tool_list', 'tool_info', 'tool_run', 'tool_search'] as const;
export type MetaToolName = (typeof META_TOOL_NAMES)[number];

const str = { type: 'string' } as const;

/**
 * The meta-tool definitions, in their fixed order (never reordered: they open the cached prompt
 * prefix). Field names follow the ToolHub API (`provider`, `name`, `path`, `queries`).
 */
export const META_TOOLS: readonly ExposedTool[] = Object.freeze<ExposedTool[]>([
  {
    name: 'tool_list',
    description: 'Browse tools like ls. No args: providers; provider (+path): categories and tools. Then tool_info.',
    inputSchema: { type: 'object', properties: { provider: str, path: str, recursive: { type: 'boolean' } } },
  },
  {
    name: 'tool_info',
    description: "A tool's full description and input schema, like man. Read before tool_run.",
    inputSchema: {
      type: 'object',
      properties: { provider: str, name: { type: 'string', description: 'or id provider:name' } },
      required: ['name'],
    },
  },
  {
    name: 'tool_run',
    description: 'Run a tool; arguments follow its tool_info schema.',
    inputSchema: {
      type: 'object',
      properties: { provider: str, name: str, arguments: { type: 'object' }, timeout_ms: { type: 'integer' } },
      required: ['name', 'arguments'],
    },
  },
  {
    name: 'tool_search',
    description: 'Find tools by what they do: 1-5 short keyword queries. Then tool_info on the best hit.',
    inputSchema: {
      type: 'object',
      properties: {
        queries: { type: 'array', items: str, minItems: 1, maxItems: 5 },
        provider: str,
        path: str,
        limit: { type: 'integer' },
      },
      required: ['queries'],
    },
  },
]);

/** True when `name` is one of the four meta-tools. */
export function isMetaToolName(name: string): name is MetaToolName {
  return (META_TOOL_NAMES as readonly string[]).includes(name);
}

/** Names of the async-run meta-tools (AgentToolkit option `asyncRuns`). */
export const ASYNC_META_TOOL_NAMES = ['tool_start', 'tool_result'] as const;
export type AsyncMetaToolName = (typeof ASYNC_META_TOOL_NAMES)[number];

/**
 * Two meta-tools for long runs, offered after the four when the toolkit is created with
 * `asyncRuns: true` (fixed order and bytes, like the four): `tool_start` starts a run and answers
 * its id at once (StartRun); `tool_result` reads it, waiting up to `wait_s` seconds for it to end
 * (WatchRun / GetRun).
 */
export const ASYNC_META_TOOLS: readonly ExposedTool[] = Object.freeze<ExposedTool[]>([
  {
    name: 'tool_start',
    description: 'Start a long tool run in the background; returns a run_id at once. Same args as tool_run. Then tool_result.',
    inputSchema: {
      type: 'object',
      properties: { provider: str, name: str, arguments: { type: 'object' }, timeout_ms: { type: 'integer' } },
      required: ['name', 'arguments'],
    },
  },
  {
    name: 'tool_result',
    description: "A started run's state and, once done, its output. wait_s: wait up to that many seconds (max 60) for it to end.",
    inputSchema: { type: 'object', properties: { run_id: str, wait_s: { type: 'integer' } }, required: ['run_id'] },
  },
]);

/** True when `name` is one of the async-run meta-tools. */
export function isAsyncMetaToolName(name: string): name is AsyncMetaToolName {
  return (ASYNC_META_TOOL_NAMES as readonly string[]).includes(name);
}
