/**
 * Counted calls as the recorder keeps them until their statistics are written (`statsFlushMs`):
 * only what folding needs of each call (time, latency, success, fallback) in typed arrays, one set
 * per batch, sliced by tool, with each tool's failures counted by class. About 13 bytes a call
 * plus ~100 a tool, against ~150 for a {@link CallRecord} object (its event id alone is ~50, and
 * it is not needed once the batch is claimed): so a minute of calls at a few thousand a second can
 * wait for one write per tool instead of forcing writes every few seconds.
 */
import type { CallRecord } from './events';

const OK = 1;
const FALLBACK = 2;

/** The arrays of one packed batch; slices index into them. */
interface CallColumns {
  readonly ts: Float64Array;
  readonly latency: Uint32Array;
  readonly flags: Uint8Array;
}

/** One tool's calls of one batch. */
export class CallSlice {
  constructor(
    private readonly columns: CallColumns,
    private readonly from: number,
    private readonly to: number,
    /** Failures by class; undefined when every call succeeded. */
    readonly failures: Readonly<Record<string, number>> | undefined,
  ) {}

  get count(): number {
    return this.to - this.from;
  }

  /** Calls `fn` for every call, in the order they were packed. */
  forEach(fn: (ts: number, latencyMs: number, ok: boolean, fallback: boolean) => void): void {
    const { ts, latency, flags } = this.columns;
    for (let i = this.from; i < this.to; i++) fn(ts[i]!, latency[i]!, (flags[i]! & OK) !== 0, (flags[i]! & FALLBACK) !== 0);
  }
}

/**
 * `byTool` (records grouped by tool, latencies already whole ms in range: see normalizeEvents)
 * packed into one set of arrays; each tool's slice.
 */
export function sliceByTool(byTool: ReadonlyMap<string, readonly CallRecord[]>): Map<string, CallSlice> {
  let total = 0;
  for (const records of byTool.values()) total += records.length;
  const columns: CallColumns = { ts: new Float64Array(total), latency: new Uint32Array(total), flags: new Uint8Array(total) };
  const slices = new Map<string, CallSlice>();
  let at = 0;
  for (const [toolId, records] of byTool) {
    const from = at;
    let failures: Record<string, number> | undefined;
    for (const r of records) {
      columns.ts[at] = r.ts;
      columns.latency[at] = r.l;
      columns.flags[at] = (r.ok ? OK : 0) | (r.fb ? FALLBACK : 0);
      if (!r.ok) {
        failures ??= {};
        failures[r.c] = (failures[r.c] ?? 0) + 1;
      }
      at++;
    }
    slices.set(toolId, new CallSlice(columns, from, at, failures));
  }
  return slices;
}
