/**
 * The dispatcher's metrics: RunTool count and latency by provider, tool, status and code; retries,
 * fallbacks, in-flight runs, cache hits and misses, live replicas per provider, the event outbox.
 *
 * RunTool is recorded from the dispatcher's own `tool.called` events (one Map lookup and one
 * histogram observe per call); everything else is read at scrape time, costing the hot path nothing.
 */
import { ErrorCode, type ToolCalled } from '@toolhub/contracts';
import type { Dispatcher } from '@toolhub/dispatcher-core';
import type { EdgeCounters } from '@toolhub/grpc-edge';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

import { registerAsyncRunMetrics } from './async-run-metrics';
import { boundHistogram } from './bound-histogram';
import { registerEdgeMetrics } from './edge-metrics';

/** Latency buckets in seconds: from a cached local tool (sub-ms) to the longest run timeout. */
export const RUN_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/**
 * Distinct (provider, tool, status, code) series kept; later ones are counted under tool="_other".
 * Callers choose tool names, so unknown names must not grow the scrape without bound.
 */
export const MAX_RUN_SERIES = 5000;

const codeNames = new Map<number, string>();
function codeName(code: ErrorCode): string {
  let name = codeNames.get(code);
  if (name === undefined) {
    const raw = (ErrorCode as unknown as Record<number, string | undefined>)[code] ?? String(code);
    name = raw.replace(/^ERROR_CODE_/, '').toLowerCase();
    codeNames.set(code, name);
  }
  return name;
}

/**
 * Registers the dispatcher's metrics on `registry` and starts recording RunTool calls.
 * `otherEdges`: connection-guard counters of other gRPC ports of the same process (the one-process
 * app's registry admin API), added into the toolhub_grpc_* series.
 */
