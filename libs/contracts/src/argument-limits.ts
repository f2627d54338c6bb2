/**
 * Size limits on a call's arguments, checked before any validation, repair or routing, so the work
 * a request can cause is fixed by its size first: bytes, nodes (every property and array item,
 * at any depth) and nesting depth. Two measurements share one error: on decoded JSON values
 * ({@link measureArguments}, every door) and on the protobuf bytes of a `google.protobuf.Struct`
 * before it is decoded ({@link measureStructWire}, the gRPC edge: decoding 180,000 properties
 * costs the serving thread most of a second on its own).
 */
import { ArgumentWireCounter, type ArgumentsPath } from './argument-wire-counter';
import { ToolHubError } from './errors';

/** Limits on one call's arguments (a batch's calls count together). */
export interface ArgumentLimits {
  /** Largest arguments, as JSON text in UTF-8 bytes (protobuf bytes at the gRPC edge). */
  maxBytes: number;
  /** Most properties and array items in all, at any depth. */
  maxNodes: number;
  /** Deepest nesting of objects/arrays; the arguments object itself is level 1. */
  maxDepth: number;
}

/** Defaults of {@link ArgumentLimits}; the env names are the dispatcher's. */
export const DEFAULT_ARGUMENT_LIMITS: Readonly<ArgumentLimits> = Object.freeze({ maxBytes: 4 * 1024 * 1024, maxNodes: 10_000, maxDepth: 32 });

/** What a measurement found: sizes so far, and the first limit passed (if any). */
export interface ArgumentSize {
  bytes: number;
  nodes: number;
  depth: number;
  /** The first limit exceeded; measuring stops there for nodes and depth. */
  exceeded?: 'bytes' | 'nodes' | 'depth';
}

const ENV: Record<NonNullable<ArgumentSize['exceeded']>, string> = {
  bytes: 'TOOLHUB_MAX_ARGUMENT_BYTES',
  nodes: 'TOOLHUB_MAX_ARGUMENT_NODES',
  depth: 'TOOLHUB_MAX_ARGUMENT_DEPTH',
};

/**
 * The INVALID_ARGUMENT for arguments past a limit: the limit, the size found and how to shrink the
 * call, so an LLM can fix it. `what` names the call ("The arguments", "The batch's arguments").
 */
export function argumentLimitError(size: ArgumentSize, limits: ArgumentLimits, what = 'The arguments'): ToolHubError {
  const kind = size.exceeded ?? 'bytes';
  const env = ENV[kind];
  let message: string;
  let violation: string;
  let expected: string;
  if (kind === 'bytes') {
    message = `${what} take ${size.bytes} bytes; the limit is ${limits.maxBytes} bytes (${env}). Send less data per call, e.g. a file path or URL instead of the content, or split the work into several calls.`;
    violation = `arguments take ${size.bytes} bytes`;
    expected = `at most ${limits.maxBytes} bytes`;
  } else if (kind === 'nodes') {
    message =
      `${what} hold more than ${limits.maxNodes} properties and array items in all (counted ${size.nodes} before stopping); the limit is ${limits.maxNodes} (${env}). ` +
      'Send fewer items per call (split the list over several calls) and only the properties the tool\'s schema declares.';
    violation = `more than ${limits.maxNodes} properties and array items`;
    expected = `at most ${limits.maxNodes} properties and array items in all`;
  } else {
    message = `${what} nest deeper than the limit of ${limits.maxDepth} levels (${env}); flatten the input.`;
    violation = `nesting depth exceeds ${limits.maxDepth}`;
    expected = `at most ${limits.maxDepth} levels of objects/arrays`;
  }
  return ToolHubError.invalidArgument(message, [{ field: '/', message: violation, expected }]);
}

/**
 * Measures decoded arguments against `limits`, walking iteratively (no recursion, no copies, no
 * path strings) and stopping at the first node or depth limit, so the cost is at most `maxNodes`
 * steps. Bytes are the JSON text's UTF-8 length (numbers as JavaScript prints them).
 */
