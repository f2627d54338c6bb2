/**
 * The outbox's record framing: `magic u32 | length u32 | crc32 u32 | payload`, little-endian.
 *
 * Why each part: the length finds the next record; the CRC tells a record that was written whole
 * from one that a full disk or a crash cut short or that the disk damaged; the magic lets a reader
 * find the next good record after a damaged one instead of reading everything after it as garbage
 * (a short `write(2)` on a full disk once left a partial record followed by whole ones, and the
 * old length-only framing misread every record after it).
 *
 * Segments written before this framing (length-prefixed only) are still read: they never start with
 * the magic, whose value as a length would be ~1.4 GB.
 */
import { crc32 } from 'node:zlib';

/** "THV2" read as a little-endian u32. */
export const FRAME_MAGIC = 0x32564854;
export const FRAME_HEADER_BYTES = 12;
/** A record longer than this is damage, not data: an event is a few hundred bytes. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** One record framed for appending. */
export function frameRecord(record: Uint8Array): Buffer {
  if (record.length > MAX_RECORD_BYTES) throw new RangeError(`outbox record of ${record.length} bytes exceeds ${MAX_RECORD_BYTES}`);
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + record.length);
  frame.writeUInt32LE(FRAME_MAGIC, 0);
  frame.writeUInt32LE(record.length, 4);
  frame.writeUInt32LE(crc32(record), 8);
  frame.set(record, FRAME_HEADER_BYTES);
  return frame;
}

/** Several records framed one after another in one buffer, for one append. */
export function frameRecords(records: readonly Uint8Array[]): Buffer {
  if (records.length === 1) return frameRecord(records[0]!);
  let size = 0;
  for (const r of records) {
    if (r.length > MAX_RECORD_BYTES) throw new RangeError(`outbox record of ${r.length} bytes exceeds ${MAX_RECORD_BYTES}`);
    size += FRAME_HEADER_BYTES + r.length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const r of records) {
    out.writeUInt32LE(FRAME_MAGIC, at);
    out.writeUInt32LE(r.length, at + 4);
    out.writeUInt32LE(crc32(r), at + 8);
    out.set(r, at + FRAME_HEADER_BYTES);
    at += FRAME_HEADER_BYTES + r.length;
  }
  return out;
}

/** What a segment held: its whole records and what was wrong with the rest. */
export interface SegmentContents {
  records: Uint8Array[];
  /** Bytes at the end that do not make a whole record (a write cut short by kill -9 or a full disk). */
  tornTailBytes: number;
  /** Bytes between whole records that are not a valid record (damage); the records around them are kept. */
  corruptBytes: number;
  /** Written by a dispatcher before checksummed framing. */
  legacy: boolean;
}

/** Reads a segment's records, skipping damage and a torn tail; never throws on bad data. */
export function readSegment(data: Buffer): SegmentContents {
  if (data.length >= 4 && data.readUInt32LE(0) !== FRAME_MAGIC) return readLegacy(data);
  const out: SegmentContents = { records: [], tornTailBytes: 0, corruptBytes: 0, legacy: false };
  let at = 0;
  while (at < data.length) {
    const record = recordAt(data, at);
    if (record) {
      out.records.push(record);
      at += FRAME_HEADER_BYTES + record.length;
      continue;
    }
    const next = nextValidFrame(data, at + 1);
    if (next < 0) {
      out.tornTailBytes += data.length - at;
      break;
    }
    out.corruptBytes += next - at;
    at = next;
  }
  return out;
}

/** The whole, checksum-valid record starting at `at`, if there is one. */
function recordAt(data: Buffer, at: number): Uint8Array | undefined {
  if (at + FRAME_HEADER_BYTES > data.length || data.readUInt32LE(at) !== FRAME_MAGIC) return undefined;
  const length = data.readUInt32LE(at + 4);
  const end = at + FRAME_HEADER_BYTES + length;
  if (length > MAX_RECORD_BYTES || end > data.length) return undefined;
  const payload = data.subarray(at + FRAME_HEADER_BYTES, end);
  if (crc32(payload) !== data.readUInt32LE(at + 8)) return undefined;
  return new Uint8Array(payload);
}

/** Offset of the next valid record at or after `from`, or -1. */
function nextValidFrame(data: Buffer, from: number): number {
  const magic = Buffer.allocUnsafe(4);
  magic.writeUInt32LE(FRAME_MAGIC, 0);
  for (let at = data.indexOf(magic, from); at >= 0; at = data.indexOf(magic, at + 1)) {
    if (recordAt(data, at)) return at;
  }
  return -1;
}

/** Length-prefixed records of the first outbox format; a torn last record is counted, not read. */
function readLegacy(data: Buffer): SegmentContents {
  const out: SegmentContents = { records: [], tornTailBytes: 0, corruptBytes: 0, legacy: true };
  let at = 0;
  while (at + 4 <= data.length) {
    const len = data.readUInt32LE(at);
    if (at + 4 + len > data.length) break;
    out.records.push(new Uint8Array(data.subarray(at + 4, at + 4 + len)));
    at += 4 + len;
  }
  out.tornTailBytes = data.length - at;
  return out;
}
