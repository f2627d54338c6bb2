/** tool.called events: published in batches after the call, retried until stored, never in the call's way. */
import { type Bus, InProcessBus } from '@toolhub/bus';
import { ToolCalled } from '@toolhub/contracts';
import { setTimeout as sleep } from 'node:timers/promises';

import { CallEventPublisher } from '../src';

const event = (n: number): ToolCalled => ({
  eventId: `e${n}`,
  toolId: 'local:noop',
  provider: 'local',
  name: 'noop',
  status: 'ok',
  errorCode: 0,
  latencyMs: 1,
  attempts: 1,
  fallbackUsed: '',
  caller: '',
  timestampUnixMs: 0,
  searchId: '',
});

/** A bus that records publishEvent calls and fails the first `failures` of them. */
function recordingBus(failures = 0): { bus: Bus; published: string[]; calls: () => number } {
  const inner = new InProcessBus();
  const published: string[] = [];
  let calls = 0;
  const bus = Object.create(inner) as Bus;
  bus.publishEvent = async (subject, data, options) => {
    calls++;
    if (calls <= failures) throw new Error('stream busy');
    published.push(ToolCalled.decode(data).eventId);
    return inner.publishEvent(subject, data, options);
  };
  return { bus, published, calls: () => calls };
}

/** Waits until `done()` holds (polling), so the tests do not depend on how fast a busy machine runs timers. */
async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(5);
}

describe('CallEventPublisher', () => {
  it('publishes nothing during the call, then the events of calls finished together as one batch', async () => {
    const { bus, published } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 10 });
    for (let i = 0; i < 3; i++) events.emit(event(i));
    expect(published).toEqual([]);
    expect(events.backlog).toBe(3);
    await until(() => published.length >= 3);
    expect(published).toEqual(['e0', 'e1', 'e2']);
    expect(events.backlog).toBe(0);
    expect(events.published).toBe(3);
    await events.close();
  });

  it('keeps events the bus refused and stores them on a later attempt', async () => {
    const { bus, published } = recordingBus(2);
    const errors: unknown[] = [];
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, retryDelayMs: 5, onError: (e) => errors.push(e) });
    events.emit(event(1));
    events.emit(event(2));
    await until(() => published.length >= 2);
    expect(published.sort()).toEqual(['e1', 'e2']);
    expect(errors.length).toBeGreaterThan(0);
    await events.close();
  });

  it('publishes what is pending on close, without waiting for the batch delay', async () => {
    const { bus, published } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 60_000 });
    events.emit(event(7));
    expect(await events.close()).toBe(0);
    expect(published).toEqual(['e7']);
  });

  it('holds the events while the dispatcher sheds load and publishes them once it stops', async () => {
    const { bus, published } = recordingBus();
    let overloaded = true;
    let checks = 0;
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, maxHoldMs: 600_000, holdWhile: () => (checks++, overloaded) });
    for (let i = 0; i < 3; i++) events.emit(event(i));
    await until(() => checks >= 3);
    expect(published).toEqual([]);
    expect(events.backlog).toBe(3);
    overloaded = false;
    await until(() => published.length >= 3);
    expect(published).toEqual(['e0', 'e1', 'e2']);
    await events.close();
  });

  it('holds an event no longer than maxHoldMs when the overload goes on', async () => {
    const { bus, published } = recordingBus();
    let checks = 0;
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, maxHoldMs: 150, holdWhile: () => (checks++, true) });
    events.emit(event(1));
    await until(() => published.length >= 1);
    expect(published).toEqual(['e1']);
    expect(checks).toBeGreaterThan(0);
    await events.close();
  });

  it('never holds with durability ack: the caller is waiting for the publication', async () => {
    const { bus, published } = recordingBus();
    const events = new CallEventPublisher(bus, { durability: 'ack', ackTimeoutMs: 600_000, maxHoldMs: 600_000, holdWhile: () => true });
    await events.record(event(5));
    expect(published).toEqual(['e5']);
    await events.close();
  });
});
