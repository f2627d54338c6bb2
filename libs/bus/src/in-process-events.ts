/**
 * The durable-event half of the in-process bus: an in-memory stream with de-duplication by msgId,
 * and durable pull consumers whose progress lives in the bus (not in the consumer object), so a
 * consumer closed and reopened under the same durable name resumes where it stopped — the same
 * contract JetStream gives. Memory only: events do not survive the process.
 */
import { HEADER_MSG_ID } from '@toolhub/contracts';

import { type ConsumeOptions, type EventConsumer, type EventMessage, type Headers } from './bus';
import { subjectMatches } from './subject';
import { copyBytes, copyHeaders, keepInProgress, redeliveryDelay } from './util';

interface StoredEvent {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: Headers;
  readonly msgId: string;
}

/** Lowest sequence some durable has not finished with (delivered and acknowledged, or skipped). */
export type AckFloor = () => number | undefined;

/**
 * Append-only list of events with a JetStream-like duplicate window and bounds on size. An event
 * some durable has not acknowledged is never discarded: when `maxEvents` such events are held,
 * {@link append} refuses new ones (like a stream with discard-new; ToolHub's NATS stream discards
 * old) instead of losing unconsumed events. Events every durable has acknowledged are kept up to `maxAckedEvents`, for durables
 * created later. Without any durable, the oldest events beyond `maxEvents` are discarded.
 */
export class EventLog {
  private readonly events: StoredEvent[] = [];
  private firstSeq = 1;
  private nextSeq = 1;
  /** msgId → time stored; a Map keeps insertion (= time) order, so pruning reads from the front. */
  private readonly seen = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly duplicateWindowMs: number,
    private readonly maxEvents: number,
    private readonly maxAckedEvents: number = maxEvents,
    /** Where the durables stand; undefined while there is none. */
    private readonly ackFloor: AckFloor = () => undefined,
  ) {}

  /**
   * Stores an event unless its msgId was stored within the window; returns false for a duplicate.
   * Returns 'full' (nothing stored) when `maxEvents` events are held that a durable still needs.
   */
  append(subject: string, data: Uint8Array, headers: Headers, msgId: string): boolean | 'full' {
    const now = Date.now();
    this.forgetIdsBefore(now - this.duplicateWindowMs);
    if (this.seen.has(msgId)) return false;
    this.trim(1);
    if (this.events.length >= this.maxEvents) return 'full';
    this.seen.set(msgId, now);
    this.events.push({ seq: this.nextSeq++, subject, data: copyBytes(data), headers: { ...headers, [HEADER_MSG_ID]: msgId }, msgId });
    for (const listener of this.listeners) listener();
    return true;
  }

  /**
   * Discards what the bounds allow (keeping room for `room` more events): acknowledged events
   * beyond `maxAckedEvents`, then acknowledged ones beyond `maxEvents`; without durables, the
   * oldest beyond `maxEvents`. Called on append and after every acknowledgement.
   */
  trim(room = 0): void {
    const floor = this.ackFloor();
    const over = Math.max(0, this.events.length + room - this.maxEvents);
    let drop: number;
    if (floor === undefined) {
      // Nobody consumes yet: discard-old, like a stream with max_msgs (a later durable gets the newest).
      drop = over;
    } else {
      const acked = Math.max(0, Math.min(floor, this.nextSeq) - this.firstSeq);
      drop = Math.min(acked, Math.max(over, acked - this.maxAckedEvents));
    }
    drop = Math.min(drop, this.events.length);
    if (drop === 0) return;
    this.events.splice(0, drop);
    this.firstSeq += drop;
  }

  /** Events held now (for tests and metrics). */
  get size(): number {
    return this.events.length;
  }

  /** msgIds remembered for de-duplication now (for tests and metrics). */
  get rememberedIds(): number {
    return this.seen.size;
  }

  get(seq: number): StoredEvent | undefined {
    return seq < this.firstSeq ? undefined : this.events[seq - this.firstSeq];
  }

  get first(): number {
    return this.firstSeq;
  }

  /** Sequence the next stored event will get. */
  get next(): number {
    return this.nextSeq;
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private forgetIdsBefore(cutoff: number): void {
    for (const [id, at] of this.seen) {
      if (at > cutoff) break;
      this.seen.delete(id);
    }
  }
}

interface Pending {
  deliveries: number;
  /** When the event may be delivered again (ack wait expired, or the nak delay passed). */
  due: number;
}

/** Progress of one durable name: what was handed out and not yet acknowledged, and where new events start. */
export class DurableState {
  private cursor = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(public filterSubjects: string[]) {}

  /** Takes up to `max` events: due redeliveries first (oldest first), then new matching events. */
  take(log: EventLog, max: number, ackWaitMs: number, now: number): EventMessage[] {
    const out: EventMessage[] = [];
    const due = [...this.pending.entries()].filter(([, p]) => p.due <= now).sort(([a], [b]) => a - b);
    for (const [seq, p] of due) {
      if (out.length >= max) break;
      const event = log.get(seq);
      if (!event) {
        this.pending.delete(seq); // dropped by the size limit: nothing left to deliver
        continue;
      }
      p.deliveries += 1;
      p.due = now + ackWaitMs;
      out.push(toMessage(event, p.deliveries));
    }
    this.cursor = Math.max(this.cursor, log.first);
    while (out.length < max && this.cursor < log.next) {
      const event = log.get(this.cursor++);
      if (!event || !this.filterSubjects.some((f) => subjectMatches(f, event.subject))) continue;
      this.pending.set(event.seq, { deliveries: 1, due: now + ackWaitMs });
      out.push(toMessage(event, 1));
    }
    return out;
  }

