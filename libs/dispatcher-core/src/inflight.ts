/**
 * Knows which adapter replica holds each in-flight run: the replica publishes its instance id to
 * the call's acknowledgement subject as soon as it accepts the call. When a replica dies, the calls
 * it held fail at once with UNAVAILABLE instead of hanging until their deadline.
 */
import type { Bus, Subscription } from '@toolhub/bus';
import { ackSubject, HEADER_ACK_SUBJECT, ToolHubError } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

interface Tracked {
  provider: string;
  instanceId?: string;
  fail: (err: ToolHubError) => void;
}

/** One tracked call: put `headers` on the request and race the call against `lost`. */
export interface TrackedCall {
  readonly headers: Record<string, string>;
  /** Rejects (UNAVAILABLE) if the replica holding the call is lost; never resolves. */
  readonly lost: Promise<never>;
  /** Which replica accepted the call, once known. */
  instance(): string | undefined;
  end(): void;
}

export class InflightTracker {
  private readonly calls = new Map<string, Tracked>();
  private subscription?: Subscription;

  private constructor(readonly dispatcherId: string) {}

  static async start(bus: Bus, dispatcherId = randomUUID().replace(/-/g, '')): Promise<InflightTracker> {
    const tracker = new InflightTracker(dispatcherId);
    tracker.subscription = await bus.subscribe(ackSubject(dispatcherId), (msg) => {
      const callId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
      const call = tracker.calls.get(callId);
      if (call) call.instanceId = new TextDecoder().decode(msg.data);
    });
    return tracker;
  }

  begin(provider: string): TrackedCall {
    const callId = randomUUID().replace(/-/g, '');
    let fail!: (err: ToolHubError) => void;
    const lost = new Promise<never>((_, reject) => (fail = reject));
    // The race may already be decided when the loss arrives; never leave a rejection unhandled.
    lost.catch(() => {});
    const tracked: Tracked = { provider, fail };
    this.calls.set(callId, tracked);
    return {
      headers: { [HEADER_ACK_SUBJECT]: ackSubject(this.dispatcherId, callId) },
      lost,
      instance: () => tracked.instanceId,
      end: () => void this.calls.delete(callId),
    };
  }

  /** Fails every call held by the replica. Returns how many. */
  replicaGone(provider: string, instanceId: string, reason: string): number {
    let n = 0;
    for (const [id, call] of this.calls) {
      if (call.provider === provider && call.instanceId === instanceId) {
        this.calls.delete(id);
        call.fail(
          new ToolHubError(
            'unavailable',
            `The ${provider} adapter replica running this call went away (${reason}) before it answered. ` +
              'The tool may or may not have run; retry only if repeating it is safe, or pass an idempotency_key.',
            { retryable: false },
          ),
        );
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.calls.size;
  }

  async close(): Promise<void> {
    await this.subscription?.close();
  }
}
