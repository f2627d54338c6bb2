/**
 * How statistics documents are stored: the hourly series and the idempotence guard as compact JSON
 * text instead of arrays of sub-documents. FerretDB 1.x (SQLite) decodes every document of a
 * collection for each `_id` lookup and update, and the cost grows with the number of values in
 * them: a week of hourly buckets (168 × 5 values) made each update of a 500-tool collection ~14×
 * slower than the same data as text. MongoDB is indifferent (nothing queries inside these fields).
 * Used by MongoRegistryStore only (NeDB keeps documents in memory and was ~10% slower packed).
 * Documents stored by earlier versions (arrays) are read as they are.
 */
import type { BaseDoc, DocCollection, Filter, FindOptions } from '../backend';
import type { GuardEntry, HourDoc, StatsDoc } from './fold';

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
  return {
    get: async (id) => {
      const doc = await raw.get(id);
      return doc && unpackStats(doc);
    },
    find: async (filter: Filter, options?: FindOptions) => (await raw.find(filter, options)).map(unpackStats),
    insert: (doc) => raw.insert(packStats(doc)),
    insertNew: (docs) => raw.insertNew(docs.map(packStats)),
    replace: (filter, doc) => raw.replace(filter, packStats(doc)),
    delete: (filter) => raw.delete(filter),
  };
}
