/**
 * The catalog policy: how deep and how large a tool definition may be, and how a catalog is cut
 * into bus-sized pages. A tool past a limit is quarantined (left out with a reason) by the adapter
 * SDK; its neighbours keep serving. Every limit is generous enough for the real vendor documents in
 * `shared/data/openapi/real/` (their request schemas nest about 40 JSON levels).
 */

/** Deepest JSON nesting accepted in an input schema or example (the schema object is level 1). */
export const MAX_SCHEMA_DEPTH = 128;

/** Largest input schema, as JSON text, in bytes (256 KiB). */
export const MAX_SCHEMA_BYTES = 256 * 1024;

/**
 * Longest description or output description, in characters (16,384, the registry store's limit):
 * a description is prompt text, not a document.
 */
export const MAX_DESCRIPTION_CHARS = 16_384;

/** Largest encoded tool definition, in bytes (448 KiB: the store keeps at most 512 KiB of JSON per tool). */
export const MAX_TOOL_BYTES = 448 * 1024;

/**
 * Deepest JSON value still also written into the legacy `google.protobuf.Struct` fields. ts-proto's
 * decoder stops at 100 nested messages, and each JSON level costs up to three of them (Struct, its
 * map entry, Value), plus the envelopes around a ToolInfo: 24 levels stay well inside.
 */
export const WIRE_STRUCT_MAX_DEPTH = 24;

/** At most this many quarantined items travel in one catalog announcement (the total is sent too). */
export const MAX_ANNOUNCED_QUARANTINE = 200;

/** Quarantine reasons and names are cut to this many characters on the wire. */
export const MAX_QUARANTINE_TEXT = 300;

/** Bytes kept free in every bus message for headers and envelope fields (trace context, ids). */
export const BUS_HEADROOM_BYTES = 16 * 1024;

/**
 * The depth of a JSON value, counted without recursion (a 100,000-level value cannot overflow the
 * stack here). Stops counting past `limit` and answers `limit + 1`.
 */
export function jsonDepth(value: unknown, limit = Number.MAX_SAFE_INTEGER): number {
  if (value === null || typeof value !== 'object') return 0;
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > limit) return limit + 1;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return max;
}

/** UTF-8 length of a string, without allocating a buffer for short ASCII ones. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
