/**
 * Contract tests for request/reply and publish/subscribe. Registered inside the describe block of
 * {@link busContractSuite}; `ctx` gives the bus of the current test and a second connection.
 */
import { HEADER_ERROR, HEADER_ERROR_CODE } from '@toolhub/contracts';

import { type Bus, type BusMessage } from '../bus';
import { bytes, eventually, failureCode, sleep, text, uniqueToken } from './support';

export interface ContractContext {
  /** The bus under test. */
  bus(): Bus;
  /** A second connection to the same broker (or the same bus when the implementation has no peers). */
  other(): Promise<Bus>;
}

export function messagingContract(ctx: ContractContext): void {
  describe('request/reply', () => {
    it('a request is answered by the service, with headers travelling both ways', async () => {
      const subject = `contract.${uniqueToken()}.echo`;
      const server = await ctx.other();
      await server.serve(subject, (msg) => ({
        data: bytes(text(msg.data).toUpperCase()),
        headers: { 'x-echo': msg.headers['x-trace'] ?? 'missing' },
      }));
      const reply = await ctx.bus().request(subject, bytes('hello'), { timeoutMs: 2000, headers: { 'x-trace': 'abc' } });
      expect(text(reply.data)).toBe('HELLO');
      expect(reply.headers['x-echo']).toBe('abc');
    });

    it('a request nobody serves fails fast with no_responders instead of waiting for the timeout', async () => {
      const started = Date.now();
      const code = await failureCode(() => ctx.bus().request(`contract.${uniqueToken()}.nobody`, bytes('x'), { timeoutMs: 5000 }));
      expect(code).toBe('no_responders');
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('a request that is received but never answered fails with timeout', async () => {
      const subject = `contract.${uniqueToken()}.silent`;
      const listener = await ctx.other();
      await listener.subscribe(subject, () => undefined); // hears the request, must not answer it
      const started = Date.now();
      const code = await failureCode(() => ctx.bus().request(subject, bytes('x'), { timeoutMs: 300 }));
      expect(code).toBe('timeout');
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    });

    it('a service that throws answers with an internal error carried in the NATS service headers', async () => {
      const subject = `contract.${uniqueToken()}.broken`;
      const server = await ctx.other();
      await server.serve(subject, () => {
        throw new Error('disk on fire');
      });
      const reply = await ctx.bus().request(subject, bytes('x'), { timeoutMs: 2000 });
      expect(reply.headers[HEADER_ERROR_CODE]).toBe('internal');
      expect(reply.headers[HEADER_ERROR]).toBe('disk on fire');
    });

    it('replicas in one queue group share the requests and each request is answered exactly once', async () => {
      const subject = `contract.${uniqueToken()}.work`;
      const served = { a: 0, b: 0 };
      const replicaA = await ctx.other();
      const replicaB = await ctx.other();
      await replicaA.serve(subject, () => (served.a++, { data: bytes('a'), headers: {} }), { queue: 'workers' });
      await replicaB.serve(subject, () => (served.b++, { data: bytes('b'), headers: {} }), { queue: 'workers' });
      const n = 40;
      const replies = await Promise.all(
        Array.from({ length: n }, (_, i) => ctx.bus().request(subject, bytes(String(i)), { timeoutMs: 3000 })),
      );
      expect(replies).toHaveLength(n);
      expect(served.a + served.b).toBe(n);
      expect(served.a).toBeGreaterThan(0);
      expect(served.b).toBeGreaterThan(0);
    });

    it('a service on a wildcard subject answers requests for every matching subject', async () => {
      const root = `contract.${uniqueToken()}`;
      const server = await ctx.other();
      await server.serve(`${root}.*.info`, (msg) => ({ data: bytes(msg.subject), headers: {} }));
      const reply = await ctx.bus().request(`${root}.alpha.info`, bytes(''), { timeoutMs: 2000 });
      expect(text(reply.data)).toBe(`${root}.alpha.info`);
      expect(await failureCode(() => ctx.bus().request(`${root}.alpha.beta.info`, bytes(''), { timeoutMs: 2000 }))).toBe(
        'no_responders',
      );
    });

    it('closing a bus lets a request handler already running finish and its reply arrive', async () => {
      const subject = `contract.${uniqueToken()}.slow`;
      const server = ctx.bus();
      let started = false;
      await server.serve(subject, async () => {
        started = true;
        await sleep(200);
        return { data: bytes('done'), headers: {} };
      });
      const client = await ctx.other();
      const pending = client.request(subject, bytes(''), { timeoutMs: 3000 });
      await eventually(() => started, 'the handler to start');
      await server.close();
      expect(text((await pending).data)).toBe('done');
    });
  });

  describe('publish/subscribe', () => {
    it('every plain subscriber receives each message in order, and a queue group receives it once', async () => {
      const subject = `contract.${uniqueToken()}.news`;
      const seenA: string[] = [];
      const seenB: string[] = [];
      const seenQueue: string[] = [];
      const remote = await ctx.other();
      await ctx.bus().subscribe(subject, (m) => void seenA.push(text(m.data)));
      await remote.subscribe(subject, (m) => void seenB.push(text(m.data)));
      await remote.subscribe(subject, (m) => void seenQueue.push(text(m.data)), { queue: 'q' });
      await ctx.bus().subscribe(subject, (m) => void seenQueue.push(text(m.data)), { queue: 'q' });
      const sent = ['1', '2', '3', '4', '5'];
      for (const s of sent) ctx.bus().publish(subject, bytes(s));
      await eventually(() => seenA.length === 5 && seenB.length === 5 && seenQueue.length === 5, 'all deliveries');
      await sleep(100); // nothing extra arrives late
      expect(seenA).toEqual(sent);
      expect(seenB).toEqual(sent);
      expect([...seenQueue].sort()).toEqual(sent);
    });

    it('"*" matches exactly one token and ">" matches one or more trailing tokens', async () => {
      const root = `contract.${uniqueToken()}`;
      const star: string[] = [];
      const tail: string[] = [];
      await ctx.bus().subscribe(`${root}.*.x`, (m) => void star.push(m.subject));
      await ctx.bus().subscribe(`${root}.>`, (m) => void tail.push(m.subject));
      const publisher = await ctx.other();
      for (const s of [`${root}.a.x`, `${root}.a.b.x`, `${root}.a`, `${root}`]) publisher.publish(s, bytes(''));
      await eventually(() => tail.length === 3, '">" to match three subjects');
      await sleep(100);
      expect(star).toEqual([`${root}.a.x`]);
      expect(tail).toEqual([`${root}.a.x`, `${root}.a.b.x`, `${root}.a`]);
    });

    it('a handler that mutates its message does not change what other subscribers receive', async () => {
      const subject = `contract.${uniqueToken()}.shared`;
      const received: string[] = [];
      const mutate = (m: BusMessage): void => {
        m.data.fill(0x21);
        (m.headers as Record<string, string>)['k'] = 'tampered';
      };
      await ctx.bus().subscribe(subject, mutate);
      await ctx.bus().subscribe(subject, async (m) => {
        await sleep(20); // runs after the mutating handler
        received.push(`${text(m.data)}/${m.headers['k']}`);
      });
      (await ctx.other()).publish(subject, bytes('intact'), { k: 'v' });
      await eventually(() => received.length === 1, 'delivery');
      expect(received).toEqual(['intact/v']);
    });

    it('a closed subscription receives nothing more', async () => {
      const subject = `contract.${uniqueToken()}.gone`;
      const seen: string[] = [];
      const sub = await ctx.bus().subscribe(subject, (m) => void seen.push(text(m.data)));
      const publisher = await ctx.other();
      publisher.publish(subject, bytes('before'));
      await eventually(() => seen.length === 1, 'the first message');
      await sub.close();
      publisher.publish(subject, bytes('after'));
      await sleep(150);
      expect(seen).toEqual(['before']);
    });
  });

  describe('limits and lifecycle', () => {
    it('a message larger than maxPayload is refused with payload_too_large', async () => {
      const bus = ctx.bus();
      const subject = `contract.${uniqueToken()}.big`;
      await bus.serve(subject, () => ({ data: bytes('ok'), headers: {} }));
      const tooBig = new Uint8Array(bus.maxPayload + 1);
      expect(bus.maxPayload).toBeGreaterThan(1024);
      expect(await failureCode(() => bus.request(subject, tooBig, { timeoutMs: 1000 }))).toBe('payload_too_large');
      expect(await failureCode(() => bus.publish(subject, tooBig))).toBe('payload_too_large');
      const eventSubject = `toolhub.v1.events.contract.${uniqueToken()}.big`;
      expect(await failureCode(() => bus.publishEvent(eventSubject, tooBig, { msgId: 'big' }))).toBe('payload_too_large');
      // Just under the limit still works (headers count towards it, so leave them room).
      const reply = await bus.request(subject, new Uint8Array(bus.maxPayload - 1024), { timeoutMs: 5000 });
      expect(text(reply.data)).toBe('ok');
    });

    it('malformed subjects are refused with invalid_argument', async () => {
      const bus = ctx.bus();
      expect(await failureCode(() => bus.publish('a.*', bytes('')))).toBe('invalid_argument');
      expect(await failureCode(() => bus.request('a..b', bytes(''), { timeoutMs: 100 }))).toBe('invalid_argument');
      expect(await failureCode(() => bus.subscribe('a.>.b', () => undefined))).toBe('invalid_argument');
      expect(await failureCode(() => bus.serve('', () => ({ data: bytes(''), headers: {} })))).toBe('invalid_argument');
    });

    it('close() can be called twice, and every later call fails with closed', async () => {
      const bus = ctx.bus();
      await bus.close();
      await bus.close();
      const subject = `contract.${uniqueToken()}.after`;
      expect(await failureCode(() => bus.request(subject, bytes(''), { timeoutMs: 100 }))).toBe('closed');
      expect(await failureCode(() => bus.publish(subject, bytes('')))).toBe('closed');
      expect(await failureCode(() => bus.subscribe(subject, () => undefined))).toBe('closed');
      expect(await failureCode(() => bus.serve(subject, () => ({ data: bytes(''), headers: {} })))).toBe('closed');
      const eventSubject = `toolhub.v1.events.contract.${uniqueToken()}.after`;
      expect(await failureCode(() => bus.publishEvent(eventSubject, bytes(''), { msgId: 'x' }))).toBe('closed');
      expect(
        await failureCode(() => bus.consumeEvents({ durable: uniqueToken(), filterSubjects: [eventSubject], handler: async () => undefined })),
      ).toBe('closed');
    });
  });
}
