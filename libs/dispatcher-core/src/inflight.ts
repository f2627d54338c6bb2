/**
 * Knows which adapter replica holds each in-flight run: the replica publishes its instance id to
 * the call's acknowledgement subject as soon as it accepts the call. When a replica dies, the calls
 * it held fail at once with UNAVAILABLE instead of hanging until their deadline; when a replica
 * stops gracefully, its calls get the time it needs to finish them.
 *
 * A call that no replica has acknowledged yet when a replica of its provider dies may have been
 * delivered to the dead one (its ack died with it, or it never read the message). Such a call gets
 * `ackGraceMs` to be acknowledged by a live replica; if none does, it fails the same way.
 */
import type { Bus, Subscription } from '@toolhub/bus';
import { ackSubject, HEADER_ACK_SUBJECT, ToolHubError } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import { markOutcomeUnknown } from './outcome-unknown';

/** One tracked call: put `headers` on the request and pass the request's promise to `watch`. */
export interface TrackedCall {
  readonly headers: Record<string, string>;
  /**
   * `request` as it settles, unless the replica holding the call is lost or {@link cancel} is
   * called first: then rejected (UNAVAILABLE) at once. One promise per call, in place of a race
   * against a promise of the loss (which cost two more promises and their reactions per RunTool).
   * Once per call: a retry or a fallback begins a call of its own.
   */
  watch<T>(request: Promise<T>): Promise<T>;
  /** Which replica accepted the call, once known. */
  instance(): string | undefined;
  /** Fails the call with `err` (the caller went away). */
  cancel(err: ToolHubError): void;
  end(): void;
}

/** A call in the tracker's map: the state the acknowledgements and losses update. */
class Tracked implements TrackedCall {
  instanceId: string | undefined;
  readonly startedAt = Date.now();
  /** Rejects the watched promise; set by `watch`. */
  private reject: ((err: ToolHubError) => void) | undefined;
  /** A loss that came before `watch` (rejects the watch at once). */
  private failure: ToolHubError | undefined;

  constructor(
    readonly provider: string,
    readonly headers: Record<string, string>,
    private readonly calls: Map<string, Tracked>,
    private readonly callId: string,
  ) {}

  watch<T>(request: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.failure) reject(this.failure);
      else this.reject = reject;
      // Settling twice is a no-op: whichever comes first decides, and a late rejection of the
      // request is handled here, never left unhandled.
      request.then(resolve, reject);
    });
  }

  fail(err: ToolHubError): void {
    if (this.reject) this.reject(err);
    else this.failure ??= err;
  }

  cancel(err: ToolHubError): void {
    this.fail(err);
  }

  instance(): string | undefined {
    return this.instanceId;
  }

  end(): void {
    this.calls.delete(this.callId);
  }
}

/** Options of {@link InflightTracker.start}. */
export interface InflightTrackerOptions {
  /** Id in the ack subjects of this dispatcher. @default a random id */
  dispatcherId?: string;
  /**
   * After a replica is lost, how long a call of its provider that no replica has acknowledged may
   * wait for an acknowledgement before it is failed as probably held by the lost replica. A live
   * replica acknowledges as soon as it reads the request, so this only needs to cover its event-loop lag.
   * @default 1000
   */
  ackGraceMs?: number;
  /** Called when unacknowledged calls were failed after the grace period. @default no-op */
  onUnconfirmedFailed?: (provider: string, failed: number, reason: string) => void;
}

const decoder = new TextDecoder();

export class InflightTracker {
  private readonly calls = new Map<string, Tracked>();
  private readonly graceTimers = new Set<NodeJS.Timeout>();
  private sequence = 0;
  private subscription?: Subscription;

  private constructor(
    readonly dispatcherId: string,
    private readonly ackGraceMs: number,
    private readonly onUnconfirmedFailed: (provider: string, failed: number, reason: string) => void,
  ) {}

  static async start(bus: Bus, options: InflightTrackerOptions = {}): Promise<InflightTracker> {
    const tracker = new InflightTracker(options.dispatcherId ?? randomUUID().replace(/-/g, ''), options.ackGraceMs ?? 1000, options.onUnconfirmedFailed ?? (() => {}));
    tracker.subscription = await bus.subscribe(ackSubject(tracker.dispatcherId), (msg) => {
      const callId = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
      const call = tracker.calls.get(callId);
      if (call) call.instanceId = decoder.decode(msg.data);
    });
    return tracker;
  }

  begin(provider: string): TrackedCall {
    // Unique within this tracker, whose id is random: a counter is enough (and cheaper than a UUID).
    const callId = (++this.sequence).toString(36);
    const tracked = new Tracked(provider, { [HEADER_ACK_SUBJECT]: ackSubject(this.dispatcherId, callId) }, this.calls, callId);
    this.calls.set(callId, tracked);
    return tracked;
  }

