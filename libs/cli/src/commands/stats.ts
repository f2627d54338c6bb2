/** `toolhub stats [tool-id]`: per-tool call statistics from the registry (admin API). */
import { type GetRegistryStatusResponse, parseToolId, StatsSort, type ToolStats } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { formatAgo, formatMs, formatPercent } from '../format';

/** Sort orders of `stats`. */
export const STATS_SORTS = ['calls', 'recency', 'failure_rate', 'latency'] as const;
export type StatsSortName = (typeof STATS_SORTS)[number];

const SORT_OF: Record<StatsSortName, StatsSort> = {
  calls: StatsSort.STATS_SORT_CALLS,
  recency: StatsSort.STATS_SORT_RECENCY,
  failure_rate: StatsSort.STATS_SORT_FAILURE_RATE,
  latency: StatsSort.STATS_SORT_LATENCY,
};

/** Options of `stats`. */
export interface StatsOptions {
  sort?: StatsSortName;
  limit?: number;
  provider?: string;
}

/** Default number of rows. */
export const DEFAULT_STATS_LIMIT = 20;

function failures(s: ToolStats): string {
  const parts = Object.entries(s.failures)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([cls, n]) => `${cls}×${n}`);
  return parts.join(', ') || '-';
}

function showOne(ctx: CommandContext, s: ToolStats): void {
  const now = ctx.io.now();
  const out = ctx.out;
  out.line(
    s.toolId,
    `  calls        ${s.calls} (${s.successes} ok, ${s.calls - s.successes} failed)`,
    `  success      ${s.calls ? formatPercent(s.successRate) : '-'}`,
    `  latency      p50 ${formatMs(s.latencyP50Ms)} · p95 ${formatMs(s.latencyP95Ms)} · p99 ${formatMs(s.latencyP99Ms)}`,
    `  last call    ${formatAgo(s.lastCallUnixMs, now)}${s.lastCallUnixMs ? ` (${new Date(s.lastCallUnixMs).toISOString()})` : ''}`,
    `  failures     ${failures(s)}`,
  );
  const recent = s.hourly.filter((h) => h.calls > 0).slice(-24);
  if (recent.length) {
    out.line('', 'Calls per hour (last 7 days, hours with calls):');
    out.table(
      [{ header: 'HOUR (UTC)' }, { header: 'CALLS', align: 'right' }, { header: 'FAILURES', align: 'right' }],
      recent.map((h) => [new Date(h.hourUnixMs).toISOString().slice(0, 13).replace('T', ' ') + ':00', String(h.calls), String(h.failures)]),
    );
  }
}

/** One line on how current the statistics are. */
export function ingestionNote(s: GetRegistryStatusResponse): string {
  const lag = s.statsLagEvents > 0 ? `${s.statsLagEvents} calls (${formatMs(s.statsLagSeconds * 1000)}) not counted yet` : 'up to date';
  return `Statistics: ${lag}; store ${s.storeHealthy ? 'ok' : `FAILING: ${s.storeDetail}`}.`;
}

/** One tool's statistics (exit 3 when the registry has none for it), or the busiest tools. */
export async function statsCommand(ctx: CommandContext, toolId: string | undefined, options: StatsOptions): Promise<ExitCode> {
  const admin = ctx.session.admin();
  if (toolId !== undefined) {
    if (!parseToolId(toolId)) throw new CliUsageError(`stats takes a tool id <provider:name>; got ${JSON.stringify(toolId)}.`, 'toolhub stats local:math_calculate');
    const res = await admin.getToolStats({ toolId });
    if (!res.stats) throw new Error(`GetToolStats answered without stats for ${toolId}`);
    if (ctx.out.json) ctx.out.document({ stats: res.stats });
    else showOne(ctx, res.stats);
    return EXIT_CODES.ok;
  }
  const sort = options.sort ?? 'calls';
  const res = await admin.listToolStats({ sort: SORT_OF[sort], limit: options.limit ?? DEFAULT_STATS_LIMIT, provider: options.provider ?? '' });
  // How far behind the calls these numbers are; a registry without GetRegistryStatus just says nothing.
  const ingestion = await admin.getRegistryStatus().catch(() => undefined);
  if (ctx.out.json) {
    ctx.out.document({ sort, stats: res.stats, ...(ingestion ? { ingestion } : {}) });
    return EXIT_CODES.ok;
  }
  if (ingestion) ctx.out.note(ingestionNote(ingestion));
  if (res.stats.length === 0) {
    ctx.out.note(`No calls recorded yet${options.provider ? ` for provider ${options.provider}` : ''}: statistics appear after tools run (toolhub run ...).`);
    return EXIT_CODES.ok;
  }
  const now = ctx.io.now();
  ctx.out.table(
    [
      { header: 'TOOL' },
      { header: 'CALLS', align: 'right' },
      { header: 'OK', align: 'right' },
      { header: 'P50', align: 'right' },
      { header: 'P95', align: 'right' },
      { header: 'LAST CALL' },
      { header: 'FAILURES', flex: true },
    ],
    res.stats.map((s) => [s.toolId, String(s.calls), s.calls ? formatPercent(s.successRate) : '-', formatMs(s.latencyP50Ms), formatMs(s.latencyP95Ms), formatAgo(s.lastCallUnixMs, now), failures(s)]),
  );
  return EXIT_CODES.ok;
}
