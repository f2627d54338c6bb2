/**
 * Preload suggestions: ranks tools by recent use, recency and success rate, with the reasons and
 * numbers behind each. It never changes the preload list; a person does, with SetPreloadList.
 */
import type { PreloadSuggestion } from '@toolhub/contracts';
import type { ToolStatsSummary } from '@toolhub/store';

const DAY = 86_400_000;

export interface SuggestInput {
  stats: readonly (ToolStatsSummary & { recentCalls?: number })[];
  preloaded: readonly string[];
  now: number;
  limit: number;
}

/** Score in [0, 1]: use (log-scaled, 60%), recency (half-life 2 days, 25%), success rate (15%). */
export function preloadScore(s: { recentCalls: number; maxRecentCalls: number; lastCallUnixMs: number; successRate: number }, now: number): number {
  const use = s.maxRecentCalls > 0 ? Math.log1p(s.recentCalls) / Math.log1p(s.maxRecentCalls) : 0;
  const ageDays = s.lastCallUnixMs > 0 ? (now - s.lastCallUnixMs) / DAY : Infinity;
  const recency = Number.isFinite(ageDays) ? 0.5 ** (ageDays / 2) : 0;
  return 0.6 * use + 0.25 * recency + 0.15 * s.successRate;
}

export function suggestPreload(input: SuggestInput): { suggestions: PreloadSuggestion[]; removals: PreloadSuggestion[] } {
  const recent = (s: ToolStatsSummary & { recentCalls?: number }) => s.recentCalls ?? s.calls;
  const maxRecentCalls = Math.max(0, ...input.stats.map(recent));
  const scored = input.stats.map((s) => {
    const score = preloadScore({ recentCalls: recent(s), maxRecentCalls, lastCallUnixMs: s.lastCallUnixMs, successRate: s.successRate }, input.now);
    const reasons = [
      `${recent(s)} calls in the last 7 days (${maxRecentCalls ? Math.round((100 * recent(s)) / maxRecentCalls) : 0}% of the busiest tool)`,
      s.lastCallUnixMs ? `last called ${formatAge(input.now - s.lastCallUnixMs)} ago` : 'never called',
      `${Math.round(s.successRate * 1000) / 10}% of calls succeeded`,
    ];
    return {
      toolId: s.toolId,
      score: Math.round(score * 1000) / 1000,
      reasons,
      calls7d: recent(s),
      successRate: s.successRate,
      lastCallUnixMs: s.lastCallUnixMs,
      alreadyPreloaded: input.preloaded.includes(s.toolId),
    } satisfies PreloadSuggestion;
  });
  scored.sort((a, b) => b.score - a.score || a.toolId.localeCompare(b.toolId));
  const suggestions = scored.filter((s) => !s.alreadyPreloaded && s.calls7d > 0).slice(0, input.limit);
  const cutoff = suggestions.at(-1)?.score ?? 0;
  // A preloaded tool scoring below every suggestion is a candidate to drop; unused ones certainly are.
  const byId = new Map(scored.map((s) => [s.toolId, s]));
  const removals = input.preloaded
    .map((id) => byId.get(id) ?? { toolId: id, score: 0, reasons: ['no calls recorded'], calls7d: 0, successRate: 0, lastCallUnixMs: 0, alreadyPreloaded: true })
    .filter((s) => s.calls7d === 0 || s.score < cutoff);
  return { suggestions, removals };
}

function formatAge(ms: number): string {
  if (ms < 3_600_000) return `${Math.max(1, Math.round(ms / 60_000))} min`;
  if (ms < DAY) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / DAY)} days`;
}
