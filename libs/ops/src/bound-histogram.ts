/**
 * A histogram series bound to one label set, for hot paths. prom-client's `labels()` child redoes
 * the per-observe work of the parent on every call (a labels object, label validation, the label
 * hash, a map lookup); this one finds the series' values once and then updates them in place, where
 * prom-client keeps them, so what `/metrics` shows, `reset()` and `remove()` work as before: a
 * series that was reset or removed (no longer the object we hold) goes through prom-client again on
 * the next observe, and so does anything prom-client's internals do not look as expected.
 */
import type { Histogram, LabelValues } from 'prom-client';

/** prom-client 15's per-series values of a histogram (lib/histogram.js). */
interface SeriesValues {
  labels: Record<string, string | number>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
  bucketExemplars?: unknown;
}

interface HistogramInternals {
  hashMap?: Record<string, SeriesValues>;
  upperBounds?: number[];
  sortedLabelNames?: string[];
}

/** prom-client 15's key of a series (lib/util.js `hashObject` over the metric's sorted label names). */
function promHash(labels: Record<string, string | number | undefined>, sortedNames: readonly string[]): string {
  let hash = '';
  for (const k of sortedNames) {
    const v = labels[k];
    if (v !== undefined) hash += `${k}:${v},`;
  }
  return hash;
}

/** Observes into the series of `h` with `labels`; see the file's header. */
export function boundHistogram<T extends string>(h: Histogram<T>, labels: LabelValues<T>): (value: number) => void {
  const child = h.labels(labels);
  const internals = h as unknown as HistogramInternals;
  let hash: string | undefined;
  let series: SeriesValues | undefined;
  // The buckets' property names: indexing with the number itself converts it to a string on every
  // observe (~0.1 µs; the hottest line of this file in a dispatcher profile, 2026-11-29).
  let keyedBounds: number[] | undefined;
  let keys: string[] = [];
  const find = (): void => {
    series = undefined;
    const map = internals.hashMap;
    if (!map || !Array.isArray(internals.upperBounds)) return;
    if (hash === undefined) {
      // prom-client's own key first: a scan of every series per new one made binding the 5,000th
      // series cost milliseconds (quadratic in the series, for a dispatcher with many tools).
      const names = internals.sortedLabelNames;
      const guess = Array.isArray(names) ? promHash(labels as Record<string, string | number | undefined>, names) : undefined;
      hash = guess !== undefined && sameLabels(map[guess]?.labels, labels) ? guess : Object.keys(map).find((k) => sameLabels(map[k]!.labels, labels));
    }
    const found = hash === undefined ? undefined : map[hash];
    // Exemplars need prom-client's own bookkeeping: leave those series to it.
    if (found && typeof found.sum === 'number' && typeof found.bucketValues === 'object' && found.bucketExemplars === undefined) series = found;
  };
  return (value: number) => {
    const s = series;
    if (s === undefined || !Number.isFinite(value) || internals.hashMap![hash!] !== s) {
      child.observe(value);
      find();
      return;
    }
    s.sum += value;
    s.count += 1;
    const bounds = internals.upperBounds!;
    if (bounds !== keyedBounds) {
      keyedBounds = bounds;
      keys = bounds.map(String);
    }
    const buckets = s.bucketValues as unknown as Record<string, number>;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        buckets[keys[i]!]! += 1;
        break;
      }
    }
  };
}

function sameLabels(have: Record<string, string | number> | undefined, want: Record<string, string | number | undefined>): boolean {
  if (!have) return false;
  const keys = Object.keys(want).filter((k) => want[k] !== undefined);
  return keys.length === Object.keys(have).length && keys.every((k) => String(have[k]) === String(want[k]));
}
