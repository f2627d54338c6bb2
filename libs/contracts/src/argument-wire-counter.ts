/**
 * Counts a request's arguments on the protobuf wire as its bytes arrive, chunk by chunk, without
 * buffering or decoding them: the same nodes, depth and bytes as {@link measureStructWire}, but
 * resumable, so the gRPC edge can refuse a request past a limit after its first few hundred KiB
 * instead of receiving, concatenating and then measuring the whole message (bench/attacks: 4 MB of
 * 180,000 unknown properties, refused after ~230 KB).
 */
import type { ArgumentLimits, ArgumentSize } from './argument-limits';

/** Where the arguments sit in a request (proto field numbers). */
export interface ArgumentsPath {
  /** The `google.protobuf.Struct` field (RunToolRequest.arguments = 3; BatchCall.arguments = 4). */
  argumentsField: number;
  /** A sub-message, repeated or not, holding `argumentsField` (RunToolsRequest.calls = 1; RunToolStreamRequest.run = 1, StartRunRequest.call = 1). */
  repeatedField?: number;
}

// Frame kinds: the request itself, one repeated call, and google.protobuf.{Struct, ListValue, Value, Struct.FieldsEntry}.
const REQUEST = 0;
const CALL = 1;
const STRUCT = 2;
const LIST = 3;
const VALUE = 4;
const ENTRY = 5;

// What the next bytes are.
const TAG = 0;
const LENGTH = 1;
const VARINT_VALUE = 2;

/**
 * One message's arguments, counted as its bytes come. Feed the message body (not the 5-byte gRPC
 * frame header) in order with {@link push}; it answers the size once a limit is passed. Malformed
 * input stops the counting (the decoder that runs later gives the precise error). Cost: one step
 * per tag and length byte; string and number contents are skipped without reading them.
 */
export class ArgumentWireCounter {
  readonly size: ArgumentSize = { bytes: 0, nodes: 0, depth: 0 };
  /** True once counting stopped: a limit passed, the message ended or it was malformed. */
  done = false;
  private pos = 0;
  private skipTo = 0;
  private state = TAG;
  private field = 0;
  private varValue = 0;
  private varShift = 0;
  // Explicit stack of frames (kind, end offset, depth): a hostile nesting cannot overflow the call stack.
  private readonly kinds: number[] = [REQUEST];
  private readonly ends: number[];
  private readonly depths: number[] = [0];

  constructor(
    private readonly limits: ArgumentLimits,
    private readonly path: ArgumentsPath,
    /** The message's length (from the gRPC frame header, or the buffer's). */
    messageLength: number,
  ) {
    this.ends = [messageLength];
  }

  /** Counts `buf[start, end)`, the next bytes of the message. @returns the size once a limit is passed. */
  push(buf: Uint8Array, start = 0, end = buf.length): ArgumentSize | undefined {
    let i = start;
    while (i < end && !this.done) {
      if (this.skipTo > this.pos) {
        const n = Math.min(end - i, this.skipTo - this.pos);
        i += n;
        this.pos += n;
        continue;
      }
      if (this.state === TAG && this.varShift === 0) {
        // A field boundary: leave the frames that ended here.
        while (this.kinds.length > 0 && this.pos >= this.ends[this.ends.length - 1]!) this.pop();
        if (this.kinds.length === 0) {
          this.done = true;
          break;
        }
        // Fast path: a whole tag and length (at most 2 x 10 bytes) in this chunk are read in place.
        if (end - i >= 20) {
          const before = i;
          let tag = 0;
          let shift = 0;
          let b: number;
          do {
            b = buf[i++]!;
            if (shift < 49) tag += (b & 0x7f) * 2 ** shift;
            shift += 7;
          } while (b & 0x80 && shift < 70);
          if (b & 0x80 || tag % 8 !== 2) {
            i = before; // not length-delimited (or malformed): the byte-wise path below
          } else {
            let length = 0;
            shift = 0;
            do {
              b = buf[i++]!;
              if (shift < 49) length += (b & 0x7f) * 2 ** shift;
              shift += 7;
            } while (b & 0x80 && shift < 70);
            if (b & 0x80) {
              this.done = true;
              break;
            }
            this.pos += i - before;
            this.field = Math.floor(tag / 8);
            this.state = LENGTH;
            this.step(length);
            continue;
          }
        }
      }
      const b = buf[i++]!;
      this.pos++;
      // Lengths and tags fit in 2^53; bits past that only matter for skipped int64 values.
      if (this.varShift < 49) this.varValue += (b & 0x7f) * 2 ** this.varShift;
      this.varShift += 7;
      if (b & 0x80) {
        if (this.varShift >= 70) this.done = true; // varint too long: malformed
        continue;
      }
      const v = this.varValue;
      this.varValue = 0;
      this.varShift = 0;
      this.step(v);
    }
    return this.size.exceeded ? this.size : undefined;
  }

  /** The size once the whole message was pushed (bytes checked against the limit). */
  finish(): ArgumentSize {
    if (!this.size.exceeded && this.size.bytes > this.limits.maxBytes) this.size.exceeded = 'bytes';
    return this.size;
  }

  private step(v: number): void {
    const top = this.kinds.length - 1;
    if (this.state === VARINT_VALUE) {
      this.state = TAG;
      return;
    }
    if (this.state === TAG) {
      const wireType = v % 8;
      this.field = Math.floor(v / 8);
      if (wireType === 2) this.state = LENGTH;
      else if (wireType === 0) this.state = VARINT_VALUE;
      else if (wireType === 1 || wireType === 5) {
        this.skipTo = this.pos + (wireType === 1 ? 8 : 4);
        if (this.skipTo > this.ends[top]!) this.done = true;
      } else this.done = true; // groups or invalid wire types: malformed here
      return;
    }
    // LENGTH of a length-delimited field.
    this.state = TAG;
    const childEnd = this.pos + v;
    if (childEnd > this.ends[top]!) {
      this.done = true; // runs past its message: malformed
      return;
    }
    const kind = this.kinds[top]!;
    const depth = this.depths[top]!;
    const field = this.field;
    let child = -1;
    let childDepth = depth;
    if (kind === REQUEST || kind === CALL) {
      if (kind === REQUEST && this.path.repeatedField !== undefined) {
        if (field === this.path.repeatedField) child = CALL;
      } else if (field === this.path.argumentsField) {
        child = STRUCT;
        childDepth = 1;
        if (this.size.depth < 1) this.size.depth = 1;
        this.size.bytes += v;
        if (this.size.bytes > this.limits.maxBytes) return this.exceed('bytes');
      }
    } else if (kind === STRUCT && field === 1) {
      this.size.nodes++;
      child = ENTRY;
    } else if (kind === LIST && field === 1) {
      this.size.nodes++;
      child = VALUE;
    } else if (kind === ENTRY && field === 2) child = VALUE;
    else if (kind === VALUE && (field === 5 || field === 6)) {
      child = field === 5 ? STRUCT : LIST;
      childDepth = depth + 1;
      if (childDepth > this.size.depth) this.size.depth = childDepth;
      if (childDepth > this.limits.maxDepth) return this.exceed('depth');
    }
    if (this.size.nodes > this.limits.maxNodes) return this.exceed('nodes');
    if (child < 0) this.skipTo = childEnd;
    else {
      this.kinds.push(child);
      this.ends.push(childEnd);
      this.depths.push(childDepth);
    }
  }

  private pop(): void {
    this.kinds.pop();
    this.ends.pop();
    this.depths.pop();
  }

  private exceed(kind: NonNullable<ArgumentSize['exceeded']>): void {
    this.size.exceeded = kind;
    this.done = true;
  }
}
