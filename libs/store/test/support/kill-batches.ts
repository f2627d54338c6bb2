/** The event stream of the kill tests: batch i holds 40 new events and repeats the last 5 of batch i-1. */
import type { ToolCalled } from '@toolhub/contracts';

export const KILL_TOOLS = ['local:file_read', 'mcp:web_fetch', 'cloud:search'] as const;
export const NEW_PER_BATCH = 40;
const REPEATED = 5;

function event(batch: number, j: number): ToolCalled {
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
    timestampUnixMs: Date.now(),
    searchId: '',
    claimGroup: '',
  };
}

/** Batch `i` as a consumer would receive it (with a redelivered tail of the previous one). */
export function killBatch(i: number): ToolCalled[] {
  const fresh = Array.from({ length: NEW_PER_BATCH }, (_, j) => event(i, j));
  const repeated = i === 0 ? [] : Array.from({ length: REPEATED }, (_, k) => event(i - 1, NEW_PER_BATCH - REPEATED + k));
  return [...repeated, ...fresh];
}

/** Exact calls per tool and failures after batches 0..n-1. */
export function expectedCounts(n: number): Map<string, { calls: number; failures: number }> {
  const counts = new Map<string, { calls: number; failures: number }>(KILL_TOOLS.map((t) => [t, { calls: 0, failures: 0 }]));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < NEW_PER_BATCH; j++) {
      const e = event(i, j);
      const c = counts.get(e.toolId)!;
      c.calls++;
      if (e.status !== 'ok') c.failures++;
    }
  }
  return counts;
}
