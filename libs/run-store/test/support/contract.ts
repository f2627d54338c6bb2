/** The behaviour every RunStore must have; run against the embedded file and against MongoDB. */
import type { RunStore } from '../../src';
import { runRecord as run } from '../../src/testing';

export { run };

export function runStoreContract(open: () => Promise<RunStore>): void {
  let store: RunStore;
  beforeEach(async () => {
    store = await open();
  });
  afterEach(async () => {
    await store.close();
  });

  it('creates a run once and reads it back as stored', async () => {
    const r = run('run_a', { progress: { progress: 1, total: 2, message: 'half' }, logs: ['x'] });
    expect(await store.create(r)).toBe(true);
    expect(await store.create(run('run_a'))).toBe(false);
    expect(await store.get('run_a')).toEqual(r);
    expect(await store.get('run_missing')).toBeUndefined();
  });

  it('replaces only from the revision read: the second of two writers on one revision loses', async () => {
    await store.create(run('run_b'));
    const read = (await store.get('run_b'))!;
    const first = await store.replace({ ...read, state: 'running', attempts: 1 });
    expect(first).toMatchObject({ rev: 1, state: 'running' });
    expect(await store.replace({ ...read, state: 'cancelled' })).toBeUndefined();
    expect(await store.get('run_b')).toMatchObject({ rev: 1, state: 'running', attempts: 1 });
    expect(await store.replace({ ...first!, state: 'succeeded' })).toMatchObject({ rev: 2, state: 'succeeded' });
  });

  it("lists one principal's runs newest first, paged by id, filtered by state", async () => {
    for (const [id, principalId, state] of [['run_1', 'key:alice', 'succeeded'], ['run_2', 'key:bob', 'queued'], ['run_3', 'key:alice', 'queued'], ['run_4', 'key:alice', 'succeeded']] as const) {
      await store.create(run(id, { principalId, state }));
    }
    expect((await store.list('key:alice', { limit: 2 })).map((r) => r.id)).toEqual(['run_4', 'run_3']);
    expect((await store.list('key:alice', { limit: 2, beforeId: 'run_3' })).map((r) => r.id)).toEqual(['run_1']);
    expect((await store.list('key:alice', { limit: 10, state: 'succeeded' })).map((r) => r.id)).toEqual(['run_4', 'run_1']);
    expect((await store.list('key:bob', { limit: 10 })).map((r) => r.id)).toEqual(['run_2']);
    expect((await store.listInStates(['queued', 'running'], 10)).map((r) => r.id)).toEqual(['run_2', 'run_3']);
  });

  it('counts runs in some states, all or one principal\'s, up to a limit', async () => {
    for (const [id, principalId, state] of [['run_c1', 'key:alice', 'queued'], ['run_c2', 'key:bob', 'queued'], ['run_c3', 'key:alice', 'queued'], ['run_c4', 'key:alice', 'running'], ['run_c5', 'key:alice', 'succeeded']] as const) {
      await store.create(run(id, { principalId, state }));
    }
    expect(await store.countInStates(['queued'], { limit: 100 })).toBe(3);
    expect(await store.countInStates(['queued'], { principalId: 'key:alice', limit: 100 })).toBe(2);
    expect(await store.countInStates(['queued', 'running'], { principalId: 'key:alice', limit: 100 })).toBe(3);
    expect(await store.countInStates(['queued'], { principalId: 'key:carol', limit: 100 })).toBe(0);
    expect(await store.countInStates(['queued'], { limit: 2 })).toBe(2);
  });

  it("finds the principal's run by idempotency key, never another principal's", async () => {
    await store.create(run('run_k1', { idempotencyKey: 'k' }));
    await store.create(run('run_k2', { idempotencyKey: 'k', principalId: 'key:bob' }));
    expect((await store.findByIdempotencyKey('key:alice', 'k'))?.id).toBe('run_k1');
    expect((await store.findByIdempotencyKey('key:bob', 'k'))?.id).toBe('run_k2');
    expect(await store.findByIdempotencyKey('key:carol', 'k')).toBeUndefined();
  });

  it('deletes ended runs whose retention passed, and nothing else', async () => {
    await store.create(run('run_old', { state: 'succeeded', expiresUnixMs: 100 }));
    await store.create(run('run_new', { state: 'failed', expiresUnixMs: 10_000 }));
    await store.create(run('run_live', { state: 'running', expiresUnixMs: 0 }));
    expect(await store.deleteExpired(5000)).toBe(1);
    expect(await store.get('run_old')).toBeUndefined();
    expect(await store.get('run_new')).toBeDefined();
    expect(await store.get('run_live')).toBeDefined();
  });
}