  /**
   * Fails every call held by the replica, and starts the grace period of the provider's calls that
   * no replica has acknowledged yet. Returns how many calls failed at once.
   */
  replicaGone(provider: string, instanceId: string, reason: string): number {
    let n = 0;
    const unconfirmed: string[] = [];
    for (const [id, call] of this.calls) {
      if (call.provider !== provider) continue;
      if (call.instanceId === undefined) unconfirmed.push(id);
      else if (call.instanceId === instanceId) {
        this.calls.delete(id);
        call.fail(lostCall(`The ${provider} adapter replica running this call went away (${reason}) before it answered.`));
        n++;
      }
    }
    if (unconfirmed.length > 0) this.failUnconfirmedLater(provider, unconfirmed, reason);
    return n;
  }

  /**
   * The replica said it is stopping: it finishes the calls it holds (graceful shutdown), so they
   * are left to answer; whatever it still holds after `drainMs` fails as lost (it was killed
   * mid-drain, or its drain gave up).
   */
  replicaStopping(provider: string, instanceId: string, drainMs: number, onFailed: (failed: number) => void = () => {}): void {
    const timer = setTimeout(() => {
      this.graceTimers.delete(timer);
      const failed = this.replicaGone(provider, instanceId, `it was stopping and had not answered after ${drainMs} ms`);
      if (failed > 0) onFailed(failed);
    }, drainMs);
    timer.unref();
    this.graceTimers.add(timer);
  }

  /**
   * Fails every tracked call: the bus connection is gone, so no reply can arrive (NATS.js would
   * keep the requests until the reconnect). Returns how many failed.
   */
  failAll(reason: string): number {
    const n = this.calls.size;
    for (const [id, call] of this.calls) {
      this.calls.delete(id);
      call.fail(lostCall(`The connection to NATS was lost (${reason}) while this call was running, so its answer cannot arrive.`));
    }
    return n;
  }

  /**
   * Fails the calls no replica acknowledged within `olderThanMs`. A live replica acknowledges as
   * soon as it reads a request; none doing so for seconds means the one NATS gave it to is frozen
   * (SIGSTOP, a stuck event loop) — NATS keeps routing to it until its connection times out. The
   * caller retries where that is safe. Returns how many failed, by provider.
   */
  failUnacknowledged(olderThanMs: number): Map<string, number> {
    const cutoff = Date.now() - olderThanMs;
    const failed = new Map<string, number>();
    for (const [id, call] of this.calls) {
      if (call.instanceId !== undefined || call.startedAt > cutoff) continue;
      this.calls.delete(id);
      call.fail(lostCall(`No ${call.provider} adapter replica acknowledged this call within ${olderThanMs} ms; the replica NATS handed it to is probably frozen.`));
      failed.set(call.provider, (failed.get(call.provider) ?? 0) + 1);
    }
    return failed;
  }

  /** The replicas that hold at least one in-flight call, as `[provider, instanceId]`. */
  heldReplicas(): Array<[string, string]> {
    const seen = new Map<string, [string, string]>();
    for (const call of this.calls.values()) {
      if (call.instanceId !== undefined) seen.set(`${call.provider}\u0000${call.instanceId}`, [call.provider, call.instanceId]);
    }
    return [...seen.values()];
  }

  get size(): number {
    return this.calls.size;
  }

  async close(): Promise<void> {
    for (const t of this.graceTimers) clearTimeout(t);
    this.graceTimers.clear();
    await this.subscription?.close();
  }

  private failUnconfirmedLater(provider: string, callIds: string[], reason: string): void {
    const timer = setTimeout(() => {
      this.graceTimers.delete(timer);
      let n = 0;
      for (const id of callIds) {
        const call = this.calls.get(id);
        if (!call || call.instanceId !== undefined) continue; // answered, or a live replica has it
        this.calls.delete(id);
        call.fail(lostCall(`A ${provider} adapter replica went away (${reason}) and no replica confirmed this call within ${this.ackGraceMs} ms, so the lost replica probably held it.`));
        n++;
      }
      if (n > 0) this.onUnconfirmedFailed(provider, n, reason);
    }, this.ackGraceMs);
    timer.unref();
    this.graceTimers.add(timer);
  }
}

/** The error of a call whose replica was lost: whether the tool ran is unknown, so it is not retried. */
function lostCall(what: string): ToolHubError {
  return markOutcomeUnknown(new ToolHubError('unavailable', `${what} The tool may or may not have run; retry only if repeating it is safe, or pass an idempotency_key.`, { retryable: false }));
}
