/** InProcessBus behaviour the shared contract cannot check portably (timing knobs, memory bounds). */
import { InProcessBus, type EventMessage } from '../src/index';
import { bytes, eventually, text, uniqueToken } from '../src/testing';

const subjectFor = (name: string): string => `toolhub.v1.events.unit.${uniqueToken()}.${name}`;

describe('InProcessBus', () => {
  let bus: InProcessBus;
  afterEach(async () => {
    await bus?.close();
  });

  it('a sender that reuses its buffer after publish does not change what was delivered', async () => {
    bus = new InProcessBus();
    const received: string[] = [];
    await bus.subscribe('buf.reuse', (m) => void received.push(text(m.data)));
    const buffer = bytes('first');
    bus.publish('buf.reuse', buffer);
    buffer.set(bytes('XXXXX'));
    await eventually(() => received.length === 1, 'delivery');
    expect(received).toEqual(['first']);
  });

  it('queue group members take turns (round-robin)', async () => {
    bus = new InProcessBus();
    const order: string[] = [];
    await bus.serve('rr.work', () => (order.push('a'), { data: bytes(''), headers: {} }), { queue: 'g' });
    await bus.serve('rr.work', () => (order.push('b'), { data: bytes(''), headers: {} }), { queue: 'g' });
    for (let i = 0; i < 4; i++) await bus.request('rr.work', bytes(''), { timeoutMs: 500 });
    expect(order).toEqual(['a', 'b', 'a', 'b']);
  });

  it('a subscription made or closed after a subject was routed is seen by the next message (remembered routes are renewed)', async () => {
    bus = new InProcessBus();
    const got: string[] = [];
    const first = await bus.subscribe('routes.renew', (m) => void got.push(`first:${text(m.data)}`));
    bus.publish('routes.renew', bytes('1'));
    await eventually(() => got.length === 1, 'the first delivery');
    await bus.subscribe('routes.*', (m) => void got.push(`wild:${text(m.data)}`));
    bus.publish('routes.renew', bytes('2'));
    await eventually(() => got.length === 3, 'both subscribers');
    await first.close();
    bus.publish('routes.renew', bytes('3'));
    await eventually(() => got.length === 4, 'the remaining subscriber');
    expect(got.sort()).toEqual(['first:1', 'first:2', 'wild:2', 'wild:3']);
  });

  it('a subscribe handler that throws is reported through onError and later messages still arrive', async () => {
    const errors: string[] = [];
    bus = new InProcessBus({ onError: (err, ctx) => errors.push(`${ctx.kind}:${ctx.source}:${(err as Error).message}`) });
    const seen: string[] = [];
    await bus.subscribe('err.sub', (m) => {
      if (text(m.data) === 'bad') throw new Error('nope');
      seen.push(text(m.data));
    });
    bus.publish('err.sub', bytes('bad'));
    bus.publish('err.sub', bytes('good'));
    await eventually(() => seen.length === 1, 'the good message');
    expect(errors).toEqual(['subscribe:err.sub:nope']);
  });

  it('a serve handler that returns no reply answers with an internal error', async () => {
    bus = new InProcessBus();
    await bus.serve('bad.reply', () => undefined as never);
    const reply = await bus.request('bad.reply', bytes(''), { timeoutMs: 500 });
    expect(reply.headers['Nats-Service-Error-Code']).toBe('internal');
  });

  it('close() fails a request still waiting for an answer with closed', async () => {
    bus = new InProcessBus();
    await bus.subscribe('never.answered', () => undefined);
    const pending = bus.request('never.answered', bytes(''), { timeoutMs: 10_000 });
    await bus.close();
    await expect(pending).rejects.toMatchObject({ code: 'closed' });
  });

  it('the same msgId is stored again once the duplicate window has passed', async () => {
    bus = new InProcessBus({ duplicateWindowMs: 50 });
    const subject = subjectFor('window');
    await bus.publishEvent(subject, bytes('1'), { msgId: 'id' });
    await bus.publishEvent(subject, bytes('2'), { msgId: 'id' });
    await new Promise((r) => setTimeout(r, 80));
    await bus.publishEvent(subject, bytes('3'), { msgId: 'id' });
    const seen: string[] = [];
    await bus.consumeEvents({ durable: 'w', filterSubjects: [subject], handler: async (b) => void seen.push(...b.map((e) => text(e.data))) });
    await eventually(() => seen.length === 2, 'two stored events');
    expect(seen).toEqual(['1', '3']);
  });

  it('beyond maxEvents the oldest events are dropped, and new durables start at the oldest kept', async () => {
    bus = new InProcessBus({ maxEvents: 3 });
    const subject = subjectFor('bounded');
    for (let i = 1; i <= 5; i++) await bus.publishEvent(subject, bytes(String(i)), { msgId: String(i) });
    const seen: string[] = [];
    await bus.consumeEvents({ durable: 'b', filterSubjects: [subject], handler: async (b) => void seen.push(...b.map((e) => text(e.data))) });
    await eventually(() => seen.length === 3, 'three kept events');
    expect(seen).toEqual(['3', '4', '5']);
  });

  it('an event a durable has not acknowledged is never discarded: beyond maxEvents publishEvent fails until the consumer catches up', async () => {
    bus = new InProcessBus({ maxEvents: 3, maxAckedEvents: 0, redeliveryDelayMs: 20 });
    const subject = subjectFor('unacked');
    let acceptFirst = false;
    const counted: string[] = [];
    await bus.consumeEvents({
      durable: 'stats',
      filterSubjects: [subject],
      maxBatch: 1,
      handler: async (batch) => {
        const body = text(batch[0]!.data);
        if (body === '1' && !acceptFirst) throw new Error('store unavailable');
        counted.push(body);
      },
    });
    await bus.publishEvent(subject, bytes('1'), { msgId: '1' });
    await bus.publishEvent(subject, bytes('2'), { msgId: '2' });
    await bus.publishEvent(subject, bytes('3'), { msgId: '3' });
    await eventually(() => counted.length === 2, 'events 2 and 3 counted while 1 keeps failing');
    // 2 and 3 are acknowledged, but 1 is not and must stay: the stream is full.
    await expect(bus.publishEvent(subject, bytes('4'), { msgId: '4' })).rejects.toMatchObject({ name: 'BusError', code: 'publish_failed' });
    acceptFirst = true;
    await eventually(() => counted.includes('1'), 'event 1 redelivered and counted');
    await bus.publishEvent(subject, bytes('4'), { msgId: '4' });
    await eventually(() => counted.length === 4, 'event 4 counted');
    expect(counted).toEqual(['2', '3', '1', '4']);
  });

  it('a durable whose consumer closed does not hold events back: beyond maxEvents the oldest go and publishing goes on', async () => {
    bus = new InProcessBus({ maxEvents: 3 });
    const subject = subjectFor('abandoned');
    const consumer = await bus.consumeEvents({ durable: 'gone', filterSubjects: [subject], handler: async () => { throw new Error('never acknowledges'); } });
    await bus.publishEvent(subject, bytes('1'), { msgId: '1' });
    await consumer.close();
    for (let i = 2; i <= 6; i++) await bus.publishEvent(subject, bytes(String(i)), { msgId: String(i) });
    const resumed: string[] = [];
    await bus.consumeEvents({ durable: 'gone', filterSubjects: [subject], handler: async (b) => void resumed.push(...b.map((e) => text(e.data))) });
    await eventually(() => resumed.length === 3, 'the newest three events');
    expect(resumed).toEqual(['4', '5', '6']);
  });

  it('with maxAckedEvents 0 acknowledged events are discarded at once, so a durable created later starts after them', async () => {
    bus = new InProcessBus({ maxAckedEvents: 0 });
    const subject = subjectFor('acked');
    const first: string[] = [];
    await bus.consumeEvents({ durable: 'first', filterSubjects: [subject], handler: async (b) => void first.push(...b.map((e) => text(e.data))) });
    for (let i = 1; i <= 3; i++) await bus.publishEvent(subject, bytes(String(i)), { msgId: String(i) });
    await eventually(() => first.length === 3, 'three events acknowledged');
    const later: string[] = [];
    await bus.consumeEvents({ durable: 'later', filterSubjects: [subject], handler: async (b) => void later.push(...b.map((e) => text(e.data))) });
    await bus.publishEvent(subject, bytes('4'), { msgId: '4' });
    await eventually(() => later.length === 1 && first.length === 4, 'event 4 reaches both durables');
    expect(later).toEqual(['4']);
  });

  it('by default acknowledged events are kept up to maxEvents, so a durable created later still gets them', async () => {
    bus = new InProcessBus({ maxEvents: 10 });
    const subject = subjectFor('kept');
    const first: string[] = [];
    await bus.consumeEvents({ durable: 'first', filterSubjects: [subject], handler: async (b) => void first.push(...b.map((e) => text(e.data))) });
    for (let i = 1; i <= 3; i++) await bus.publishEvent(subject, bytes(String(i)), { msgId: String(i) });
    await eventually(() => first.length === 3, 'three events acknowledged');
    const later: string[] = [];
    await bus.consumeEvents({ durable: 'later', filterSubjects: [subject], handler: async (b) => void later.push(...b.map((e) => text(e.data))) });
    await eventually(() => later.length === 3, 'the kept events');
    expect(later).toEqual(['1', '2', '3']);
  });

  it('a msgId published again after its event was discarded is still refused within the duplicate window', async () => {
    bus = new InProcessBus({ maxAckedEvents: 0 });
    const subject = subjectFor('dup-after-ack');
    const seen: string[] = [];
    await bus.consumeEvents({ durable: 'd', filterSubjects: [subject], handler: async (b) => void seen.push(...b.map((e) => text(e.data))) });
    await bus.publishEvent(subject, bytes('a'), { msgId: 'same' });
    await eventually(() => seen.length === 1, 'first delivery');
    await bus.publishEvent(subject, bytes('b'), { msgId: 'same' });
    await bus.publishEvent(subject, bytes('c'), { msgId: 'other' });
    await eventually(() => seen.length === 2, 'the other event');
    expect(seen).toEqual(['a', 'c']);
  });

  it('an event whose handler hangs past maxWorkMs goes to another consumer of the same durable', async () => {
    bus = new InProcessBus();
    const subject = subjectFor('ackwait');
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const slow: EventMessage[] = [];
    const fast: EventMessage[] = [];
    await bus.consumeEvents({
      durable: 'shared',
      filterSubjects: [subject],
      ackWaitMs: 1000,
      maxWorkMs: 1500, // kept "in progress" this long, then given up
      handler: async (batch) => {
        slow.push(...batch);
        await stuck;
      },
    });
    await bus.publishEvent(subject, bytes('e'), { msgId: 'e' });
    await eventually(() => slow.length === 1, 'the first delivery');
    await bus.consumeEvents({ durable: 'shared', filterSubjects: [subject], ackWaitMs: 1000, handler: async (b) => void fast.push(...b) });
    await eventually(() => fast.length === 1, 'redelivery after maxWorkMs', 6000);
    expect(fast[0]?.deliveryCount).toBe(2);
    release();
  });

  it('a handler slower than ackWait keeps its event from another consumer of the durable while it works', async () => {
    bus = new InProcessBus();
    const subject = subjectFor('inprogress');
    const slow: EventMessage[] = [];
    const fast: EventMessage[] = [];
    let finished = false;
    await bus.consumeEvents({
      durable: 'busy',
      filterSubjects: [subject],
      ackWaitMs: 1000, // maxWorkMs defaults to 10 s
      handler: async (batch) => {
        slow.push(...batch);
        await new Promise((r) => setTimeout(r, 3500));
        finished = true;
      },
    });
    await bus.publishEvent(subject, bytes('w'), { msgId: 'w' });
    await eventually(() => slow.length === 1, 'the first delivery');
    await bus.consumeEvents({ durable: 'busy', filterSubjects: [subject], ackWaitMs: 1000, handler: async (b) => void fast.push(...b) });
    await eventually(() => finished, 'the slow handler to finish', 10_000);
    await new Promise((r) => setTimeout(r, 1500)); // past another ack wait: a redelivery would have come
    expect(fast).toEqual([]);
    expect(slow).toHaveLength(1);
  });

  it('the redelivery delay after a failure grows with each failed delivery', async () => {
    bus = new InProcessBus({ redeliveryDelayMs: 40 });
    const subject = subjectFor('backoff');
    await bus.publishEvent(subject, bytes('x'), { msgId: 'x' });
    const times: number[] = [];
    await bus.consumeEvents({
      durable: 'backoff',
      filterSubjects: [subject],
      handler: async () => {
        times.push(Date.now());
        if (times.length < 4) throw new Error('again');
      },
    });
    await eventually(() => times.length === 4, 'four deliveries');
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps[0]).toBeGreaterThanOrEqual(35); // 40 ms
    expect(gaps[1]).toBeGreaterThanOrEqual(75); // 80 ms
    expect(gaps[2]).toBeGreaterThanOrEqual(155); // 160 ms
  });

  it('closing a consumer waits for its batch in progress, which is then acknowledged', async () => {
    bus = new InProcessBus();
    const subject = subjectFor('close');
    await bus.publishEvent(subject, bytes('1'), { msgId: '1' });
    let finished = false;
    let started = false;
    const consumer = await bus.consumeEvents({
      durable: 'closing',
      filterSubjects: [subject],
      handler: async () => {
        started = true;
        await new Promise((r) => setTimeout(r, 100));
        finished = true;
      },
    });
    await eventually(() => started, 'the batch to start');
    await consumer.close();
    expect(finished).toBe(true);
    const again: string[] = [];
    await bus.consumeEvents({ durable: 'closing', filterSubjects: [subject], handler: async (b) => void again.push(...b.map((e) => text(e.data))) });
    await new Promise((r) => setTimeout(r, 50));
    expect(again).toEqual([]);
  });

  it('rejects a non-positive maxPayload at construction', () => {
    expect(() => new InProcessBus({ maxPayload: 0 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('rejects a non-positive maxEvents and a negative maxAckedEvents at construction', () => {
    expect(() => new InProcessBus({ maxEvents: 0 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => new InProcessBus({ maxAckedEvents: -1 })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
