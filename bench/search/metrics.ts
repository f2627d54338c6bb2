/** Retrieval metrics and latency statistics of the search benchmarks. */

/** Recall@1/5/10 and nDCG@10, averaged over queries. */
export interface RetrievalScores {
  queries: number;
  r1: number;
  r5: number;
  r10: number;
  /** Recall@20: the most any reranker of the first 20 could score at 5 (the rerank ceiling). */
  r20: number;
  ndcg10: number;
  /**
   * Recall@5 over the first 5 hits as returned, before variants collapse (what an agent asking for
   * 5 sees: several providers' tools of one name fill more than one of the 5). Absent where the
   * caller did not pass the hits.
   */
  r5hits?: number;
}

/** Accumulates per-query metrics. `ranked` is the list of distinct gold-space names, best first. */
export class RetrievalMeter {
  private n = 0;
  private r1 = 0;
  private r5 = 0;
  private r10 = 0;
  private r20 = 0;
  private ndcg = 0;
  private r5hits = 0;
  private withHits = 0;

  /**
   * `ranked`: the distinct gold-space names, best first; `hits`: optionally, the gold-space name of
   * each hit as returned (repeats included), for {@link RetrievalScores.r5hits}.
   */
  add(ranked: readonly string[], gold: readonly string[], hits?: readonly string[]): void {
    const g = new Set(gold);
    const found = (k: number) => ranked.slice(0, k).filter((x) => g.has(x)).length / g.size;
    if (hits) {
      this.r5hits += distinct(hits.slice(0, 5)).filter((x) => g.has(x)).length / g.size;
      this.withHits++;
    }
    this.r1 += found(1);
    this.r5 += found(5);
    this.r10 += found(10);
    this.r20 += found(20);
    let dcg = 0;
    ranked.slice(0, 10).forEach((x, i) => {
      if (g.has(x)) dcg += 1 / Math.log2(i + 2);
    });
    let ideal = 0;
    for (let i = 0; i < Math.min(g.size, 10); i++) ideal += 1 / Math.log2(i + 2);
    this.ndcg += dcg / ideal;
    this.n++;
  }

  scores(): RetrievalScores {
    const r = (x: number) => Math.round((x / Math.max(1, this.n)) * 1000) / 1000;
    const scores: RetrievalScores = { queries: this.n, r1: r(this.r1), r5: r(this.r5), r10: r(this.r10), r20: r(this.r20), ndcg10: r(this.ndcg) };
    if (this.withHits === this.n && this.n > 0) scores.r5hits = r(this.r5hits);
    return scores;
  }
}

/** Distinct values in order (variants of one tool collapse to its first, best-ranked one). */
export function distinct(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** Latency percentiles in milliseconds from samples in nanoseconds. */
export function percentiles(samplesNs: readonly bigint[] | readonly number[]): { p50: number; p95: number; p99: number; max: number; mean: number } {
  const ms = [...samplesNs].map((s) => Number(s) / 1e6).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.max(0, Math.ceil(q * ms.length) - 1))] ?? 0;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: r(at(0.5)), p95: r(at(0.95)), p99: r(at(0.99)), max: r(ms[ms.length - 1] ?? 0), mean: r(ms.reduce((a, b) => a + b, 0) / Math.max(1, ms.length)) };
}

/** A Markdown table. */
export function table(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const line = (cells: ReadonlyArray<string | number>) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
