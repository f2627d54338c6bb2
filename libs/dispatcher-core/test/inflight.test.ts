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
  const settled = (p: Promise<never>) => p.then(() => 'resolved', (e: unknown) => e);

  it('fails the calls a lost replica had acknowledged at once, with UNAVAILABLE saying it may have run', async () => {
    const held = tracker.begin('local');
    const elsewhere = tracker.begin('local');
    await ack(held.headers, 'a');
    await ack(elsewhere.headers, 'b');
    expect(held.instance()).toBe('a');

    expect(tracker.replicaGone('local', 'a', 'no heartbeat for 1200 ms')).toBe(1);
    const err = await settled(held.lost);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('unavailable');
    expect((err as ToolHubError).message).toMatch(/went away \(no heartbeat for 1200 ms\).*may or may not have run/);
    expect(tracker.size).toBe(1); // the call on replica b goes on
    elsewhere.end();
  });

  it('fails calls no replica confirmed once the grace period passes, and spares the ones a live replica confirms', async () => {
    const lostWithReplica = tracker.begin('local');
    const lateButLive = tracker.begin('local');
    const otherProvider = tracker.begin('mcp');
    expect(tracker.replicaGone('local', 'a', 'no heartbeat for 1200 ms')).toBe(0);
    await ack(lateButLive.headers, 'b');
    await sleep(80);

    const err = (await settled(lostWithReplica.lost)) as ToolHubError;
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/no replica confirmed this call within 50 ms.*may or may not have run/);
    expect(unconfirmed).toEqual([['local', 1]]);
    expect(lateButLive.instance()).toBe('b');
    expect(tracker.size).toBe(2); // lateButLive and otherProvider are still running
    lateButLive.end();
    otherProvider.end();
  });

  it('does not fail a call that ended during the grace period', async () => {
    const call = tracker.begin('local');
    tracker.replicaGone('local', 'a', 'stopping');
    call.end();
    await sleep(80);
    expect(unconfirmed).toEqual([]);
  });
});
