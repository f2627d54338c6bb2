/**
 * Reads the compact text the agent kit returns for meta-tool calls (see "Executing calls" in
 * libs/agent-kit/README.md): search hits, a tool's info with its input schema, and run results.
 * The scripted model "understands" results through these; the step printer summarises them.
 */

/** One line of a tool_search result: `<id> - <summary> [<path>]`. */
export interface SearchHitLine {
  id: string;
  provider: string;
  name: string;
  summary: string;
  path: string;
}

/** The hits of a tool_search result, best first ([] for "no tools matched"). */
export function parseSearchHits(content: string): SearchHitLine[] {
  const hits: SearchHitLine[] = [];
  for (const line of content.split('\n')) {
    const m = /^([a-z][a-z0-9_-]*):([a-z][a-z0-9_]*) - (.*?)(?: \[([^\]]*)\])?$/.exec(line);
    if (m) hits.push({ id: `${m[1]}:${m[2]}`, provider: m[1]!, name: m[2]!, summary: m[3]!, path: m[4] ?? '' });
  }
  return hits;
}

/** A JSON Schema object, as tool_info prints it. */
export type Schema = Record<string, unknown>;

/** A tool_info result. */
export interface ToolInfoText {
  id: string;
  provider: string;
  name: string;
  description: string;
  inputSchema: Schema;
}

/** The id, description and input schema of a tool_info result; undefined when it is an error. */
export function parseToolInfo(content: string): ToolInfoText | undefined {
  const lines = content.split('\n');
  const head = /^([a-z][a-z0-9_-]*):([a-z][a-z0-9_]*)\b/.exec(lines[0] ?? '');
  const input = lines.find((l) => l.startsWith('input: '));
  if (!head || !input) return undefined;
  let inputSchema: Schema;
  try {
    inputSchema = JSON.parse(input.slice('input: '.length)) as Schema;
  } catch {
    return undefined;
  }
  return { id: `${head[1]}:${head[2]}`, provider: head[1]!, name: head[2]!, description: lines[1] ?? '', inputSchema };
}

/** A tool_run result: the output without the `note:` lines, the notes, and whether it failed. */
export interface RunResultText {
  isError: boolean;
  output: string;
  notes: string[];
}

/** Splits a tool_run result (or a failure, which starts with `error`). */
export function parseRunResult(content: string): RunResultText {
  const lines = content.split('\n');
  const notes = lines.filter((l) => l.startsWith('note: ')).map((l) => l.slice('note: '.length));
  const output = lines.filter((l) => !l.startsWith('note: ')).join('\n').trim();
  return { isError: /^error\b/.test(content), output, notes };
}

/** `name: type (required)` for each top-level parameter, e.g. `expression: string (required), precision: integer = 14`. */
export function schemaSummary(schema: Schema): string {
  const props = (schema['properties'] ?? {}) as Record<string, Schema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const typeOf = (s: Schema): string => {
    if (Array.isArray(s['enum'])) return (s['enum'] as unknown[]).map((v) => JSON.stringify(v)).join('|');
    const alts = (s['anyOf'] ?? s['oneOf']) as Schema[] | undefined;
    if (Array.isArray(alts)) return alts.map(typeOf).join(' | ');
    if (s['type'] === 'array') return `${typeOf((s['items'] ?? {}) as Schema)}[]`;
    return typeof s['type'] === 'string' ? s['type'] : 'any';
  };
  const parts = Object.entries(props).map(([name, s]) => `${name}: ${typeOf(s)}${required.has(name) ? ' (required)' : ''}${'default' in s ? ` = ${JSON.stringify(s['default'])}` : ''}`);
  return parts.length ? parts.join(', ') : '(no parameters)';
}
