/** runBatch against a fake dispatcher: what is not started once the caller is gone, and the parallelism cap. */
import { type BatchCall, BatchCallState, ErrorCode, RunStatus, type RunToolRequest, type RunToolResponse } from '@toolhub/contracts';

import { type BatchTarget, runBatch } from '../src';

const call = (id: string, after: string[] = []): BatchCall => ({ id, provider: 'local', name: 'work', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', after });
const ok = (text: string): RunToolResponse => ({ status: RunStatus.RUN_STATUS_OK, content: [{ text }], error: undefined, fixes: [], attempts: 1, servedBy: 'local:work', latencyMs: 1, structured: undefined });

/** A target whose runs wait until the test releases them; it records which calls started. */
function heldTarget() {
  const started: string[] = [];
  const held: Array<() => void> = [];
  let running = 0;
  let peak = 0;
  const target: BatchTarget = {
    getToolInfo: async () => ({ tool: undefined }),
    runTool: (req: RunToolRequest, ctx) => {
      started.push(ctx.requestId.split('.').at(-1)!);
      running++;
      peak = Math.max(peak, running);
      return new Promise((resolve) =>
        held.push(() => {
          running--;
          resolve(ok(String(req.name)));
        }),
      );
    },
  };
  return { target, started, held, peak: () => peak };
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setImmediate(r));
};

describe('runBatch', () => {
  it('does not start the calls still waiting once the caller has cancelled: they fail without running', async () => {
    const { target, started, held } = heldTarget();
    const abort = new AbortController();
    const done = runBatch(target, { calls: [call('first'), call('second', ['first']), call('third', ['second'])], maxParallel: 0, caller: '', searchId: '' }, { deadline: Infinity, requestId: 'r', signal: abort.signal });
    await until(() => held.length === 1);
    abort.abort();
    held[0]!();
    const res = await done;
    expect(started).toEqual(['first']);
    expect(res.results.map((r) => [r.id, r.state])).toEqual([
      ['first', BatchCallState.BATCH_CALL_STATE_OK],
      ['second', BatchCallState.BATCH_CALL_STATE_FAILED],
      ['third', BatchCallState.BATCH_CALL_STATE_SKIPPED],
    ]);
    expect(res.results[1]!.error!.message).toContain('cancelled');
    expect(res.results[2]!.error!.message).toContain('call second');
  });

  it('does not start calls after the request deadline has passed', async () => {
    const { target, started, held } = heldTarget();
    const deadline = { value: Infinity };
    const ctx = { requestId: 'r', get deadline() { return deadline.value; } };
    const done = runBatch(target, { calls: [call('first'), call('second', ['first'])], maxParallel: 0, caller: '', searchId: '' }, ctx);
    await until(() => held.length === 1);
    deadline.value = Date.now() - 1;
    held[0]!();
    const res = await done;
    expect(started).toEqual(['first']);
    expect(res.results[1]!.state).toBe(BatchCallState.BATCH_CALL_STATE_FAILED);
    expect(res.results[1]!.error!.code).toBe(ErrorCode.ERROR_CODE_TIMEOUT);
  });

  it('runs at most max_parallel calls at once, and never more than the per-caller limit', async () => {
    for (const [maxParallel, callerLimit, expected] of [[3, Infinity, 3], [8, 2, 2]] as const) {
      const { target, held, peak } = heldTarget();
      const done = runBatch(target, { calls: ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => call(id)), maxParallel, caller: '', searchId: '' }, { deadline: Infinity, requestId: 'r' }, callerLimit);
      let released = 0;
      while (released < 6) {
        await until(() => held.length > released);
        held[released++]!();
      }
      const res = await done;
      expect(res.results.every((r) => r.state === BatchCallState.BATCH_CALL_STATE_OK)).toBe(true);
      expect({ maxParallel, callerLimit, peak: peak() }).toEqual({ maxParallel, callerLimit, peak: expected });
    }
  });
});
