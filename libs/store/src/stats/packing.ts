/**
 * How statistics documents and call batches are stored: the hourly series, the idempotence guard
 * and a batch's records as compact JSON text instead of arrays of sub-documents (a FerretDB workaround,
 * neutral on MongoDB: docs/decisions/0001-ferretdb-is-the-test-stand-in.md). FerretDB 1.x on SQLite decodes every document of a
 * collection for each `_id` lookup and update, and the cost grows with the number of values in
 * them: a week of hourly buckets (168 × 5 values) made each update of a 500-tool collection many
 * times slower than the same data as text. MongoDB is indifferent (nothing queries inside these fields).
 * FerretDB 1.24 on PostgreSQL converts every value of a document between BSON and JSONB on each
 * write and read, so a batch's records as one string cost a fraction of them as sub-documents
 * (figures: bench/registry/README.md, "Figures the code cites").
 * Used by MongoRegistryStore only (NeDB keeps documents in memory and was slower packed).
 * Documents stored by earlier versions (arrays) are read as they are.
 * Shaped by FerretDB 1.24, the test stand-in for MongoDB: docs/decisions/0001-ferretdb-is-the-test-stand-in.md.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

import type { BaseDoc, DocCollection, Filter, FindOptions } from '../backend';
import type { CallRecord } from './events';
import type { GuardEntry, HourDoc, StatsDoc } from './fold';
import type { BatchDoc } from './recorder';

/** A statistics document as stored. */
export type StoredStatsDoc = Omit<StatsDoc, 'hourly' | 'guard'> & { hourly: string | HourDoc[]; guard: string | GuardEntry[] } & BaseDoc;

/** `[[h, c, s, f, l], ...]` and `[[b, at], ...]` as JSON text. */
export function packStats(doc: StatsDoc): StoredStatsDoc {
  return {
    ...doc,
    hourly: JSON.stringify(doc.hourly.map((b) => [b.h, b.c, b.s, b.f, b.l])),
    guard: JSON.stringify(doc.guard.map((g) => [g.b, g.at])),
  };
}

/** The document as the recorder and queries use it; fields a projection left out stay out. */
export function unpackStats(stored: StoredStatsDoc): StatsDoc {
  const doc = { ...stored } as unknown as StatsDoc & Record<string, unknown>;
  if (typeof stored.hourly === 'string') {
    doc.hourly = (JSON.parse(stored.hourly) as number[][]).map(([h, c, s, f, l]) => ({ h: h!, c: c!, s: s!, f: f!, l: l! }));
  }
  if (typeof stored.guard === 'string') {
    doc.guard = (JSON.parse(stored.guard) as Array<[string, number]>).map(([b, at]) => ({ b, at }));
  }
  return doc;
}

/** `raw` seen as a collection of unpacked statistics documents. */
export function packedStatsCollection(raw: DocCollection<StoredStatsDoc>): DocCollection<StatsDoc> {
  return mapped(raw, packStats, unpackStats);
}

/**
 * A call batch as stored: its records as `[[id, t, ok, c, l, ts, fb], ...]` JSON text, with an
 * eighth element 1 for an event without a timestamp (`u`), in `events`. A batch holding records of
 * a claim group keeps them in `grouped` instead ({@link GroupedRecords}, deflated): the version
 * before reads `events` only and fails on such a batch before it claims anything, so it never counts
 * grouped records by event id.
 */
export type StoredBatchDoc = Omit<BatchDoc, 'events'> & { events?: string | CallRecord[]; grouped?: StoredBytes } & BaseDoc;

/** Bytes as written (a Buffer) or as read back (BSON Binary: its bytes in `buffer`). */
type StoredBytes = Uint8Array | { buffer: Uint8Array };

/**
 * `grouped`, deflated JSON: tool ids and claim groups listed once (a group is shared by ~16
 * records), times from the earliest. A record is `[id, tool, flags, class, latency, ts - base,
 * group]`: tool and group are indexes (group -1: none), flags are ok 1, fallback 2, untimed 4.
 * Small matters: FerretDB converts every byte on insert and decodes every stored batch whole
 * whenever the recorder asks which are still stored, and again to delete them. Deflated (level 1),
 * a batch costs FerretDB about half the CPU per event for a little more in the registry (figures:
 * bench/registry/README.md, "Figures the code cites").
 */
