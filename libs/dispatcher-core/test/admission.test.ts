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

  it('answers a free slot and a shed call at once, without a promise; only a queued call waits on one', () => {
    const gate = new AdmissionGate({ maxConcurrent: 1, maxQueued: 1 });
    const far = Date.now() + 60_000;
    const slot = gate.admit(far);
    expect(typeof slot).toBe('function');
    const queued = gate.admit(far);
    expect(queued).toBeInstanceOf(Promise);
    const shed = ((): unknown => {
      try {
        return gate.admit(far);
      } catch (err) {
        return err;
      }
    })();
    expect((shed as ToolHubError).code).toBe('rate_limited');
    // An expected refusal, given to every call past the limits: it carries no stack trace.
    expect((shed as ToolHubError).stack).not.toMatch(/\n\s+at /);
    (slot as () => void)();
    return (queued as Promise<() => void>).then((release) => release());
  });

  it('counts as overloaded while calls wait, and no longer once none waits and none was shed for a moment', async () => {
    const gate = new AdmissionGate({ maxConcurrent: 1, maxQueued: 1 });
    const far = Date.now() + 60_000;
    expect(gate.overloaded).toBe(false);
    const a = await gate.acquire(far);
    expect(gate.overloaded).toBe(false);
    const b = gate.acquire(far);
    expect(gate.overloaded).toBe(true);
    await gate.acquire(far).catch(() => undefined);
    a();
    (await b)();
    // The shed call keeps the gate overloaded for a moment (1 s), then it is over.
    expect(gate.shed).toBe(1);
    const deadline = Date.now() + 10_000;
    while (gate.overloaded && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(gate.overloaded).toBe(false);
  });

  it('shares its early refusals while running and waiting stay the same, each counted, with retry hints that differ', async () => {
    const gate = new AdmissionGate({ maxConcurrent: 1, maxQueued: 1 });
    const far = Date.now() + 60_000;
    expect(gate.refuseEarly()).toBeUndefined();
    const a = await gate.acquire(far);
    const b = gate.acquire(far);
    const burst = Array.from({ length: 32 }, () => gate.refuseEarly());
    expect(gate.shed).toBe(32);
    expect(burst.every((e) => e instanceof ToolHubError && e.code === 'rate_limited')).toBe(true);
    // 8 errors handed out in turn: the stream-level answer encodes each once, not once per call.
    const distinct = new Set(burst);
    expect(distinct.size).toBe(8);
    expect(burst[8]).toBe(burst[0]);
    // Their jittered hints (100–500 ms plus the backlog) are not all one value.
    expect(new Set([...distinct].map((e) => e!.retryAfterMs)).size).toBeGreaterThan(1);
    expect(burst[0]!.message).toMatch(/1 runs are executing and 1 are waiting/);
    // Drained and filled again: still refused, counted, and described as it is.
    a();
    (await b)();
    const c = await gate.acquire(far);
    const d = gate.acquire(far);
    const e = gate.acquire(far).catch((err: unknown) => err);
    expect(await e).toBeInstanceOf(ToolHubError);
    expect(gate.refuseEarly()!.message).toMatch(/1 runs are executing and 1 are waiting/);
    expect(gate.shed).toBe(34);
    c();
    (await d)();
    expect(gate.refuseEarly()).toBeUndefined();
  });
});
