/**
 * The per-tool statistics document and the pure function that folds a group of calls into it.
 * Ranking fields (failure rate, p95) are stored precomputed so listings sort in the database.
 */
import { parseToolId } from '@toolhub/contracts';

import type { BaseDoc } from '../backend';
import type { HourlyStats, ToolStats, ToolStatsSummary } from '../store';
import { LatencyDigest } from './digest';
import type { CallSlice } from './call-slices';

const HOUR_MS = 3_600_000;

/** Calls of one hour: start, calls, successes, failures, latency sum (ms). */
export interface HourDoc {
  h: number;
  c: number;
  s: number;
  f: number;
  l: number;
}

/** A batch this tool's counts already contain, and when it was applied. */
export interface GuardEntry {
  b: string;
  at: number;
}

/** Statistics of one tool (`_id` = tool id). */
export interface StatsDoc extends BaseDoc {
  provider: string;
  name: string;
  calls: number;
  successes: number;
  failureCount: number;
  failures: Record<string, number>;
  fallbackServed: number;
  firstCallUnixMs: number;
  lastCallUnixMs: number;
  latencySumMs: number;
  /** Encoded {@link LatencyDigest}. */
  latency: string;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxLatencyMs: number;
  failureRate: number;
  hourly: HourDoc[];
  /** Batches applied recently: the idempotence guard of {@link CallRecorder}. */
  guard: GuardEntry[];
  /** Compare-and-set version. */
  rev: number;
  updatedUnixMs: number;
}

/** Fields listings do not need. */
export const HEAVY_STATS_FIELDS = ['latency', 'guard'] as const;

/** The statistics of a tool never called. */
export function emptyStats(toolId: string): StatsDoc {
  const parsed = parseToolId(toolId);
  return {
    _id: toolId,
    provider: parsed?.provider ?? '',
    name: parsed?.name ?? '',
    calls: 0,
    successes: 0,
    failureCount: 0,
    failures: {},
    fallbackServed: 0,
    firstCallUnixMs: 0,
    lastCallUnixMs: 0,
    latencySumMs: 0,
    latency: '',
    p50Ms: 0,
    p95Ms: 0,
    p99Ms: 0,
    maxLatencyMs: 0,
    failureRate: 0,
    hourly: [],
    guard: [],
    rev: 0,
    updatedUnixMs: 0,
  };
}

/** First hour kept at `now` with `retentionHours` hourly buckets. */
export function oldestKeptHour(now: number, retentionHours: number): number {
  return Math.floor(now / HOUR_MS) * HOUR_MS - (retentionHours - 1) * HOUR_MS;
}

/**
 * `doc` with `calls` (all of this tool) counted. Hours older than the retention are dropped
 * from the series (the totals still count them). Does not touch `guard` or `rev`. `digest` is
 * `doc.latency` decoded (a caller that kept it passes it); the latencies are recorded into it.
 */
export function foldCalls(
  doc: StatsDoc,
  calls: readonly CallSlice[],
  now: number,
  retentionHours: number,
  digest: LatencyDigest = LatencyDigest.decode(doc.latency),
): StatsDoc {
  const next: StatsDoc = { ...doc, failures: { ...doc.failures } };
  const cutoff = oldestKeptHour(now, retentionHours);
  const hours = new Map(doc.hourly.filter((b) => b.h >= cutoff).map((b) => [b.h, { ...b }]));
  for (const slice of calls) {
    for (const [cls, n] of Object.entries(slice.failures ?? {})) next.failures[cls] = (next.failures[cls] ?? 0) + n;
    slice.forEach((ts, latency, ok, fallback) => {
      next.calls++;
      if (ok) next.successes++;
      else next.failureCount++;
      if (fallback) next.fallbackServed++;
      next.latencySumMs += latency;
      digest.record(latency);
      next.firstCallUnixMs = next.firstCallUnixMs === 0 ? ts : Math.min(next.firstCallUnixMs, ts);
      next.lastCallUnixMs = Math.max(next.lastCallUnixMs, ts);
      const h = Math.floor(ts / HOUR_MS) * HOUR_MS;
      if (h < cutoff) return;
      const bucket = hours.get(h) ?? { h, c: 0, s: 0, f: 0, l: 0 };
      bucket.c++;
      if (ok) bucket.s++;
      else bucket.f++;
      bucket.l += latency;
      hours.set(h, bucket);
    });
  }
  next.hourly = [...hours.values()].sort((a, b) => a.h - b.h);
  next.latency = digest.encode();
  next.p50Ms = digest.percentile(50);
  next.p95Ms = digest.percentile(95);
  next.p99Ms = digest.percentile(99);
  next.maxLatencyMs = digest.max;
  next.failureRate = next.calls === 0 ? 0 : next.failureCount / next.calls;
  next.updatedUnixMs = now;
  return next;
}

/** The public summary of a statistics document (works on one without the heavy fields). */
export function toSummary(doc: StatsDoc, now: number, retentionHours: number): ToolStatsSummary {
  const cutoff = oldestKeptHour(now, retentionHours);
  let recentCalls = 0;
  let recentFailures = 0;
  for (const b of doc.hourly ?? []) {
    if (b.h < cutoff) continue;
    recentCalls += b.c;
    recentFailures += b.f;
  }
  return {
    toolId: doc._id,
    provider: doc.provider,
    name: doc.name,
    calls: doc.calls,
    successes: doc.successes,
    failures: { ...doc.failures },
    failureCount: doc.failureCount,
    successRate: doc.calls === 0 ? 0 : doc.successes / doc.calls,
    failureRate: doc.failureRate,
    fallbackServed: doc.fallbackServed,
    firstCallUnixMs: doc.firstCallUnixMs,
    lastCallUnixMs: doc.lastCallUnixMs,
    meanLatencyMs: doc.calls === 0 ? 0 : doc.latencySumMs / doc.calls,
    p50Ms: doc.p50Ms,
    p95Ms: doc.p95Ms,
    p99Ms: doc.p99Ms,
    maxLatencyMs: doc.maxLatencyMs,
    recentCalls,
    recentFailures,
  };
}

/** The public statistics, with the hourly series cut to the retention at `now`. */
export function toToolStats(doc: StatsDoc, now: number, retentionHours: number): ToolStats {
  const cutoff = oldestKeptHour(now, retentionHours);
  const hourly: HourlyStats[] = doc.hourly
    .filter((b) => b.h >= cutoff)
    .map((b) => ({ hourStartUnixMs: b.h, calls: b.c, successes: b.s, failures: b.f, meanLatencyMs: b.c === 0 ? 0 : b.l / b.c }));
  return { ...toSummary(doc, now, retentionHours), hourly };
}