interface GroupedRecords {
  base: number;
  tools: string[];
  groups: string[];
  r: Array<[string, number, number, string, number, number, number]>;
}

type PackedRecord = [string, string, number, string, number, number, number, number?];

/** The index of `value` in `list`, appending it the first time. */
function indexIn(index: Map<string, number>, list: string[], value: string): number {
  let i = index.get(value);
  if (i === undefined) {
    i = list.length;
    list.push(value);
    index.set(value, i);
  }
  return i;
}

function packGrouped(events: readonly CallRecord[]): Buffer {
  const packed: GroupedRecords = { base: events.reduce((min, r) => Math.min(min, r.ts), Number.POSITIVE_INFINITY), tools: [], groups: [], r: [] };
  const tools = new Map<string, number>();
  const groups = new Map<string, number>();
  for (const r of events) {
    const flags = (r.ok ? 1 : 0) | (r.fb ? 2 : 0) | (r.u ? 4 : 0);
    packed.r.push([r.id, indexIn(tools, packed.tools, r.t), flags, r.c, r.l, r.ts - packed.base, r.g === undefined ? -1 : indexIn(groups, packed.groups, r.g)]);
  }
  return deflateRawSync(JSON.stringify(packed), { level: 1 });
}

function unpackGrouped(stored: StoredBytes): CallRecord[] {
  const bytes = stored instanceof Uint8Array ? stored : stored.buffer;
  const packed = JSON.parse(inflateRawSync(bytes).toString('utf8')) as GroupedRecords;
  return packed.r.map(([id, t, flags, c, l, ts, g]) => {
    const record: CallRecord = { id, t: packed.tools[t]!, ok: (flags & 1) !== 0, c, l, ts: packed.base + ts, fb: (flags & 2) !== 0 };
    if (flags & 4) record.u = true;
    if (g >= 0) record.g = packed.groups[g]!;
    return record;
  });
}

/** The batch with its records as JSON text (ok and fb as 1/0). */
export function packBatch(doc: BatchDoc): StoredBatchDoc {
  const { events, ...rest } = doc;
  if (events.some((r) => r.g !== undefined)) return { ...rest, grouped: packGrouped(events) };
  return { ...rest, events: JSON.stringify(events.map((r) => (r.u ? [r.id, r.t, r.ok ? 1 : 0, r.c, r.l, r.ts, r.fb ? 1 : 0, 1] : [r.id, r.t, r.ok ? 1 : 0, r.c, r.l, r.ts, r.fb ? 1 : 0]))) };
}

/** The batch as the recorder uses it; a projection without `events` and `grouped` stays without. */
export function unpackBatch(stored: StoredBatchDoc): BatchDoc {
  if (stored.grouped !== undefined) {
    const { grouped, ...rest } = stored;
    return { ...rest, events: unpackGrouped(grouped) } as BatchDoc;
  }
  if (typeof stored.events !== 'string') return stored as BatchDoc;
  const events = (JSON.parse(stored.events) as PackedRecord[]).map(([id, t, ok, c, l, ts, fb, u]) => {
    const record: CallRecord = { id, t, ok: ok === 1, c, l, ts, fb: fb === 1 };
    if (u === 1) record.u = true;
    return record;
  });
  return { ...stored, events };
}

/** `raw` seen as a collection of unpacked call batches. */
export function packedBatchCollection(raw: DocCollection<StoredBatchDoc>): DocCollection<BatchDoc> {
  return mapped(raw, packBatch, unpackBatch);
}

function mapped<T extends BaseDoc, S extends BaseDoc>(raw: DocCollection<S>, pack: (doc: T) => S, unpack: (stored: S) => T): DocCollection<T> {
  return {
    get: async (id) => {
      const doc = await raw.get(id);
      return doc && unpack(doc);
    },
    find: async (filter: Filter, options?: FindOptions) => (await raw.find(filter, options)).map(unpack),
    insert: (doc) => raw.insert(pack(doc)),
    insertNew: (docs) => raw.insertNew(docs.map(pack)),
    replace: (filter, doc) => raw.replace(filter, pack(doc)),
    delete: (filter) => raw.delete(filter),
  };
}
