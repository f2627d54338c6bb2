/**
 * Encoding with one protobuf writer kept for the process instead of a new one per message. A
 * generated `encode(message)` starts a fresh `BinaryWriter` whose 128-byte buffer grows by doubling
 * (a `tool.called` event or a run request: two or three allocations and copies, then the final
 * copy); a writer that is kept has grown once and only the final copy is made. Encoding is
 * synchronous, so one writer serves every caller.
 */
import { BinaryWriter } from '@bufbuild/protobuf/wire';

let writer = new BinaryWriter();
/** A message larger than this leaves a new writer behind: one large call must not pin its buffer. */
const KEEP_BYTES = 64 * 1024;

/** `codec.encode(message).finish()`, through the kept writer (see the file's header). */
export function encodeReusing<T>(codec: { encode(message: T, writer?: BinaryWriter): BinaryWriter }, message: T): Uint8Array {
  try {
    const bytes = codec.encode(message, writer).finish();
    if (bytes.byteLength > KEEP_BYTES) writer = new BinaryWriter();
    return bytes;
  } catch (err) {
    writer.finish(); // a half-written message must not prefix the next one
    throw err;
  }
}