  /** The batch is still being worked on: not due again before `due` (see ConsumeOptions.maxWorkMs). */
  touch(batch: readonly EventMessage[], due: number): void {
    for (const m of batch) {
      const p = this.pending.get(m.seq);
      if (p) p.due = Math.max(p.due, due);
    }
  }

  ack(batch: readonly EventMessage[]): void {
    for (const m of batch) this.pending.delete(m.seq);
  }

  /** Makes a failed batch due again after a backoff that grows with the number of deliveries. */
  nak(batch: readonly EventMessage[], baseDelayMs: number, now: number): void {
    for (const m of batch) {
      const p = this.pending.get(m.seq);
      if (p) p.due = now + redeliveryDelay(baseDelayMs, p.deliveries);
    }
  }

  /** Earliest time a pending event becomes due, if any. */
  nextDue(): number | undefined {
    let min: number | undefined;
    for (const p of this.pending.values()) if (min === undefined || p.due < min) min = p.due;
    return min;
  }

  /**
   * Lowest sequence this durable has not finished with: its oldest unacknowledged delivery, else
   * the next event it would take. Pending entries are added in ascending sequence (the cursor only
   * moves forward) and never re-added, so the first key is the smallest.
   */
  lowestUnfinished(): number {
    const oldest = this.pending.keys().next();
    return oldest.done ? this.cursor : Math.min(this.cursor, oldest.value);
  }

  hasNew(log: EventLog): boolean {
    return this.cursor < log.next;
  }

  /** Events appended since the last take (an upper bound: the filter is not applied). */
  newCount(log: EventLog): number {
    return Math.max(0, log.next - Math.max(this.cursor, log.first));
  }
}

function toMessage(event: StoredEvent, deliveryCount: number): EventMessage {
  return {
    subject: event.subject,
    data: copyBytes(event.data),
    headers: copyHeaders(event.headers),
    msgId: event.msgId,
    seq: event.seq,
    deliveryCount,
  };
}

export interface ConsumerHooks {
  redeliveryDelayMs: number;
  onError: (err: unknown) => void;
  onClosed: () => void;
}

/** One running consumer: a loop that takes a batch, runs the handler, then acks or naks it. */
export class InProcessConsumer implements EventConsumer {
  private stopped = false;
  private wake: (() => void) | undefined;
  /** When the partial batch now waiting for more events runs anyway (see `lingerMs`). */
  private lingerUntil: number | undefined;
  private readonly unlisten: () => void;
  private readonly loop: Promise<void>;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly log: EventLog,
    /** The durable this consumer reads for. */
    readonly state: DurableState,
    private readonly options: Required<ConsumeOptions>,
    private readonly hooks: ConsumerHooks,
  ) {
    // While a partial batch lingers, only a full batch cuts the wait short.
    this.unlisten = log.onAppend(() => {
      if (this.lingerUntil === undefined || this.state.newCount(this.log) >= this.options.maxBatch) this.poke();
    });
    this.loop = this.run();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopped = true;
      this.unlisten();
      this.poke();
      await this.loop;
      this.hooks.onClosed();
    })();
    return this.closing;
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async run(): Promise<void> {
    // Start on a later tick so consumeEvents() resolves before the first handler call, as with NATS.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A lingering batch still runs after close(): this bus keeps events in memory only.
    while (!this.stopped || this.lingerUntil !== undefined) {
      const now = Date.now();
      if (this.options.lingerMs > 0 && !this.stopped && this.lingers(now)) {
        this.lingerUntil ??= now + this.options.lingerMs;
        if (now < this.lingerUntil) {
          await this.sleep(this.lingerUntil, true);
          continue;
        }
      }
      this.lingerUntil = undefined;
      const batch = this.state.take(this.log, this.options.maxBatch, this.options.ackWaitMs, now);
      if (batch.length === 0) {
        await this.sleep(this.state.nextDue());
        continue;
      }
      const { ackWaitMs, maxWorkMs } = this.options;
      const stopWorking = keepInProgress(ackWaitMs, maxWorkMs, () => this.state.touch(batch, Date.now() + ackWaitMs));
      try {
        await this.options.handler(batch);
        stopWorking();
        this.state.ack(batch);
        this.log.trim();
      } catch (err) {
        stopWorking();
        this.state.nak(batch, this.hooks.redeliveryDelayMs, Date.now());
        this.hooks.onError(err);
      }
    }
  }

  /** New events wait for more: fewer than a batch, and no redelivery due. */
  private lingers(now: number): boolean {
    if (!this.state.hasNew(this.log) || this.state.newCount(this.log) >= this.options.maxBatch) return false;
    const due = this.state.nextDue();
    return due === undefined || due > now;
  }

  /**
   * Waits for a new event (unless `lingering`), for `until` (a redelivery falling due, or the end
   * of a linger), or for close().
   */
  private async sleep(until: number | undefined, lingering = false): Promise<void> {
    if (this.stopped || (!lingering && this.state.hasNew(this.log))) return;
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.wake = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
      if (until !== undefined) {
        timer = setTimeout(() => this.poke(), Math.max(0, until - Date.now()));
        // A consumer waiting to retry must not keep an otherwise finished process alive.
        if (!lingering) timer.unref();
      }
    });
  }
}
