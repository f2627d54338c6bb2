/** Reading call statistics: one tool, or a ranking sorted in the database. */
import { assertProviderName } from '@toolhub/contracts';

import type { DocCollection, Filter } from '../backend';
import type { ListToolStatsOptions, ToolStats, ToolStatsSort, ToolStatsSummary } from '../store';
import { assertToolId, invalid } from '../validation';
import { HEAVY_STATS_FIELDS, type StatsDoc, toSummary, toToolStats } from './fold';

/** Most entries of one ranking. */
export const MAX_STATS_LIMIT = 1000;

const SORTS: Record<ToolStatsSort, Record<string, 1 | -1>> = {
  calls: { calls: -1, _id: 1 },
  recency: { lastCallUnixMs: -1, _id: 1 },
  failure_rate: { failureRate: -1, calls: -1, _id: 1 },
  latency: { p95Ms: -1, _id: 1 },
};

/** Statistics read operations of the store. */
export class StatsQueries {
  constructor(
    private readonly stats: DocCollection<StatsDoc>,
    private readonly clock: () => number,
    private readonly retentionHours: number,
  ) {}

  async get(toolId: string): Promise<ToolStats | undefined> {
    assertToolId(toolId, 'toolId');
    const doc = await this.stats.get(toolId);
    return doc && doc.calls > 0 ? toToolStats(doc, this.clock(), this.retentionHours) : undefined;
  }

  async list(options: ListToolStatsOptions = {}): Promise<ToolStatsSummary[]> {
    if (options === null || typeof options !== 'object') invalid('options', 'is not an object', 'ListToolStatsOptions', '{"sortBy": "calls"}');
    const sortBy = options.sortBy ?? 'calls';
    if (!Object.hasOwn(SORTS, sortBy)) invalid('sortBy', `is ${JSON.stringify(sortBy)}`, Object.keys(SORTS).map((s) => JSON.stringify(s)).join(', '), '"calls"');
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_STATS_LIMIT) invalid('limit', `is ${JSON.stringify(limit)}`, `an integer from 1 to ${MAX_STATS_LIMIT}`, '50');
    const minCalls = options.minCalls ?? 0;
    if (!Number.isInteger(minCalls) || minCalls < 0) invalid('minCalls', `is ${JSON.stringify(minCalls)}`, 'an integer >= 0', '10');
    const filter: Filter = { calls: { $gte: Math.max(1, minCalls) } };
    if (options.provider !== undefined) {
      assertProviderName(options.provider, 'provider');
      filter['provider'] = options.provider;
    }
    const docs = await this.stats.find(filter, { sort: SORTS[sortBy], limit, exclude: HEAVY_STATS_FIELDS });
    const now = this.clock();
    return docs.map((d) => toSummary(d, now, this.retentionHours));
  }
}
