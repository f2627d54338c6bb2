/**
 * Learning from use, kept (the search's UsageMemory in @toolhub/search holds it in memory): one
 * document per observation — a query, its vector, the tool that ran after it — written by one
 * insert, so a restarted registry (and every replica at start) learns them back. Bounded by pruning:
 * a provider's oldest beyond a count, and everything older than a time.
 *
 * FerretDB 1.24 scans the whole collection for every read and delete and refuses to delete more
 * than 65,535 documents in one command (see the README): the registry prunes a provider every few
 * hundred inserts (a scan of ids and times, then a delete of what is over), and deletes go by `_id`
 * in chunks, so no command ever touches more than {@link DELETE_CHUNK} documents.
 */
import { assertProviderName, parseToolId } from '@toolhub/contracts';

import type { BaseDoc, DocCollection, Filter } from './backend';
import type { PruneLearnedUses, StoredLearnedUse } from './store';
import { assertText, assertToolId, invalid } from './validation';
import { vectorFromBase64, vectorToBase64 } from './vectors';

/** One stored observation (vector as base64 of its float32 bytes, as tool vectors are stored). */
export interface LearnedUseDoc extends BaseDoc {
  toolId: string;
  provider: string;
  query: string;
  atUnixMs: number;
  dims?: number;
  vector?: string;
}

/** Most documents one prune deletes per command (FerretDB's limit is 65,535). */
export const DELETE_CHUNK = 10_000;
const MAX_ID = 256;
/** The search's longest query (SearchIndexOptions.maxQueryLength). */
const MAX_QUERY = 8000;

function assertTime(value: unknown, field: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalid(field, `is ${JSON.stringify(value)}`, 'epoch milliseconds (a non-negative integer)', '1764167000000');
}

function checkUse(use: StoredLearnedUse): void {
  if (use === null || typeof use !== 'object') invalid('use', 'is not an object', 'a StoredLearnedUse', '{"id": "e1#0", ...}');
  assertText(use.id, 'use.id', MAX_ID, true);
  assertToolId(use.toolId, 'use.toolId');
  assertProviderName(use.provider, 'use.provider');
  if (parseToolId(use.toolId)?.provider !== use.provider) invalid('use.provider', `is ${JSON.stringify(use.provider)} but the tool is ${use.toolId}`, 'the provider of the tool id', JSON.stringify(parseToolId(use.toolId)?.provider));
  assertText(use.query, 'use.query', MAX_QUERY, true);
  assertTime(use.atUnixMs, 'use.atUnixMs');
  if (use.vector !== undefined && !(use.vector instanceof Float32Array)) invalid('use.vector', 'is not a Float32Array', 'a Float32Array or nothing', 'Float32Array.of(0.1, 0.2)');
}

/** The `learned_uses` collection. */
export class LearnedUses {
  constructor(private readonly docs: DocCollection<LearnedUseDoc>) {}

  async save(use: StoredLearnedUse): Promise<boolean> {
    checkUse(use);
    const doc: LearnedUseDoc = { _id: use.id, toolId: use.toolId, provider: use.provider, query: use.query, atUnixMs: use.atUnixMs };
    if (use.vector) {
      doc.dims = use.vector.length;
      doc.vector = vectorToBase64(use.vector);
    }
    // Insert-if-absent: the same observation saved twice (a redelivered run) is kept once.
    return this.docs.insert(doc);
  }

  async list(sinceUnixMs: number): Promise<StoredLearnedUse[]> {
    assertTime(sinceUnixMs, 'sinceUnixMs');
    const docs = await this.docs.find({ atUnixMs: { $gte: sinceUnixMs } }, { sort: { atUnixMs: 1, _id: 1 } });
    return docs.map((d) => {
      const use: { -readonly [K in keyof StoredLearnedUse]: StoredLearnedUse[K] } = { id: d._id, toolId: d.toolId, provider: d.provider, query: d.query, atUnixMs: d.atUnixMs };
      // A torn or foreign vector is left out: the pair still counts by its words.
      const v = d.vector !== undefined && d.dims !== undefined ? vectorFromBase64(d.vector, d.dims) : undefined;
      if (v) use.vector = v;
      return use;
    });
  }

  async prune(options: PruneLearnedUses): Promise<number> {
    assertTime(options.beforeUnixMs, 'beforeUnixMs');
    const scope: Filter = {};
    let cutoff = options.beforeUnixMs;
    if (options.provider !== undefined) {
      assertProviderName(options.provider, 'provider');
      scope['provider'] = options.provider;
    }
    if (options.keepNewest !== undefined) {
      if (options.provider === undefined) invalid('keepNewest', 'is set without a provider', 'a provider to keep the newest uses of', '{ provider: "mcp", keepNewest: 2000 }');
      if (!Number.isSafeInteger(options.keepNewest) || options.keepNewest < 0) invalid('keepNewest', `is ${JSON.stringify(options.keepNewest)}`, 'a non-negative integer', '2000');
      // Times only (no vectors): the newest keepNewest + 1 tell where the kept ones end.
      const newest = await this.docs.find(scope, { sort: { atUnixMs: -1 }, limit: options.keepNewest + 1, include: ['atUnixMs'] });
      const firstDropped = newest[options.keepNewest];
      if (firstDropped) cutoff = Math.max(cutoff, firstDropped.atUnixMs + 1);
    }
    let deleted = 0;
    for (;;) {
      const ids = (await this.docs.find({ ...scope, atUnixMs: { $lt: cutoff } }, { limit: DELETE_CHUNK, include: [] })).map((d) => d._id);
      if (ids.length === 0) break;
      deleted += await this.docs.delete({ _id: { $in: ids } });
      if (ids.length < DELETE_CHUNK) break;
    }
    return deleted;
  }
}
