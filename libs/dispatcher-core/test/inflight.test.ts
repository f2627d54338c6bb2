/** InflightTracker: calls of a lost adapter replica fail at once, or after a grace when unconfirmed. */
import { InProcessBus } from '@toolhub/bus';
import { HEADER_ACK_SUBJECT, ToolHubError } from '@toolhub/contracts';
import { setTimeout as sleep } from 'node:timers/promises';

import { InflightTracker } from '../src';

describe('InflightTracker', () => {
  let bus: InProcessBus;
  let tracker: InflightTracker;
  const unconfirmed: Array<[string, number]> = [];

  beforeEach(async () => {
    bus = new InProcessBus();
    unconfirmed.length = 0;
    tracker = await InflightTracker.start(bus, { ackGraceMs: 50, onUnconfirmedFailed: (p, n) => void unconfirmed.push([p, n]) });
  });

  afterEach(async () => {
    await tracker.close();
    await bus.close();
  });

  const ack = async (headers: Record<string, string>, instance: string) => {
    bus.publish(headers[HEADER_ACK_SUBJECT]!, new TextEncoder().encode(instance));
    await sleep(5);
  };
  const settled = (p: Promise<unknown>) => p.then(() => 'resolved', (e: unknown) => e);
  /** A request that never answers (a replica that is gone or frozen). */
  const unanswered = () => new Promise<never>(() => {});

  it('fails the calls a lost replica had acknowledged at once, with UNAVAILABLE saying it may have run', async () => {
    const held = tracker.begin('local');
    const elsewhere = tracker.begin('local');
    await ack(held.headers, 'a');
    await ack(elsewhere.headers, 'b');
    expect(held.instance()).toBe('a');

    expect(tracker.replicaGone('local', 'a', 'no heartbeat for 1200 ms')).toBe(1);
    const err = await settled(held.watch(unanswered()));
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('unavailable');
    expect((err as ToolHubError).message).toMatch(/went away \(no heartbeat for 1200 ms\).*may or may not have run/);
    expect(tracker.size).toBe(1); // the call on replica b goes on
    elsewhere.end();
  });

  it('fails calls no replica confirmed once the grace period passes, and spares the ones a live replica confirms', async () => {
    // A grace far longer than the acknowledgement's in-process hop: on a busy machine a 50 ms grace
    // could expire before the hop is delivered (timers run before the bus's callbacks after a stall).
    const failedHere: Array<[string, number]> = [];
    const graced = await InflightTracker.start(bus, { ackGraceMs: 1000, onUnconfirmedFailed: (p, n) => void failedHere.push([p, n]) });
    try {
      const lostWithReplica = graced.begin('local');
      const lateButLive = graced.begin('local');
      const otherProvider = graced.begin('mcp');
      expect(graced.replicaGone('local', 'a', 'no heartbeat for 1200 ms')).toBe(0);
      await ack(lateButLive.headers, 'b');
      for (let i = 0; i < 100 && lateButLive.instance() === undefined; i++) await sleep(5);
      expect(lateButLive.instance()).toBe('b');

      const err = (await settled(lostWithReplica.watch(unanswered()))) as ToolHubError;
      expect(err.code).toBe('unavailable');
      expect(err.message).toMatch(/no replica confirmed this call within 1000 ms.*may or may not have run/);
      expect(failedHere).toEqual([['local', 1]]);
      expect(graced.size).toBe(2); // lateButLive and otherProvider are still running
      lateButLive.end();
      otherProvider.end();
    } finally {
      await graced.close();
    }
  });

  it('watch settles as the request does when nothing is lost', async () => {
    const call = tracker.begin('local');
    await expect(call.watch(Promise.resolve('answer'))).resolves.toBe('answer');
    const refused = tracker.begin('local');
    await expect(refused.watch(Promise.reject(ToolHubError.timeout('the adapter timed out')))).rejects.toThrow('the adapter timed out');
    call.end();
    refused.end();
    expect(tracker.size).toBe(0);
  });

  it('watch rejects at once when the caller cancels, and a later answer of the request changes nothing', async () => {
    const call = tracker.begin('local');
    let answer!: (v: string) => void;
    const watched = call.watch(new Promise<string>((resolve) => (answer = resolve)));
    call.cancel(ToolHubError.unavailable('The caller cancelled the call.'));
    await expect(watched).rejects.toThrow('The caller cancelled the call.');
    answer('too late');
    await expect(watched).rejects.toThrow('The caller cancelled the call.');
    call.end();
  });

  it('a loss before watch is called rejects the watch at once; the request failing later is not left unhandled', async () => {
    const call = tracker.begin('local');
    await ack(call.headers, 'a');
    expect(tracker.replicaGone('local', 'a', 'killed')).toBe(1);
    let fail!: (e: Error) => void;
    const err = (await settled(call.watch(new Promise<never>((_, reject) => (fail = reject))))) as ToolHubError;
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/went away \(killed\)/);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      fail(new Error('no reply'));
      await sleep(10);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    call.end();
  });

  it('does not fail a call that ended during the grace period', async () => {
    const call = tracker.begin('local');
    tracker.replicaGone('local', 'a', 'stopping');
    call.end();
    await sleep(80);
    expect(unconfirmed).toEqual([]);
  });
});
