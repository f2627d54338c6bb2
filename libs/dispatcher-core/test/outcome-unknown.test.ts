/** Errors of calls whose adapter replica was lost are marked "outcome unknown" (async runs end `unknown` on them). */
import { InProcessBus } from '@toolhub/bus';
import { HEADER_ACK_SUBJECT, ToolHubError } from '@toolhub/contracts';
import { waitFor } from '@toolhub/test-harness';

import { InflightTracker } from '../src/inflight';
import { isOutcomeUnknown } from '../src/outcome-unknown';

describe('outcome unknown', () => {
  it('marks the error of a call whose replica went away, also when wrapped as a cause', async () => {
    const bus = new InProcessBus();
    const tracker = await InflightTracker.start(bus, { dispatcherId: 'd1' });
    const call = tracker.begin('p');
    // The replica acknowledges the call (as the adapter SDK does), then is lost.
    bus.publish(call.headers[HEADER_ACK_SUBJECT]!, new TextEncoder().encode('replica-1'));
    await waitFor(() => call.instance() === 'replica-1', { message: 'the acknowledgement' });
    expect(tracker.replicaGone('p', 'replica-1', 'killed')).toBe(1);
    const err = await call.watch(new Promise<never>(() => {})).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(isOutcomeUnknown(new ToolHubError('unavailable', 'tried a fallback too', { cause: err }))).toBe(true);
    await tracker.close();
    await bus.close();
  });

  it('does not mark other unavailable errors (the tool is known not to have run)', () => {
    expect(isOutcomeUnknown(ToolHubError.unavailable('no replica answered'))).toBe(false);
    expect(isOutcomeUnknown(new Error('x'))).toBe(false);
    expect(isOutcomeUnknown(undefined)).toBe(false);
  });
});
