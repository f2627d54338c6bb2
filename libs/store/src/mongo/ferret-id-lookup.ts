/**
 * Finding documents by a list of `_id`s on FerretDB 1.24 (PostgreSQL). FerretDB does not push
 * `{_id: {$in: ids}}` down to PostgreSQL: it decodes every document of the collection and compares
 * it with every id, while `{_id: id}` is pushed down (orders of magnitude faster; figures:
 * bench/registry/README.md, "Figures the code cites"). So there, for a find with a projection
 * (small answers), a few ids are looked up one by one and many are found by reading the projected
 * collection once (whatever the number of ids).
 * MongoDB uses its `_id` index for `$in` and is not routed here.
 * Shaped by FerretDB 1.24, the test stand-in for MongoDB: docs/decisions/0001-ferretdb-is-the-test-stand-in.md.
 */
import type { Collection, Document } from 'mongodb';

import type { BaseDoc, Filter, FindOptions } from '../backend';

/** Up to this many ids are looked up one by one (where one scan of the collection starts to cost less). */
export const ONE_BY_ONE_MAX = 64;
/** One-by-one lookups in flight at once. */
const PARALLEL = 8;

/** The ids of a filter that is exactly `{ _id: { $in: [...] } }` (strings); undefined otherwise. */
export function idListOf(filter: Filter): string[] | undefined {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== '_id') return undefined;
  const cond = filter['_id'];
  if (typeof cond !== 'object' || cond === null || Array.isArray(cond) || Object.keys(cond).length !== 1) return undefined;
  const ids = (cond as { $in?: unknown }).$in;
  return Array.isArray(ids) && ids.every((id): id is string => typeof id === 'string') ? ids : undefined;
}

/**
 * The documents of `c` whose `_id` is in `ids`, the way that is cheap on FerretDB; undefined when
 * neither way fits (no projection, or a sort or limit): then `$in` is used.
 */
export async function findByIdsOnFerret(
  c: Collection<BaseDoc>,
  ids: readonly string[],
  projection: Document | undefined,
  options: FindOptions,
): Promise<Document[] | undefined> {
  // Only for small projections (claims, batch ids): on collections of large documents (tools,
  // vectors) every pushed-down lookup still reads each row's whole JSON in PostgreSQL, so many
  // of them can cost more than one `$in`; those keep `$in`.
  if (!options.include || options.sort || options.limit !== undefined) return undefined;
  const unique = [...new Set(ids)];
  if (unique.length <= ONE_BY_ONE_MAX) {
    const found: Document[] = [];
    for (let i = 0; i < unique.length; i += PARALLEL) {
      const docs = await Promise.all(unique.slice(i, i + PARALLEL).map((id) => c.findOne({ _id: id }, { projection })));
      for (const d of docs) if (d) found.push(d);
    }
    return found;
  }
  const wanted = new Set(unique);
  const found: Document[] = [];
  for await (const d of c.find({}, { projection, batchSize: 10_000 })) if (wanted.has(d._id as string)) found.push(d);
  return found;
}
