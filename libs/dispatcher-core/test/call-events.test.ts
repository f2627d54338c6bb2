/** tool.called events: published in batches after the call, retried until stored, never in the call's way. */
import { type Bus, InProcessBus } from '@toolhub/bus';
import { decodeToolCalledMessage, type ToolCalled } from '@toolhub/contracts';

import { CallEventPublisher } from '../src';
import { waitFor } from '@toolhub/test-harness';

const event = (n: number, provider = 'local'): ToolCalled => ({
  eventId: `e${n}`,
  toolId: `${provider}:noop`,
  provider,
  name: 'noop',
  status: 'ok',
  errorCode: 0,
  latencyMs: 1,
  attempts: 1,
  fallbackUsed: '',
  caller: '',
  timestampUnixMs: 0,
  searchId: '',
  claimGroup: '',
});

/** A bus that records publishEvent calls (the event ids, and each message) and fails the first `failures` of them. */
function recordingBus(failures = 0): { bus: Bus; published: string[]; messages: Array<{ subject: string; msgId: string; ids: string[] }>; calls: () => number } {
  const inner = new InProcessBus();
  const published: string[] = [];
  const messages: Array<{ subject: string; msgId: string; ids: string[] }> = [];
  let calls = 0;
  const bus = Object.create(inner) as Bus;
  bus.publishEvent = async (subject, data, options) => {
    calls++;
    if (calls <= failures) throw new Error('stream busy');
    const ids = decodeToolCalledMessage(subject, data).map((e) => e.eventId);
    published.push(...ids);
    messages.push({ subject, msgId: options.msgId, ids });
    return inner.publishEvent(subject, data, options);
  };
  return { bus, published, messages, calls: () => calls };
}

/**
 * A bus whose first publishEvent waits until `release(error)` and then fails with it, having stored
 * the message first when `storeFirst` (an acknowledgement lost on the way back). Records every
 * attempt, and the event ids the stream delivers (a duplicate message id is stored only once).
 */
function heldBus(options: { storeFirst?: boolean } = {}): { bus: Bus; attempts: Array<{ msgId: string; ids: string[] }>; stored: string[]; release: (error: Error) => void } {
  const inner = new InProcessBus();
  const attempts: Array<{ msgId: string; ids: string[] }> = [];
  const stored: string[] = [];
  void inner.subscribe('toolhub.v1.events.tool.called.>', (msg) => void stored.push(...decodeToolCalledMessage(msg.subject, msg.data).map((e) => e.eventId)));
  let release: (error: Error) => void = () => undefined;
  const held = new Promise<Error>((resolve) => (release = resolve));
  const bus = Object.create(inner) as Bus;
  bus.publishEvent = async (subject, data, opts) => {
    attempts.push({ msgId: opts.msgId, ids: decodeToolCalledMessage(subject, data).map((e) => e.eventId) });
    if (attempts.length === 1) {
      if (options.storeFirst) await inner.publishEvent(subject, data, opts);
      throw await held;
    }
    return inner.publishEvent(subject, data, opts);
  };
  return { bus, attempts, stored, release: (error) => release(error) };
}