export function measureArguments(args: unknown, limits: ArgumentLimits): ArgumentSize {
  const size: ArgumentSize = { bytes: 0, nodes: 0, depth: 0 };
  const values: unknown[] = [args];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (value === null || value === undefined) size.bytes += 4;
    else if (typeof value === 'string') size.bytes += Buffer.byteLength(value) + 2;
    else if (typeof value === 'number') size.bytes += String(value).length;
    else if (typeof value === 'boolean') size.bytes += value ? 4 : 5;
    else if (typeof value === 'object') {
      if (depth > size.depth) size.depth = depth;
      if (depth > limits.maxDepth) {
        size.exceeded = 'depth';
        return size;
      }
      size.bytes += 2;
      if (Array.isArray(value)) {
        size.nodes += value.length;
        size.bytes += Math.max(0, value.length - 1); // commas
        if (size.nodes > limits.maxNodes) break;
        for (let i = 0; i < value.length; i++) {
          values.push(value[i]);
          depths.push(depth + 1);
        }
      } else {
        size.bytes -= 1; // one comma fewer than keys; an empty object gets it back below
        let keys = 0;
        for (const key in value) {
          if (!Object.hasOwn(value, key)) continue;
          if (++size.nodes > limits.maxNodes) break;
          keys++;
          size.bytes += Buffer.byteLength(key) + 4; // quotes, colon, comma
          values.push((value as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
        if (keys === 0) size.bytes += 1;
        if (size.nodes > limits.maxNodes) break;
      }
    }
  }
  if (size.nodes > limits.maxNodes) size.exceeded = 'nodes';
  else if (size.bytes > limits.maxBytes) size.exceeded = 'bytes';
  return size;
}

/**
 * @throws ToolHubError invalid_argument when `args` pass a limit (see {@link argumentLimitError}).
 * @returns the size measured (bytes decide whether validation moves off the serving thread).
 */
export function checkArguments(args: unknown, limits: ArgumentLimits, what?: string): ArgumentSize {
  const size = measureArguments(args, limits);
  if (size.exceeded) throw argumentLimitError(size, limits, what);
  return size;
}

// --- protobuf wire level ------------------------------------------------------------------------

/** A protobuf reader just good enough to walk Struct/ListValue/Value without decoding them. */
class WireCursor {
  constructor(
    readonly buf: Uint8Array,
    public pos: number,
  ) {}

  varint(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new RangeError('truncated varint');
      const b = this.buf[this.pos++]!;
      // Lengths and tags fit in 2^53; bits past that only matter for skipped int64 values.
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return result;
    }
    throw new RangeError('varint too long');
  }

  /** Skips a field's value of `wireType`; returns the end of a length-delimited one (else -1). */
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 5) this.pos += 4;
    else if (wireType === 2) this.pos += this.varint();
    else throw new RangeError(`wire type ${wireType} not expected here`);
    if (this.pos > this.buf.length) throw new RangeError('truncated field');
  }
}

const STRUCT = 0;
const LIST = 1;
const VALUE = 2;
const ENTRY = 3;

/**
 * Measures a protobuf-encoded `google.protobuf.Struct` at `buf[start, end)` without decoding it:
 * nodes are map entries and list items, depth counts Structs and ListValues, bytes are the encoded
 * length. Stops at the first node or depth limit. Malformed input is left to the real decoder
 * (measuring stops and reports what it saw).
 * `into` accumulates over several Structs (a batch's calls).
 */
