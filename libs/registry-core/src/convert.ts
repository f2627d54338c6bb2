/** Store records ↔ wire messages of the registry API. */
import { type ListSearchLearningResponse, parseToolId, type RegisteredTool, type ToolInfo, ToolOrigin, type ToolStats as WireToolStats } from '@toolhub/contracts';
import type { LearningReport } from '@toolhub/search';
import type { StoredTool, ToolStats, ToolStatsSummary } from '@toolhub/store';

/** The plain ToolInfo of a stored tool (overlay importance already applied by the store). */
export function toToolInfo(t: StoredTool): ToolInfo {
  return {
    id: t.id,
    provider: t.provider,
    name: t.name,
    path: t.path,
    description: t.description,
    inputSchema: t.inputSchema,
    outputDescription: t.outputDescription,
    examples: t.examples,
    importance: t.importance,
    annotations: t.annotations,
    version: t.version,
    tags: t.tags,
    defaultTimeoutMs: t.defaultTimeoutMs,
    ...(t.sourceName !== undefined ? { sourceName: t.sourceName } : {}),
    ...(t.outputSchemaJson !== undefined ? { outputSchemaJson: t.outputSchemaJson } : {}),
  };
}

export function toRegisteredTool(t: StoredTool): RegisteredTool {
  return {
    tool: toToolInfo(t),
    overlay: { importance: t.importance, enabled: t.enabled, fallbacks: [...t.fallbacks] },
    origin: t.source === 'api' ? ToolOrigin.TOOL_ORIGIN_API : ToolOrigin.TOOL_ORIGIN_ADAPTER,
    updatedUnixMs: t.updatedUnixMs,
  };
}

export function toWireStats(s: ToolStatsSummary | ToolStats): WireToolStats {
  return {
    toolId: s.toolId,
    calls: s.calls,
    successes: s.successes,
    failures: { ...s.failures },
    successRate: s.successRate,
    lastCallUnixMs: s.lastCallUnixMs,
    latencyP50Ms: s.p50Ms,
    latencyP95Ms: s.p95Ms,
    latencyP99Ms: s.p99Ms,
    hourly: 'hourly' in s ? s.hourly.map((h) => ({ hourUnixMs: h.hourStartUnixMs, calls: h.calls, failures: h.failures })) : [],
  };
}

/** What learning from use holds, as ListSearchLearning answers it (zeros for the bounds when learning is off). */
export function toWireLearning(r: LearningReport): ListSearchLearningResponse {
  return {
    enabled: r.enabled,
    entries: r.entries.map((e) => ({ query: e.query, toolId: e.toolId, provider: e.provider, name: parseToolId(e.toolId)?.name ?? e.toolId, atUnixMs: e.atUnixMs, weight: e.weight })),
    total: r.total,
    maxPerProvider: r.settings?.maxPerProvider ?? 0,
    halfLifeMs: r.settings?.halfLifeMs ?? 0,
    maxBoost: r.settings?.maxBoost ?? 0,
    similarity: r.settings?.similarity ?? 0,
    searchTtlMs: r.settings?.searchTtlMs ?? 0,
  };
}
