/**
 * Contract tests for durable events: storage, de-duplication, at-least-once delivery, durable
 * progress. Subjects live under `toolhub.v1.events.contract.<unique>` so tests sharing one stream
 * (a real server) never see each other's events.
 */
import { type EventConsumer, type EventMessage } from '../bus';
import { type ContractContext } from './messaging';
import { bytes, eventually, failureCode, sleep, text, uniqueToken } from './support';

/** Collects what a consumer was given; `fail` makes the next N batches throw. */
function recorder(): { seen: EventMessage[]; done: EventMessage[]; failNext: number; handler: (b: EventMessage[]) => Promise<void> } {
  const r = {
    seen: [] as EventMessage[],
    done: [] as EventMessage[],
    failNext: 0,
    handler: async (batch: EventMessage[]): Promise<void> => {
      r.seen.push(...batch);
      if (r.failNext > 0) {
        r.failNext--;
        throw new Error('handler failed on purpose');
      }
      r.done.push(...batch);
    },
  };
  return r;
}

export function eventsContract(ctx: ContractContext): void {
  describe('durable events', () => {
    const consumers: EventConsumer[] = [];
    afterEach(async () => {
      await Promise.allSettled(consumers.splice(0).map((c) => c.close()));
    });
    const root = (): string => `toolhub.v1.events.contract.${uniqueToken()}`;

    it('a durable consumer receives each published event once, in publish order, with its metadata', async () => {
      const subject = `${root()}.called`;
      const publisher = await ctx.other();
      for (let i = 1; i <= 5; i++) {
        await publisher.publishEvent(subject, bytes(`e${i}`), { msgId: `${subject}-${i}`, headers: { 'x-n': String(i) } });
      }
      const rec = recorder();
      consumers.push(await ctx.bus().consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler: rec.handler }));
      await eventually(() => rec.done.length >= 5, 'five events');
      await sleep(150);
      expect(rec.done.map((e) => text(e.data))).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
      expect(rec.done.map((e) => e.msgId)).toEqual([1, 2, 3, 4, 5].map((i) => `${subject}-${i}`));
      expect(rec.done.every((e) => e.deliveryCount === 1 && e.subject === subject)).toBe(true);
      expect(rec.done.map((e) => e.headers['x-n'])).toEqual(['1', '2', '3', '4', '5']);
      const seqs = rec.done.map((e) => e.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(5);
    });

    it('events published while the consumer runs are delivered too', async () => {
      const subject = `${root()}.live`;
      const rec = recorder();
      consumers.push(await ctx.bus().consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler: rec.handler }));
      const publisher = await ctx.other();
      await publisher.publishEvent(subject, bytes('late-1'), { msgId: `${subject}-1` });
      await eventually(() => rec.done.length === 1, 'the first live event');
      await publisher.publishEvent(subject, bytes('late-2'), { msgId: `${subject}-2` });
      await eventually(() => rec.done.length === 2, 'the second live event');
      expect(rec.done.map((e) => text(e.data))).toEqual(['late-1', 'late-2']);
    });

    it('a stored event also reaches plain subscribers of its subject, on every connection', async () => {
      const subject = `${root()}.fanout`;
      const got: string[] = [];
      const a = await ctx.bus().subscribe(subject, (m) => void got.push(`a:${text(m.data)}`));
      const b = await (await ctx.other()).subscribe(subject, (m) => void got.push(`b:${text(m.data)}`));
      try {
        await ctx.bus().publishEvent(subject, bytes('evicted'), { msgId: `${subject}-1` });
        await eventually(() => got.length >= 2, 'both subscribers');
        expect(got.sort()).toEqual(['a:evicted', 'b:evicted']);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('an event published twice with the same msgId is stored and delivered once', async () => {
      const subject = `${root()}.dup`;
      const bus = ctx.bus();
      // Ids unique to this subject: the stream de-duplicates across every subject of its window.
      await bus.publishEvent(subject, bytes('first'), { msgId: `${subject}-same` });
      await bus.publishEvent(subject, bytes('retry'), { msgId: `${subject}-same` });
      await bus.publishEvent(subject, bytes('other'), { msgId: `${subject}-other` });
      const rec = recorder();
      consumers.push(await bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler: rec.handler }));
      await eventually(() => rec.done.length >= 2, 'two events');
      await sleep(150);
      expect(rec.done.map((e) => text(e.data))).toEqual(['first', 'other']);
    });

    it('a batch whose handler throws is delivered again with a higher deliveryCount, and nothing is lost', async () => {
      const subject = `${root()}.retry`;
      for (let i = 1; i <= 3; i++) await ctx.bus().publishEvent(subject, bytes(`r${i}`), { msgId: `${subject}-${i}` });
      const rec = recorder();
      rec.failNext = 1;
      consumers.push(await ctx.bus().consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler: rec.handler }));
      await eventually(() => new Set(rec.done.map((e) => e.msgId)).size === 3, 'all three events to be processed', 10_000);
      expect(rec.seen.length).toBeGreaterThan(rec.done.length);
      expect(rec.done.some((e) => e.deliveryCount > 1)).toBe(true);
      expect([...new Set(rec.done.map((e) => text(e.data)))].sort()).toEqual(['r1', 'r2', 'r3']);
    });

    it('a consumer reopened under the same durable name resumes after what it acknowledged', async () => {
      const subject = `${root()}.resume`;
      const durable = uniqueToken();
      const bus = ctx.bus();
      for (let i = 1; i <= 3; i++) await bus.publishEvent(subject, bytes(`a${i}`), { msgId: `${subject}-a${i}` });
      const first = recorder();
      const c1 = await bus.consumeEvents({ durable, filterSubjects: [subject], handler: first.handler });
      await eventually(() => first.done.length === 3, 'the first three events');
      await c1.close();
      for (let i = 4; i <= 5; i++) await bus.publishEvent(subject, bytes(`a${i}`), { msgId: `${subject}-a${i}` });
      // Reopen from another connection: progress belongs to the durable name, not to a client.
      const second = recorder();
      consumers.push(await (await ctx.other()).consumeEvents({ durable, filterSubjects: [subject], handler: second.handler }));
      await eventually(() => second.done.length >= 2, 'the two new events');
      await sleep(200);
      expect(first.done.map((e) => text(e.data))).toEqual(['a1', 'a2', 'a3']);
      expect(second.done.map((e) => text(e.data))).toEqual(['a4', 'a5']);
    });

    it('a consumer with several filter subjects receives the events of each, and only those', async () => {
      const base = root();
      const bus = ctx.bus();
      await bus.publishEvent(`${base}.a.one`, bytes('a1'), { msgId: `${base}-a1` });
      await bus.publishEvent(`${base}.c.one`, bytes('c1'), { msgId: `${base}-c1` });
      await bus.publishEvent(`${base}.b.one`, bytes('b1'), { msgId: `${base}-b1` });
      await bus.publishEvent(`${base}.a.two`, bytes('a2'), { msgId: `${base}-a2` });
      const rec = recorder();
      consumers.push(await bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [`${base}.a.*`, `${base}.b.*`], handler: rec.handler }));
      await eventually(() => rec.done.length >= 3, 'three matching events');
      await sleep(150);
      expect(rec.done.map((e) => text(e.data))).toEqual(['a1', 'b1', 'a2']);
    });

    it('small batches: maxBatch bounds how many events one handler call receives', async () => {
      const subject = `${root()}.batch`;
      for (let i = 1; i <= 7; i++) await ctx.bus().publishEvent(subject, bytes(`b${i}`), { msgId: `${subject}-${i}` });
      const sizes: number[] = [];
      const rec = recorder();
      const handler = async (batch: EventMessage[]): Promise<void> => {
        sizes.push(batch.length);
        await rec.handler(batch);
      };
      consumers.push(await ctx.bus().consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler, maxBatch: 3 }));
      await eventually(() => rec.done.length === 7, 'seven events');
      expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
      expect(rec.done.map((e) => text(e.data))).toEqual(['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7']);
    });

    it('lingerMs: events arriving one by one reach the handler as one batch', async () => {
      const subject = `${root()}.linger`;
      const sizes: number[] = [];
      const rec = recorder();
      const handler = async (batch: EventMessage[]): Promise<void> => {
        sizes.push(batch.length);
        await rec.handler(batch);
      };
      // The linger is far longer than publishing four events takes, even on a loaded machine.
      consumers.push(await ctx.bus().consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler, maxBatch: 100, lingerMs: 2000 }));
      for (let i = 1; i <= 4; i++) await ctx.bus().publishEvent(subject, bytes(`l${i}`), { msgId: `${subject}-${i}` });
      await eventually(() => rec.done.length === 4, 'four events');
      expect(sizes).toEqual([4]);
      expect(rec.done.map((e) => text(e.data))).toEqual(['l1', 'l2', 'l3', 'l4']);
    });

    it('lingerMs: a full batch already waiting does not linger (a backlog drains at full speed)', async () => {
      const subject = `${root()}.full`;
      const rec = recorder();
      for (let i = 1; i <= 7; i++) await ctx.bus().publishEvent(subject, bytes(`f${i}`), { msgId: `${subject}-${i}` });
      // A linger longer than `eventually` waits: only full batches may skip it, so the two full
      // batches arrive and the seventh event, a partial batch, is still lingering.
      consumers.push(await ctx.bus().consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler: rec.handler, maxBatch: 3, lingerMs: 7500 }));
      await eventually(() => rec.done.length === 6, 'two full batches');
      expect(rec.done.map((e) => text(e.data))).toEqual(['f1', 'f2', 'f3', 'f4', 'f5', 'f6']);
    });

    it('publishEvent on a subject outside the events stream fails with publish_failed', async () => {
      expect(await failureCode(() => ctx.bus().publishEvent(`contract.${uniqueToken()}.nowhere`, bytes(''), { msgId: 'x' }))).toBe(
        'publish_failed',
      );
    });

    it('a handler slower than ackWaitMs keeps its events: none is delivered again behind it', async () => {
      const bus = ctx.bus();
      const subject = `${root()}.slow`;
      const seen: EventMessage[] = [];
      let calls = 0;
      // ackWait 2 s, the first batch takes 6 s: without "in progress" the broker redelivers after 2 s.
      const handler = async (batch: EventMessage[]): Promise<void> => {
        seen.push(...batch);
        if (calls++ === 0) await sleep(6000);
      };
      consumers.push(await bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler, ackWaitMs: 2000 }));
      for (const id of ['s1', 's2', 's3']) await bus.publishEvent(subject, bytes(id), { msgId: `${subject}-${id}` });
      await eventually(() => seen.length >= 3, 'the first deliveries', 10_000);
      await sleep(9000); // the slow batch is done, and anything redelivered would have arrived
      expect(seen.map((m) => [text(m.data), m.deliveryCount])).toEqual(
        expect.arrayContaining([
          ['s1', 1],
          ['s2', 1],
          ['s3', 1],
        ]),
      );
      expect(seen).toHaveLength(3);
    }, 30_000);

    it('bad consumer options are refused with invalid_argument', async () => {
      const bus = ctx.bus();
      const handler = async (): Promise<void> => undefined;
      const subject = `${root()}.opts`;
      expect(await failureCode(() => bus.consumeEvents({ durable: 'has.dot', filterSubjects: [subject], handler }))).toBe('invalid_argument');
      expect(await failureCode(() => bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [], handler }))).toBe('invalid_argument');
      expect(await failureCode(() => bus.consumeEvents({ durable: uniqueToken(), filterSubjects: ['other.>'], handler }))).toBe(
        'invalid_argument',
      );
      expect(await failureCode(() => bus.publishEvent(subject, bytes(''), { msgId: '' }))).toBe('invalid_argument');
      expect(await failureCode(() => bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler, lingerMs: 20_000 }))).toBe('invalid_argument');
      expect(await failureCode(() => bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [subject], handler, maxWorkMs: -1 }))).toBe('invalid_argument');
    });
  });
}