export function measureStructWire(buf: Uint8Array, start: number, end: number, limits: ArgumentLimits, into: ArgumentSize = { bytes: 0, nodes: 0, depth: 0 }): ArgumentSize {
  into.bytes += end - start;
  const cursor = new WireCursor(buf, start);
  // Explicit stack of (kind, end, depth): a hostile nesting cannot overflow the call stack.
  const kinds: number[] = [STRUCT];
  const ends: number[] = [end];
  const depths: number[] = [1];
  if (into.depth < 1) into.depth = 1;
  try {
    while (kinds.length > 0) {
      const top = kinds.length - 1;
      if (cursor.pos >= ends[top]!) {
        kinds.pop();
        ends.pop();
        depths.pop();
        continue;
      }
      const kind = kinds[top]!;
      const depth = depths[top]!;
      const tag = cursor.varint();
      const field = Math.floor(tag / 8);
      const wireType = tag & 7;
      if (wireType !== 2) {
        cursor.skip(wireType);
        continue;
      }
      const length = cursor.varint();
      const childEnd = cursor.pos + length;
      if (childEnd > ends[top]!) throw new RangeError('field runs past its message');
      let child = -1;
      let childDepth = depth;
      if (kind === STRUCT && field === 1) {
        into.nodes++;
        child = ENTRY;
      } else if (kind === LIST && field === 1) {
        into.nodes++;
        child = VALUE;
      } else if (kind === ENTRY && field === 2) child = VALUE;
      else if (kind === VALUE && (field === 5 || field === 6)) {
        child = field === 5 ? STRUCT : LIST;
        childDepth = depth + 1;
        if (childDepth > into.depth) into.depth = childDepth;
        if (childDepth > limits.maxDepth) {
          into.exceeded = 'depth';
          return into;
        }
      }
      if (into.nodes > limits.maxNodes) {
        into.exceeded = 'nodes';
        return into;
      }
      if (child < 0) cursor.pos = childEnd;
      else {
        kinds.push(child);
        ends.push(childEnd);
        depths.push(childDepth);
      }
    }
  } catch {
    // Malformed: the decoder that runs next gives the precise error.
    return into;
  }
  if (into.bytes > limits.maxBytes) into.exceeded = 'bytes';
  return into;
}

/**
 * Measures the `google.protobuf.Struct` fields numbered `argumentsField` of the message at
 * `buf[start, end)` (e.g. RunToolRequest.arguments = 3), and of each sub-message numbered
 * `repeatedField` when given (RunToolsRequest.calls = 1, whose BatchCall.arguments = 4).
 * Returns the total; stops at the first limit. (The whole message at once; the gRPC edge counts
 * the same as the bytes arrive with {@link ArgumentWireCounter}.)
 */
export function measureRequestArguments(buf: Uint8Array, limits: ArgumentLimits, path: ArgumentsPath, start = 0, end = buf.length): ArgumentSize {
  const counter = new ArgumentWireCounter(limits, path, end - start);
  counter.push(buf, start, end);
  return counter.finish();
}

// --- JSON text level ----------------------------------------------------------------------------

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Counts the properties and array items of the JSON text in `buf` without parsing it (one pass,
 * no allocation per value), stopping past `maxNodes`: for doors that take JSON (the MCP door), so
 * JSON.parse never builds an object the limits would refuse. Invalid JSON is left to the parser.
 */
export function countJsonNodes(buf: Uint8Array, maxNodes: number): { nodes: number; exceeded: boolean } {
  let nodes = 0;
  // Container stack: 1 = array, 2 = object; `first` = an array just opened, its first item not seen.
  const stack: number[] = [];
  let first = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (first && c !== 0x5d) {
      nodes++;
      first = false;
    }
    if (c === QUOTE) {
      for (i++; i < buf.length && buf[i] !== QUOTE; i++) if (buf[i] === BACKSLASH) i++;
    } else if (c === 0x5b) {
      stack.push(1);
      first = true;
    } else if (c === 0x7b) stack.push(2);
    else if (c === 0x5d || c === 0x7d) {
      stack.pop();
      first = false;
    } else if (c === 0x3a) nodes++; // a property's colon
    else if (c === 0x2c && stack[stack.length - 1] === 1) nodes++; // the next array item
    if (nodes > maxNodes) return { nodes, exceeded: true };
  }
  return { nodes, exceeded: false };
}
