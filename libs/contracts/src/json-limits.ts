/**
 * The argument limits (bytes, nodes, depth) applied to other JSON a request carries: JSON text in
 * string fields (`input_schema_json`, an overlays file) and `google.protobuf.Struct` fields, measured
 * on the protobuf bytes before the request is decoded — decoding ToolInfo parses its JSON text, so
 * the check must come first. Used by the registry admin API.
 */
import { type ArgumentLimits, type ArgumentSize, measureStructWire } from './argument-limits';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Measures JSON text at `buf[start, end)` without parsing it: bytes, properties and array items
 * (as {@link countJsonNodes}) and nesting depth, stopping at the first node or depth limit. `into`
 * adds up several texts. Invalid JSON is left to the parser.
 */
export function measureJsonText(buf: Uint8Array, limits: ArgumentLimits, start = 0, end = buf.length, into: ArgumentSize = { bytes: 0, nodes: 0, depth: 0 }): ArgumentSize {
  into.bytes += end - start;
  // Container stack: 1 = array, 2 = object; `first` = an array just opened, its first item not seen.
  const stack: number[] = [];
  let first = false;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (first && c !== 0x5d) {
      into.nodes++;
      first = false;
    }
    if (c === QUOTE) {
      for (i++; i < end && buf[i] !== QUOTE; i++) if (buf[i] === BACKSLASH) i++;
    } else if (c === 0x5b || c === 0x7b) {
      stack.push(c === 0x5b ? 1 : 2);
      first = c === 0x5b;
      if (stack.length > into.depth) into.depth = stack.length;
      if (stack.length > limits.maxDepth) {
        into.exceeded = 'depth';
        return into;
      }
    } else if (c === 0x5d || c === 0x7d) {
      stack.pop();
      first = false;
    } else if (c === 0x3a) into.nodes++; // a property's colon
    else if (c === 0x2c && stack[stack.length - 1] === 1) into.nodes++; // the next array item
    if (into.nodes > limits.maxNodes) {
      into.exceeded = 'nodes';
      return into;
    }
  }
  if (into.bytes > limits.maxBytes) into.exceeded = 'bytes';
  return into;
}

/**
 * Calls `visit` with each length-delimited field of the protobuf message at `buf[start, end)`
 * (field number and the bounds of its bytes), skipping the others, without decoding anything.
 * Stops early when `visit` returns true; stops silently on malformed input (the decoder reports it).
 */
export function forEachWireField(buf: Uint8Array, start: number, end: number, visit: (field: number, from: number, to: number) => boolean | void): void {
  let pos = start;
  const varint = (): number => {
    let result = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (pos >= end) throw new RangeError('truncated');
      const b = buf[pos++]!;
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new RangeError('varint too long');
  };
  try {
    while (pos < end) {
      const tag = varint();
      const wireType = tag % 8;
      if (wireType === 0) varint();
      else if (wireType === 1) pos += 8;
      else if (wireType === 5) pos += 4;
      else if (wireType === 2) {
        const length = varint();
        const to = pos + length;
        if (to > end) return;
        if (visit(Math.floor(tag / 8), pos, to) === true) return;
        pos = to;
      } else return;
    }
  } catch {
    // Malformed: the decoder reports it.
  }
}

/** Where JSON sits in a message: JSON-text string fields, Struct fields, and sub-messages to walk into. */
export interface JsonFieldMap {
  json?: readonly number[];
  struct?: readonly number[];
  messages?: Readonly<Record<number, JsonFieldMap>>;
}

/**
 * Measures every JSON field `map` names in the message at `buf[start, end)` (sub-messages
 * included) together against `limits`; stops at the first limit passed.
 */
export function measureJsonFields(buf: Uint8Array, map: JsonFieldMap, limits: ArgumentLimits, start = 0, end = buf.length, into: ArgumentSize = { bytes: 0, nodes: 0, depth: 0 }): ArgumentSize {
  forEachWireField(buf, start, end, (field, from, to) => {
    if (map.json?.includes(field)) measureJsonText(buf, limits, from, to, into);
    else if (map.struct?.includes(field)) measureStructWire(buf, from, to, limits, into);
    else if (map.messages?.[field]) measureJsonFields(buf, map.messages[field]!, limits, from, to, into);
    return into.exceeded !== undefined;
  });
  if (!into.exceeded && into.bytes > limits.maxBytes) into.exceeded = 'bytes';
  return into;
}
