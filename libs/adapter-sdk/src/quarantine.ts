/**
 * Quarantine: a tool that breaks a catalog rule (name, schema depth or size, description size, a
 * definition too large for one bus message) is left out of the catalog with a reason, and its
 * neighbours keep serving. Adapters add their own per-source entries (an OpenAPI document that does
 * not parse, an MCP server that does not answer) through {@link QuarantineList} or
 * `AdapterDefinition.quarantined()`; the SDK announces both with the catalog.
 */
import {
  isValidToolName,
  jsonDepth,
  MAX_ANNOUNCED_QUARANTINE,
  MAX_DESCRIPTION_CHARS,
  MAX_QUARANTINE_TEXT,
  MAX_SCHEMA_BYTES,
  MAX_SCHEMA_DEPTH,
  MAX_TOOL_BYTES,
  type QuarantinedItem,
  ToolInfo,
  utf8Bytes,
} from '@toolhub/contracts';

/** A tool or a whole source left out of the catalog, with the reason an operator reads. */
export interface QuarantineEntry {
  /** Where it came from: a document path, an MCP server name; '' for code-defined tools. */
  source: string;
  /** Why, in words an operator can act on (which limit, the measured value). */
  reason: string;
  /** The tool's (source) name; omitted when the whole source is quarantined. */
  tool?: string;
  /** The rule broken, e.g. `schema_depth`, `schema_size`, `name`, `load`, `parse`. @default 'load' for sources, 'rule' for tools */
  rule?: string;
}

/**
 * A mutable set of per-source quarantine entries, for adapters whose sources come and go (an MCP
 * server that fails, then recovers). Pass `() => list.entries()` as `AdapterDefinition.quarantined`
 * and call `service.announce()` after changing it.
 */
export class QuarantineList {
  private readonly bySource = new Map<string, QuarantineEntry[]>();

  /** Adds an entry (a whole source when `tool` is omitted). */
  add(entry: QuarantineEntry): void {
    const list = this.bySource.get(entry.source) ?? [];
    list.push({ ...entry });
    this.bySource.set(entry.source, list);
  }

  /** Forgets every entry of `source` (it loaded fine this time). */
  clear(source: string): void {
    this.bySource.delete(source);
  }

  /** Every entry, sources in insertion order. */
  entries(): QuarantineEntry[] {
    return [...this.bySource.values()].flat();
  }

  get size(): number {
    let n = 0;
    for (const l of this.bySource.values()) n += l.length;
    return n;
  }
}

/** A screened catalog: the tools that serve, and those left out with reasons. */
export interface ScreenedCatalog {
  tools: ToolInfo[];
  /** Encoded size of each accepted tool, in `tools` order (reused to cut pages). */
  encoded: Uint8Array[];
  quarantined: QuarantineEntry[];
}

type Screened = { bytes: Uint8Array } | { entry: QuarantineEntry };
// Screening encodes every tool; heartbeats re-read the catalog every few seconds, so results are
// kept per ToolInfo object (adapters hand out the same objects until their catalog changes).
const screenCache = new WeakMap<ToolInfo, { maxToolBytes: number; result: Screened }>();

function kib(n: number): string {
  return `${Math.round(n / 102.4) / 10} KiB`;
}

/**
 * Checks one tool against the catalog rules.
 * @returns the encoded ToolInfo, or the quarantine entry saying which rule it broke.
 */
export function screenTool(info: ToolInfo, maxToolBytes: number): Screened {
  const cached = screenCache.get(info);
  if (cached && cached.maxToolBytes === maxToolBytes) return cached.result;
  const result = screenUncached(info, maxToolBytes);
  screenCache.set(info, { maxToolBytes, result });
  return result;
}

function screenUncached(info: ToolInfo, maxToolBytes: number): Screened {
  const tool = typeof info.name === 'string' ? info.name : '';
  const entry = (rule: string, reason: string): Screened => ({ entry: { source: '', tool, rule, reason } });
  if (!isValidToolName(tool)) return entry('name', `the name ${JSON.stringify(tool.slice(0, 80))} does not match ^[a-z][a-z0-9_]{0,63}$`);
  const depth = jsonDepth(info.inputSchema, MAX_SCHEMA_DEPTH);
  if (depth > MAX_SCHEMA_DEPTH) return entry('schema_depth', `the input schema nests more than ${MAX_SCHEMA_DEPTH} levels (limit MAX_SCHEMA_DEPTH)`);
  for (const ex of info.examples ?? []) {
    if (jsonDepth(ex.arguments, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) return entry('schema_depth', `an example's arguments nest more than ${MAX_SCHEMA_DEPTH} levels (limit MAX_SCHEMA_DEPTH)`);
  }
  for (const [field, text] of [['description', info.description], ['output description', info.outputDescription]] as const) {
    const chars = (text ?? '').length;
    if (chars > MAX_DESCRIPTION_CHARS) return entry('description_size', `the ${field} has ${chars} characters, more than the ${MAX_DESCRIPTION_CHARS} limit (MAX_DESCRIPTION_CHARS)`);
  }
  let bytes: Uint8Array;
  try {
    bytes = ToolInfo.encode(info).finish();
  } catch (err) {
    return entry('encode', `the definition cannot be encoded: ${(err as Error).message}`);
  }
  const schemaBytes = info.inputSchema === undefined ? 0 : utf8Bytes(JSON.stringify(info.inputSchema));
  if (schemaBytes > MAX_SCHEMA_BYTES) return entry('schema_size', `the input schema is ${kib(schemaBytes)} of JSON, more than the ${kib(MAX_SCHEMA_BYTES)} limit (MAX_SCHEMA_BYTES)`);
  const limit = Math.min(maxToolBytes, MAX_TOOL_BYTES);
  if (bytes.byteLength > limit) return entry('definition_size', `the encoded definition is ${kib(bytes.byteLength)}, more than the ${kib(limit)} limit (MAX_TOOL_BYTES, or what one bus message carries)`);
  return { bytes };
}

/**
 * Screens a whole catalog: every rule of {@link screenTool}, plus unique names (the first of a
 * duplicated name serves; later ones are quarantined).
 */
export function screenCatalog(tools: ReadonlyArray<ToolInfo>, maxToolBytes: number): ScreenedCatalog {
  const out: ScreenedCatalog = { tools: [], encoded: [], quarantined: [] };
  const seen = new Set<string>();
  for (const t of tools) {
    const r = screenTool(t, maxToolBytes);
    if ('entry' in r) {
      out.quarantined.push(r.entry);
    } else if (seen.has(t.name)) {
      out.quarantined.push({ source: '', tool: t.name, rule: 'duplicate_name', reason: `another tool of this provider is already named ${JSON.stringify(t.name)}` });
    } else {
      seen.add(t.name);
      out.tools.push(t);
      out.encoded.push(r.bytes);
    }
  }
  return out;
}

const cut = (s: string) => (s.length > MAX_QUARANTINE_TEXT ? `${s.slice(0, MAX_QUARANTINE_TEXT - 1)}…` : s);

/** The wire form of quarantine entries: at most MAX_ANNOUNCED_QUARANTINE, texts cut short, control characters shown escaped. */
export function toWireQuarantine(entries: ReadonlyArray<QuarantineEntry>): QuarantinedItem[] {
  // eslint-disable-next-line no-control-regex
  const clean = (s: string) => cut(s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  return entries.slice(0, MAX_ANNOUNCED_QUARANTINE).map((e) => ({
    source: clean(e.source),
    tool: clean(e.tool ?? ''),
    reason: clean(e.reason),
    rule: clean(e.rule ?? (e.tool ? 'rule' : 'load')),
  }));
}
