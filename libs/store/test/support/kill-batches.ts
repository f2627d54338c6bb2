/**
 * The event stream of the kill tests: batch i holds 40 new events and repeats the last 5 of batch i-1.
 * The stream is a pure function of (batch, epochMs): a redelivery carries exactly the bytes of the
 * first delivery, as JetStream's does. Stamping events with `Date.now()` at each call made the
 * parent's redelivered batch differ from the child's in its timestamps, and MongoRegistryStore
 * claims a timestamped event in the 10-minute slot of its timestamp (stats/slotted-claims.ts): when
 * a slot boundary fell between the child's write and the redelivery, the same event ids were claimed
 * afresh in the next slot and the in-flight batch was counted twice (seen once in 20 runs, FerretDB).
 */
import type { ToolCalled } from '@toolhub/contracts';

export const KILL_TOOLS = ['local:file_read', 'mcp:web_fetch', 'cloud:search'] as const;
export const NEW_PER_BATCH = 40;
const REPEATED = 5;

function event(batch: number, j: number, epochMs: number): ToolCalled {
  const toolId = KILL_TOOLS[(batch * NEW_PER_BATCH + j) % KILL_TOOLS.length]!;
  const [provider, name] = toolId.split(':') as [string, string];
  return {
    eventId: `k-${batch}-${j}`,
    toolId,
    provider,
    name,
    status: j % 7 === 0 ? 'tool_error' : 'ok',
    errorCode: 0,
    latencyMs: 1 + ((batch * 31 + j * 17) % 500),
    attempts: 1,
    fallbackUsed: '',
    caller: 'kill-test',
    timestampUnixMs: epochMs + batch,
    searchId: '',
    claimGroup: '',
  };
}

/** Batch `i` of the stream that starts at `epochMs`, as a consumer would receive it (with a redelivered tail of the previous one). */
export function killBatch(i: number, epochMs: number): ToolCalled[] {
  const fresh = Array.from({ length: NEW_PER_BATCH }, (_, j) => event(i, j, epochMs));
  const repeated = i === 0 ? [] : Array.from({ length: REPEATED }, (_, k) => event(i - 1, NEW_PER_BATCH - REPEATED + k, epochMs));
  return [...repeated, ...fresh];
}

/** Exact calls per tool and failures after batches 0..n-1. */
export function expectedCounts(n: number): Map<string, { calls: number; failures: number }> {
  const counts = new Map<string, { calls: number; failures: number }>(KILL_TOOLS.map((t) => [t, { calls: 0, failures: 0 }]));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < NEW_PER_BATCH; j++) {
      const e = event(i, j, 0);
      const c = counts.get(e.toolId)!;
      c.calls++;
      if (e.status !== 'ok') c.failures++;
    }
  }
  return counts;
}