/** Waits until `done()` holds (polling), so the tests do not depend on how fast a busy machine runs timers. */
async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  await waitFor(done, { timeoutMs, intervalMs: 5 });
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

  it("sends each provider's events of a batch together, in messages of at most eventsPerMessage", async () => {
    const { bus, published, messages } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 10, eventsPerMessage: 2 });
    for (let i = 0; i < 5; i++) events.emit(event(i, i % 2 === 0 ? 'local' : 'mcp'));
    await until(() => published.length >= 5);
    expect(messages).toEqual([
      { subject: 'toolhub.v1.events.tool.called.batch.local', msgId: expect.stringMatching(/^batch-/), ids: ['e0', 'e2'] },
      { subject: 'toolhub.v1.events.tool.called.local', msgId: 'e4', ids: ['e4'] },
      { subject: 'toolhub.v1.events.tool.called.batch.mcp', msgId: expect.stringMatching(/^batch-/), ids: ['e1', 'e3'] },
    ]);
    expect(events.published).toBe(5);
    await events.close();
  });

  it("publishes a full message's worth at once instead of waiting out the batch window", async () => {
    const { bus, messages } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 600_000, eventsPerMessage: 2 });
    events.emit(event(0));
    events.emit(event(1));
    events.emit(event(2));
    // Two pending make a full message: the next turn publishes everything pending, e2 included.
    await until(() => messages.length >= 2);
    expect(messages.map((m) => m.ids)).toEqual([['e0', 'e1'], ['e2']]);
    expect(events.backlog).toBe(0);
    await events.close();
  });

  it('sends one message per event with eventsPerMessage 1 (for registries that read single events only)', async () => {
    const { bus, messages } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 10, eventsPerMessage: 1 });
    for (let i = 0; i < 3; i++) events.emit(event(i));
    await until(() => messages.length >= 3);
    expect(messages).toEqual([0, 1, 2].map((i) => ({ subject: 'toolhub.v1.events.tool.called.local', msgId: `e${i}`, ids: [`e${i}`] })));
    await events.close();
    expect(() => new CallEventPublisher(bus, { eventsPerMessage: 0 })).toThrow(/eventsPerMessage must be an integer from 1 to 1024/);
  });

  it('keeps the events of a refused batch message and stores them all on a later attempt', async () => {
    const { bus, published, messages } = recordingBus(1);
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, retryDelayMs: 5 });
    for (let i = 0; i < 4; i++) events.emit(event(i));
    await until(() => published.length >= 4);
    expect(messages).toEqual([{ subject: 'toolhub.v1.events.tool.called.batch.local', msgId: expect.stringMatching(/^batch-/), ids: ['e0', 'e1', 'e2', 'e3'] }]);
    expect(events.published).toBe(4);
    expect(events.backlog).toBe(0);
    await events.close();
  });

  it('retries a refused message as it was formed, not regrouped with events that came meanwhile', async () => {
    const { bus, attempts, release } = heldBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, retryDelayMs: 5 });
    for (let i = 0; i < 3; i++) events.emit(event(i));
    await until(() => attempts.length >= 1);
    // The first message is in flight; two more events finish before it is refused.
    events.emit(event(3));
    events.emit(event(4));
    release(new Error('stream busy'));
    await until(() => events.published >= 5);
    expect(attempts.map((a) => a.ids)).toEqual([
      ['e0', 'e1', 'e2'],
      ['e0', 'e1', 'e2'],
      ['e3', 'e4'],
    ]);
    expect(attempts[1]!.msgId).toBe(attempts[0]!.msgId);
    expect(events.backlog).toBe(0);
    await events.close();
  });

  it('stores each event once when an acknowledgement was lost: the retry has the same message id, which the stream drops', async () => {
    const { bus, attempts, release, stored } = heldBus({ storeFirst: true });
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, retryDelayMs: 5 });
    for (let i = 0; i < 3; i++) events.emit(event(i));
    await until(() => attempts.length >= 1);
    events.emit(event(3));
    release(new Error('timed out waiting for the acknowledgement'));
    // e3 goes out after the retry, and a subscription gets messages in order: once e3 is in, a
    // duplicate of the first message would be too.
    await until(() => stored.includes('e3'));
    expect(attempts).toHaveLength(3);
    expect(stored.sort()).toEqual(['e0', 'e1', 'e2', 'e3']);
    await events.close();
  });

  it('past maxPending drops a refused message whole, never part of it', async () => {
    const { bus, attempts, release } = heldBus();
    const errors: unknown[] = [];
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, retryDelayMs: 600_000, maxPending: 4, onError: (e) => errors.push(e) });
    for (let i = 0; i < 3; i++) events.emit(event(i));
    await until(() => attempts.length >= 1);
    events.emit(event(3));
    release(new Error('stream busy'));
    await until(() => errors.length >= 1);
    expect(events.backlog).toBe(4);
    events.emit(event(4));
    expect(events.dropped).toBe(3);
    expect(events.backlog).toBe(2);
    expect(await events.close()).toBe(0);
    expect(attempts.map((a) => a.ids)).toEqual([
      ['e0', 'e1', 'e2'],
      ['e3', 'e4'],
    ]);
  });

  it('with claimGroups stamps each event with its provider\'s claim group and sends a group as one message on tool.called.grouped', async () => {
    const { bus, messages } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, eventsPerMessage: 3, claimGroups: true });
    const recorded = [0, 1, 2, 3, 4].map((i) => event(i, i === 4 ? 'mcp' : 'local'));
    for (const e of recorded) events.emit(e);
    await until(() => events.published >= 5);
    const groups = recorded.map((e) => e.claimGroup);
    expect(groups.every((g) => /^\d{13}-[A-Za-z0-9_-]+-\d+$/.test(g))).toBe(true);
    // Three local events fill a group; the fourth opens the next; mcp has its own.
    expect(new Set(groups).size).toBe(3);
    expect(groups[0]).toBe(groups[2]);
    expect(groups[3]).not.toBe(groups[0]);
    expect(messages.map((m) => [m.subject, m.ids])).toEqual(
      expect.arrayContaining([
        ['toolhub.v1.events.tool.called.grouped.local', ['e0', 'e1', 'e2']],
        ['toolhub.v1.events.tool.called.grouped.local', ['e3']],
        ['toolhub.v1.events.tool.called.grouped.mcp', ['e4']],
      ]),
    );
    expect(messages).toHaveLength(3);
    expect(messages.every((m) => /^group-/.test(m.msgId))).toBe(true);
    await events.close();
  });

  it('with claimGroups starts new groups once the pending events are taken, so a group is not spread over rounds', async () => {
    const { bus, messages } = recordingBus();
    const events = new CallEventPublisher(bus, { batchDelayMs: 1, eventsPerMessage: 16, claimGroups: true });
    const first = event(1);
    events.emit(first);
    await until(() => events.published >= 1);
    const second = event(2);
    events.emit(second);
    await until(() => events.published >= 2);
    expect(second.claimGroup).not.toBe(first.claimGroup);
    expect(messages.map((m) => m.ids)).toEqual([['e1'], ['e2']]);
    await events.close();
  });

  it('resolves each call of a batch message with durability ack once the message is stored', async () => {
    const { bus, messages } = recordingBus();
    const events = new CallEventPublisher(bus, { durability: 'ack', ackTimeoutMs: 600_000, batchDelayMs: 5 });
    // The first flushes at once (its caller waits); the next two wait behind it and go together.
    await Promise.all([events.record(event(1)), events.record(event(2)), events.record(event(3))]);
    expect(messages.flatMap((m) => m.ids).sort()).toEqual(['e1', 'e2', 'e3']);
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
