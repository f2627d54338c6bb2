/**
 * Request/reply over one shared reply subscription, with one timer for every pending request.
 *
 * NATS.js's own `request()` does the same multiplexing, but per request it also builds a request
 * object, a deferred, a timer and — when the reply arrives — an `Error("cancelled")` with a
 * captured stack trace to reject the already-settled deferred: a measurable share of a dispatcher's
 * CPU per RunTool (figure: bench/dispatcher/README.md, "Figures the code cites"). Here a request costs one map entry
 * and one publish; expiry is checked by a single timer that is re-armed only when an earlier
 * deadline arrives.
 */
import { createInbox, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/nats-core';

import { BusError } from './errors';

interface Pending {
  readonly subject: string;
  readonly expires: number;
  readonly resolve: (msg: Msg) => void;
  readonly reject: (err: BusError) => void;
}

/** Pending requests keyed by the last token of their reply subject. */
export class NatsRequests {
  private readonly pending = new Map<string, Pending>();
  private readonly inbox: string;
  private sub: Subscription | undefined;
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (Infinity when none is armed). */
  private timerAt = Infinity;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    inboxPrefix: string,
  ) {
    this.inbox = `${createInbox(inboxPrefix)}.`;
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * Publishes `data` to `subject` with a reply subject of ours and resolves with the reply.
   * @throws BusError `no_responders` (nobody serves the subject), `timeout`, `closed`.
   */
  request(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, timeoutMs: number): Promise<Msg> {
    if (this.closed) return Promise.reject(new BusError('closed', `request to "${subject}": the NATS connection is closed`));
    this.sub ??= this.nc.subscribe(`${this.inbox}*`, { callback: (err, msg) => this.onReply(err, msg) });
    const token = (++this.sequence).toString(36);
    const expires = Date.now() + timeoutMs;
    return new Promise<Msg>((resolve, reject) => {
      this.pending.set(token, { subject, expires, resolve, reject });
      if (expires < this.timerAt) this.arm(expires);
      try {
        this.nc.publish(subject, data, { reply: this.inbox + token, headers });
      } catch (err) {
        this.pending.delete(token);
        reject(err instanceof BusError ? err : new BusError('connection_failed', `request to "${subject}": ${(err as Error).message}`, { cause: err }));
      }
    });
  }

  /** Fails the pending requests to `subject`: the server refused our publish (permissions). */
  failSubject(subject: string, err: Error): void {
    for (const [token, p] of this.pending) {
      if (p.subject !== subject) continue;
      this.pending.delete(token);
      p.reject(new BusError('connection_failed', `request to "${subject}": ${err.message}`, { cause: err }));
    }
  }

  /** Fails every pending request; later requests fail at once. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const [token, p] of this.pending) {
      this.pending.delete(token);
      p.reject(new BusError('closed', `request to "${p.subject}": the NATS connection is closed`));
    }
    this.sub?.unsubscribe();
  }

  private onReply(err: Error | null, msg: Msg): void {
    const token = msg?.subject?.slice(this.inbox.length);
    const p = token === undefined ? undefined : this.pending.get(token);
    if (!p) return; // late (timed out) or not ours
    this.pending.delete(token!);
    if (err) p.reject(new BusError('connection_failed', `request to "${p.subject}": ${err.message}`, { cause: err }));
    // The server answers a request nobody can take with an empty 503 status message.
    else if (msg.data.length === 0 && msg.headers?.code === 503) p.reject(new BusError('no_responders', `request to "${p.subject}": no service is listening`));
    else p.resolve(msg);
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()));
    // Pending requests keep their callers waiting; the timer itself must not keep a process alive.
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [token, p] of this.pending) {
      if (p.expires <= now) {
        this.pending.delete(token);
        p.reject(new BusError('timeout', `request to "${p.subject}": timed out`));
      } else if (p.expires < next) next = p.expires;
    }
    if (next !== Infinity) this.arm(next);
  }
}
