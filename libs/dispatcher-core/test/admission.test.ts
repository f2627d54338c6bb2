import { ToolHubError } from '@toolhub/contracts';

import { AdmissionGate } from '../src/admission';

describe('admission gate', () => {
  it('runs up to the limit, queues the next ones in order, and sheds past the queue with a retry hint', async () => {
    const gate = new AdmissionGate({ maxConcurrent: 2, maxQueued: 2 });
    const far = Date.now() + 60_000;
    const a = await gate.acquire(far);
    const b = await gate.acquire(far);
    const order: string[] = [];
    const c = gate.acquire(far).then((r) => (order.push('c'), r));
    const d = gate.acquire(far).then((r) => (order.push('d'), r));
    expect(gate.queued).toBe(2);
    const shed = await gate.acquire(far).catch((e: unknown) => e);
    expect(shed).toBeInstanceOf(ToolHubError);
    expect((shed as ToolHubError).code).toBe('rate_limited');
    expect((shed as ToolHubError).retryAfterMs).toBeGreaterThan(0);
    expect(gate.shed).toBe(1);
    a();
    a(); // a second release is ignored
    (await c)();
    b();
    (await d)();
    expect(order).toEqual(['c', 'd']);
    expect(gate.running).toBe(0);
    expect(gate.queued).toBe(0);
  });

  it('lets a queued call leave at its deadline or when its caller cancels, without taking a slot', async () => {
    const gate = new AdmissionGate({ maxConcurrent: 1, maxQueued: 10 });
    const hold = await gate.acquire(Date.now() + 60_000);
    const late = await gate.acquire(Date.now() + 20).catch((e: unknown) => e);
    expect((late as ToolHubError).code).toBe('timeout');
    const ac = new AbortController();
    const gone = gate.acquire(Date.now() + 60_000, ac.signal).catch((e: unknown) => e);
    ac.abort();
    expect(((await gone) as ToolHubError).code).toBe('unavailable');
    expect(gate.queued).toBe(0);
    hold();
    expect(gate.running).toBe(0);
    (await gate.acquire(Date.now() + 1000))();
  });
});