export function registerDispatcherMetrics(registry: Registry, dispatcher: Dispatcher, otherEdges: readonly EdgeCounters[] = []): void {
  const registers = [registry];
  const runs = new Histogram({
    name: 'toolhub_runtool_duration_seconds',
    help: 'RunTool calls by provider, tool, status (ok, tool_error or the error code) and code; _count is the number of calls',
    labelNames: ['provider', 'tool', 'status', 'code'] as const,
    buckets: RUN_BUCKETS,
    registers,
  });
  const retries = new Counter({ name: 'toolhub_runtool_retries_total', help: 'Extra attempts RunTool made after a retryable failure', labelNames: ['provider', 'tool'] as const, registers });
  const fallbacks = new Counter({
    name: 'toolhub_runtool_fallbacks_total',
    help: 'RunTool calls served by a fallback tool',
    labelNames: ['provider', 'tool', 'fallback'] as const,
    registers,
  });
  // Bound series by key, resolved once per series (it also bounds the series: see MAX_RUN_SERIES):
  // an observe then skips prom-client's per-call label work (bound-histogram.ts).
  // Keyed provider → tool → status → error code, not by one joined string: joining made a new
  // string to hash on every RunTool (a hot line of the dispatcher's profile, 2026-11-29).
  type Entry = { tool: string; observe: (v: number) => void };
  const series = new Map<string, Map<string, Map<string, Map<number, Entry>>>>();
  let seriesCount = 0;
  dispatcher.callEvents.observe((event: ToolCalled) => {
    let entry = series.get(event.provider)?.get(event.name)?.get(event.status)?.get(event.errorCode);
    if (!entry) {
      const code = codeName(event.errorCode);
      const tool = seriesCount < MAX_RUN_SERIES ? event.name : '_other';
      entry = { tool, observe: boundHistogram(runs, { provider: event.provider, tool, status: event.status, code }) };
      if (tool !== '_other') {
        // Maps made only for a series kept, so the cap bounds them too.
        let byTool = series.get(event.provider);
        if (!byTool) series.set(event.provider, (byTool = new Map()));
        let byStatus = byTool.get(event.name);
        if (!byStatus) byTool.set(event.name, (byStatus = new Map()));
        let byCode = byStatus.get(event.status);
        if (!byCode) byStatus.set(event.status, (byCode = new Map()));
        byCode.set(event.errorCode, entry);
        seriesCount++;
      }
    }
    entry.observe(event.latencyMs / 1000);
    if (event.attempts > 1) retries.inc({ provider: event.provider, tool: entry.tool }, event.attempts - 1);
    if (event.fallbackUsed) fallbacks.inc({ provider: event.provider, tool: entry.tool, fallback: event.fallbackUsed });
  });

  new Gauge({
    name: 'toolhub_runtool_inflight',
    help: 'RunTool calls sent to adapters and not answered yet',
    registers,
    collect() {
      this.set(dispatcher.status().inflightRuns);
    },
  });
  const stats = dispatcher.metadata.stats;
  new Counter({
    name: 'toolhub_cache_hits_total',
    help: 'Tool metadata (info, lists) served from the cache',
    registers,
    collect() {
      this.reset();
      this.inc(stats.hits);
    },
  });
  new Counter({
    name: 'toolhub_cache_misses_total',
    help: 'Tool metadata lookups the cache could not answer (fetched from adapters or the registry)',
    registers,
    collect() {
      this.reset();
      this.inc(stats.misses);
    },
  });
  new Gauge({
    name: 'toolhub_cache_healthy',
    help: '1 while the shared cache (Redis) is reachable',
    registers,
    collect() {
      this.set(dispatcher.metadata.cache.health().healthy ? 1 : 0);
    },
  });
  new Gauge({
    name: 'toolhub_provider_replicas',
    help: 'Live adapter replicas per provider (heartbeats within the provider TTL)',
    labelNames: ['provider'] as const,
    registers,
    collect() {
      this.reset();
      for (const p of dispatcher.providers.status()) this.set({ provider: p.provider }, p.replicas);
    },
  });
  new Counter({
    name: 'toolhub_dispatcher_provider_mismatch_total',
    help: 'Heartbeats refused: the provider in the subject (bound to the sender by NATS permissions) is not the one in the payload',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.reset();
      // Dispatchers read heartbeats only (catalogs go to the registry).
      this.inc({ kind: 'heartbeat' }, dispatcher.providers.binding.refused.heartbeat);
    },
  });
  registerEdgeMetrics(registry, [dispatcher.edgeCounters, ...otherEdges]);
  new Gauge({
    name: 'toolhub_provider_healthy',
    help: '1 while a provider has a healthy replica',
    labelNames: ['provider'] as const,
    registers,
    collect() {
      this.reset();
      for (const p of dispatcher.providers.status()) this.set({ provider: p.provider }, p.healthy ? 1 : 0);
    },
  });
  new Gauge({
    name: 'toolhub_event_outbox_depth',
    help: 'tool.called events waiting to be stored durably (the bus is down or slow)',
    registers,
    collect() {
      this.set(dispatcher.callEvents.backlog);
    },
  });
  new Counter({
    name: 'toolhub_events_dropped_total',
    help: 'tool.called events dropped because the outbox was full',
    registers,
    collect() {
      this.reset();
      this.inc(dispatcher.callEvents.dropped);
    },
  });
  // Alert on these: the outbox disk refuses writes (events only in memory), or damage was found on recovery.
  new Gauge({
    name: 'toolhub_event_outbox_unwritable',
    help: '1 while the event outbox cannot be written (full disk, I/O error); calls go on, events are kept in memory',
    registers,
    collect() {
      this.set(dispatcher.callEvents.outboxState.healthy ? 0 : 1);
    },
  });
  new Counter({
    name: 'toolhub_event_outbox_write_failures_total',
    help: 'tool.called events the outbox could not append (kept in memory and published directly instead)',
    registers,
    collect() {
      this.reset();
      this.inc(dispatcher.callEvents.outboxWriteFailures);
    },
  });
  new Counter({
    name: 'toolhub_event_outbox_damaged_segments_total',
    help: 'outbox segments found damaged on recovery (torn tail, corrupt bytes moved aside, unreadable)',
    registers,
    collect() {
      this.reset();
      this.inc(dispatcher.callEvents.outboxDamaged);
    },
  });
  registerAsyncRunMetrics(registry, dispatcher);
}
