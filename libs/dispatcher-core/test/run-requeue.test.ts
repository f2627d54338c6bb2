/**
 * The crash gap between a run's record and its queue message: runs left `queued` too long are
 * queued again once per bound, and a second message of a run a live worker already holds is dropped
 * (a redelivery of the worker's own message is handed back, as before). Real embedded store.
 */
import { InProcessBus } from '@toolhub/bus';
import { runOwnerSubject } from '@toolhub/contracts';
import { openEmbeddedRunStore } from '@toolhub/run-store/embedded';
import { runRecord } from '@toolhub/run-store/testing';
import { scratchDir } from '@toolhub/test-harness';
import { join } from 'node:path';

import { RunExecutor } from '../src/runs/run-executor';
import { requeueStale } from '../src/runs/run-requeue';
import { RunUpdates } from '../src/runs/run-updates';


describe('runs left queued', () => {
  it('are queued again when queued longer than the bound, once per bound; others are left alone', async () => {
    const store = await openEmbeddedRunStore({ dir: join(scratchDir('run-requeue'), 'runs') });
    const now = 1_000_000;
    await store.create(runRecord('run_a', { queuedUnixMs: now - 90_000 })); // lost: queued long ago
    await store.create(runRecord('run_b', { queuedUnixMs: now - 1_000 })); // queued just now
    await store.create(runRecord('run_c', { queuedUnixMs: now - 90_000, state: 'running', owner: 'x' }));
    await store.create(runRecord('run_d', { queuedUnixMs: now - 90_000, requeuedUnixMs: now - 5_000 })); // requeued recently
    const queued: string[] = [];
    const queue = { enqueue: async (id: string) => void queued.push(id) };
    expect(await requeueStale(store, queue, 60_000, 50, now)).toBe(1);
    expect(queued).toEqual(['run_a']);
    expect((await store.get('run_a'))!.requeuedUnixMs).toBe(now);
    expect(await requeueStale(store, queue, 60_000, 50, now + 1_000)).toBe(0); // once per bound
    expect(await requeueStale(store, queue, 60_000, 50, now + 61_000)).toBe(3); // a bound later: a and d again, and b now
    expect(queued).toEqual(['run_a', 'run_a', 'run_b', 'run_d']);
    await store.close();
  });

  it('a first delivery of a run a live worker holds is a second message and is dropped; a redelivery is handed back', async () => {
    const store = await openEmbeddedRunStore({ dir: join(scratchDir('run-requeue-dup'), 'runs') });
    const bus = new InProcessBus();
    // The live worker holding the run answers its owner checks.
    const owner = await bus.serve(runOwnerSubject('worker1'), () => ({ data: new TextEncoder().encode('1'), headers: {} }));
    await store.create(runRecord('run_x', { state: 'running', owner: 'worker1', attempts: 1, queuedUnixMs: 1 }));
    const log = { info() {}, warn() {}, error() {} };
    const executor = new RunExecutor({
      store,
      pipeline: { runTool: () => Promise.reject(new Error('must not run')) },
      updates: new RunUpdates(bus, () => undefined),
      bus,
      log,
      instanceId: 'worker2',
      retentionMs: 60_000,
      maxAttemptMs: 60_000,
      retryBaseMs: 1,
      retryMaxMs: 1,
    });
    await expect(executor.work('run_x', false)).resolves.toBeUndefined();
    await expect(executor.work('run_x', true)).rejects.toThrow('still running on worker1');
    expect(await store.get('run_x')).toMatchObject({ state: 'running', owner: 'worker1', attempts: 1 });
    await owner.close();
    await bus.close();
    await store.close();
  });
});
