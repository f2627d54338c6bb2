/**
 * Latency digest of one tool: an HDR histogram (hdr-histogram-js) of milliseconds, stored as its
 * compressed base64 encoding so each batch can be folded into the stored one. Two significant
 * digits: values up to 255 ms are exact, larger ones within 1%; encoded size stays in the hundreds
 * of bytes to a few KB whatever the number of calls.
 */
import { type Histogram, build, decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { LRUCache } from 'lru-cache';

/** Latencies above this are recorded as this (24 h). */
export const MAX_LATENCY_MS = 86_400_000;
const SIGNIFICANT_DIGITS = 2;
// 64-bit counts: a hot tool's bucket must not overflow at 2^31 calls.
const BIT_BUCKET_SIZE = 64;

/** A mergeable, serialisable latency distribution. */
export class LatencyDigest {
  private constructor(private readonly histogram: Histogram) {}

  /** An empty digest. */
  static empty(): LatencyDigest {
    return new LatencyDigest(
      build({ bitBucketSize: BIT_BUCKET_SIZE, numberOfSignificantValueDigits: SIGNIFICANT_DIGITS, highestTrackableValue: MAX_LATENCY_MS, autoResize: false }),
    );
  }

  /** The digest `encoded` by {@link encode}; empty for undefined or ''. */
  static decode(encoded: string | undefined): LatencyDigest {
    if (!encoded) return LatencyDigest.empty();
    return new LatencyDigest(decodeFromCompressedBase64(encoded, BIT_BUCKET_SIZE, false, MAX_LATENCY_MS));
  }

  /** Adds one latency (clamped to 0..{@link MAX_LATENCY_MS}, rounded to whole ms). */
  record(latencyMs: number): void {
    this.histogram.recordValue(clampLatency(latencyMs));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  get max(): number {
    return this.histogram.totalCount === 0 ? 0 : this.histogram.maxValue;
  }

  /** The latency at `percentile` (0–100); 0 for an empty digest. */
  percentile(percentile: number): number {
    return this.histogram.totalCount === 0 ? 0 : this.histogram.getValueAtPercentile(percentile);
  }

  encode(): string {
    return encodeIntoCompressedBase64(this.histogram);
  }
}

/**
 * Decoded digests of recently written tools, so a tool's next write records into the histogram it
 * already has instead of decoding its stored text again (decoding is ~35 µs, about half of a
 * digest's cost per write). A decoded digest takes ~20 KB (64-bit counts), hence a bound of its own.
 */
export class DigestCache {
  private readonly entries: LRUCache<string, { encoded: string; digest: LatencyDigest }>;

  constructor(limit: number) {
    this.entries = new LRUCache({ max: limit });
  }

  /**
   * The digest that `encoded` decodes to, for the caller to change: the one kept for `key` when it
   * was kept for exactly this text (else decoded). Either way `key` is no longer kept: a digest
   * changed by a write that then failed must not be handed out again.
   */
  take(key: string, encoded: string): LatencyDigest {
    const kept = this.entries.get(key);
    if (kept !== undefined) this.entries.delete(key);
    return kept !== undefined && kept.encoded === encoded ? kept.digest : LatencyDigest.decode(encoded);
  }

  /** Keeps `digest` for `key`; `encoded` is its encoding as stored. The least recently used go first past the limit. */
  keep(key: string, encoded: string, digest: LatencyDigest): void {
    this.entries.set(key, { encoded, digest });
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Whole milliseconds in 0..MAX_LATENCY_MS. */
export function clampLatency(latencyMs: number): number {
  return Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(latencyMs)));
}
