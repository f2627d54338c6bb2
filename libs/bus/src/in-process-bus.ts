/**
 * InProcessBus: the Bus for one-process mode and the reference fake for tests. It follows NATS
 * semantics closely (subject wildcards, queue groups, no-responders, max payload, JetStream-like
 * durable consumers) because it is held to the same contract suite as {@link NatsBus}: code that
 * works here must work against a real server.
 */
import { HEADER_MSG_ID } from '@toolhub/contracts';

import {
  type Bus,
  type BusMessage,
  type BusReply,
  type ConsumeOptions,
  type EventConsumer,
  type Headers,
  type MessageHandler,
  type PublishEventOptions,
  type RequestHandler,
  type RequestOptions,
  type SubscribeOptions,
  type Subscription,
} from './bus';
import { BusError } from './errors';
import { type HandlerErrorCallback } from './handler-error';
import { DurableState, EventLog, InProcessConsumer } from './in-process-events';
import { assertPattern, assertPublishSubject, subjectMatches } from './subject';
import {
  DEFAULT_DUPLICATE_WINDOW_MS,
  DEFAULT_MAX_PAYLOAD,
  assertEventSubject,
  assertPayload,
  assertTimeout,
  checkReply,
  copyBytes,
  copyHeaders,
  internalErrorReply,
  normalizeConsumeOptions,
} from './util';

/** Options of {@link InProcessBus}. */
export interface InProcessBusOptions {
  /** Largest message (payload plus headers) accepted, in bytes; NATS' default. @default 1048576 */
  maxPayload?: number;
  /** Same `msgId` within this window is stored once; JetStream's default. @default 120000 */
  duplicateWindowMs?: number;
  /** First pause before a failed batch is redelivered; doubles per delivery, capped at 30 s. @default 250 */
  redeliveryDelayMs?: number;
  /**
   * Most events held. Beyond it, the oldest events every consuming durable has acknowledged are
   * discarded (with no consumer open: the oldest events); an event a consuming durable has not
   * acknowledged is never discarded, so once this many are unacknowledged `publishEvent` fails with
   * `publish_failed` until the consumer catches up (the sender's outbox retries). Unlike ToolHub's
   * NATS stream (limits, discard old): in one process nothing else would keep those events.
   * @default 100000
   */
  maxEvents?: number;
  /**
   * Events every durable has acknowledged that are kept anyway (for durables created later, which
   * start at the oldest kept event); the rest are discarded at once. One-process mode sets 0.
   * @default maxEvents
   */
  maxAckedEvents?: number;
  /**
   * Called when a subscribe handler or a consumer batch handler throws (serve handler errors are
   * sent back to the caller instead). The bus has no logger of its own. @default no-op
   */
  onError?: HandlerErrorCallback;
}

function withDefaults(options: InProcessBusOptions): Required<InProcessBusOptions> {
  return {
    maxPayload: options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
    duplicateWindowMs: options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS,
    redeliveryDelayMs: options.redeliveryDelayMs ?? 250,
    maxEvents: options.maxEvents ?? 100_000,
    maxAckedEvents: options.maxAckedEvents ?? options.maxEvents ?? 100_000,
    onError: options.onError ?? (() => undefined),
  };
}

type Reply = (reply: BusReply) => void;

/** One subscribe() or serve() registration. Handlers run on a later tick, in arrival order. */
class LocalSubscription implements Subscription {
  private active = true;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    readonly pattern: string,
    readonly queue: string | undefined,
    private readonly run: (msg: BusMessage, reply: Reply | undefined) => Promise<void>,
    private readonly onClose: (sub: LocalSubscription) => void,
  ) {}

  get isActive(): boolean {
    return this.active;
  }

  deliver(msg: BusMessage, reply: Reply | undefined): void {
    // setImmediate, not a microtask: a handler that publishes in a loop must not starve timers
    // (request timeouts), just as network delivery would not.
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => (this.active ? this.run(msg, reply) : undefined))
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  async close(): Promise<void> {
    if (this.active) {
      this.active = false;
      this.onClose(this);
    }
    // Messages already handed over finish first ("drain"), as NATS' drain does.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}

interface PendingRequest {
  fail(err: BusError): void;
}

/**
 * A {@link Bus} inside one Node process. Use it for the embedded one-process mode and in unit tests;
 * durable events live in memory only.
 *
 * @example
 * const bus = new InProcessBus();
 * await bus.serve('greet', (m) => ({ data: m.data, headers: {} }));
 * const reply = await bus.request('greet', bytes, { timeoutMs: 1000 });
 */
export class InProcessBus implements Bus {
  readonly maxPayload: number;
  private readonly options: Required<InProcessBusOptions>;
  private readonly subs = new Set<LocalSubscription>();
  /**
   * The subscriptions whose pattern matches each subject routed lately: every call is one request
   * and one reply on the same few subjects, and matching each against every subscription's pattern
   * cost more than the rest of the routing. Emptied whenever a subscription comes or goes; bounded.
   */
  private readonly matching = new Map<string, LocalSubscription[]>();
  /** Round-robin position per queue group name. */
  private readonly queueCursor = new Map<string, number>();
  private readonly requests = new Set<PendingRequest>();
  private readonly log: EventLog;
  private readonly durables = new Map<string, DurableState>();
  private readonly consumers = new Set<InProcessConsumer>();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(options: InProcessBusOptions = {}) {
    this.options = withDefaults(options);
    if (!Number.isInteger(this.options.maxPayload) || this.options.maxPayload <= 0) {
      throw new BusError('invalid_argument', `maxPayload must be a positive integer, got ${this.options.maxPayload}`);
    }
    this.maxPayload = this.options.maxPayload;
    for (const field of ['maxEvents', 'maxAckedEvents'] as const) {
      const value = this.options[field];
      if (!Number.isInteger(value) || value < (field === 'maxEvents' ? 1 : 0)) {
        throw new BusError('invalid_argument', `${field} must be ${field === 'maxEvents' ? 'a positive' : 'a non-negative'} integer, got ${value}`);
      }
    }
    this.log = new EventLog(this.options.duplicateWindowMs, this.options.maxEvents, this.options.maxAckedEvents, () => this.ackFloor());
  }

  async request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply> {
    this.assertOpen();
    assertPublishSubject(subject);
    assertTimeout(options.timeoutMs);
    assertPayload(data, options.headers, this.maxPayload);
    return new Promise<BusReply>((resolve, reject) => {
      let done = false;
      const finish = (settle: () => void): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.requests.delete(pending);
        settle();
      };
      const pending: PendingRequest = { fail: (err) => finish(() => reject(err)) };
      const timer = setTimeout(
        () => pending.fail(new BusError('timeout', `request to "${subject}" timed out after ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      this.requests.add(pending);
      // First reply wins, as with NATS requests; later replies are dropped.
      const receivers = this.route(subject, data, options.headers, (reply) => finish(() => resolve(reply)));
      if (receivers === 0) pending.fail(new BusError('no_responders', `no service is listening on "${subject}"`));
    });
  }

  async serve(subject: string, handler: RequestHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    return this.register(subject, options, async (msg, reply) => {
      let answer: BusReply;
      try {
        answer = checkReply(await handler(msg), this.maxPayload);
      } catch (err) {
        answer = internalErrorReply(err);
      }
      // A publish (no reply expected) to a served subject runs the handler; the answer goes nowhere.
      reply?.({ data: copyBytes(answer.data), headers: copyHeaders(answer.headers) });
    });
  }

  publish(subject: string, data: Uint8Array, headers?: Headers): void {
    this.assertOpen();
    assertPublishSubject(subject);
    assertPayload(data, headers, this.maxPayload);
    this.route(subject, data, headers, undefined);
  }

  async subscribe(subject: string, handler: MessageHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    return this.register(subject, options, async (msg) => {
      try {
        await handler(msg);
      } catch (err) {
        this.options.onError(err, { kind: 'subscribe', source: subject });
      }
    });
  }

  async publishEvent(subject: string, data: Uint8Array, options: PublishEventOptions): Promise<void> {
    this.assertOpen();
    assertEventSubject(subject);
    if (typeof options.msgId !== 'string' || options.msgId.length === 0) {
      throw new BusError('invalid_argument', `publishEvent("${subject}"): msgId must be a non-empty string`);
    }
    const headers = { ...options.headers, [HEADER_MSG_ID]: options.msgId };
    assertPayload(data, headers, this.maxPayload);
    // As with JetStream, a stored event is also delivered to plain subscribers of its subject
    // (that is how every dispatcher replica hears invalidations); a duplicate is not.
    const stored = this.log.append(subject, data, headers, options.msgId);
    if (stored === 'full') {
      throw new BusError(
        'publish_failed',
        `publishEvent("${subject}"): the in-process stream holds ${this.options.maxEvents} events not yet acknowledged by every durable (maxEvents); retry once the consumers catch up`,
      );
    }
    if (stored) this.route(subject, data, headers, undefined);
  }

  /**
   * Lowest sequence a durable with an open consumer still needs, or undefined when none is open.
   * A durable nobody consumes (its consumer closed) does not hold events back past `maxEvents`:
   * beyond that the oldest go, as on a NATS stream with limits (discard old), instead of refusing
   * every later publish for good.
   */
  private ackFloor(): number | undefined {
    let floor: number | undefined;
    for (const consumer of this.consumers) {
      const low = consumer.state.lowestUnfinished();
      if (floor === undefined || low < floor) floor = low;
    }
    return floor;
  }

  async consumeEvents(options: ConsumeOptions): Promise<EventConsumer> {
    this.assertOpen();
    const opts = normalizeConsumeOptions(options);
    let state = this.durables.get(opts.durable);
    if (state) state.filterSubjects = opts.filterSubjects;
    else this.durables.set(opts.durable, (state = new DurableState(opts.filterSubjects)));
    const consumer: InProcessConsumer = new InProcessConsumer(this.log, state, opts, {
      redeliveryDelayMs: this.options.redeliveryDelayMs,
      onError: (err) => this.options.onError(err, { kind: 'consume', source: opts.durable }),
      onClosed: () => this.consumers.delete(consumer),
    });
    this.consumers.add(consumer);
    return consumer;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      // Consumers first (their batch in progress finishes and is acknowledged), then subscriptions
      // (in-flight handlers finish and their replies still reach waiting requests).
      await Promise.all([...this.consumers].map((c) => c.close()));
      await Promise.all([...this.subs].map((s) => s.close()));
      for (const r of [...this.requests]) r.fail(new BusError('closed', 'the bus was closed before a reply arrived'));
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closed) throw new BusError('closed', 'the bus is closed');
  }

  private async register(
    subject: string,
    options: SubscribeOptions,
    run: (msg: BusMessage, reply: Reply | undefined) => Promise<void>,
  ): Promise<Subscription> {
    this.assertOpen();
    assertPattern(subject);
    if (options.queue !== undefined && !/^[^\s.*>]+$/.test(options.queue)) {
      throw new BusError('invalid_argument', `invalid queue group name ${JSON.stringify(options.queue)}`);
    }
    const sub = new LocalSubscription(subject, options.queue, run, (s) => {
      this.subs.delete(s);
      this.matching.clear();
    });
    this.subs.add(sub);
    this.matching.clear();
    return sub;
  }

  /**
   * Hands a message to every non-queue subscription and to one member of each queue group
   * (round-robin). Returns how many subscriptions matched, for no-responders detection.
   */
  private route(subject: string, data: Uint8Array, headers: Headers | undefined, reply: Reply | undefined): number {
    const plain: LocalSubscription[] = [];
    const groups = new Map<string, LocalSubscription[]>();
    let matched = 0;
    for (const sub of this.subscribersOf(subject)) {
      if (!sub.isActive) continue;
      matched++;
      if (sub.queue === undefined) plain.push(sub);
      else groups.set(sub.queue, [...(groups.get(sub.queue) ?? []), sub]);
    }
    for (const [queue, members] of groups) {
      const turn = this.queueCursor.get(queue) ?? 0;
      this.queueCursor.set(queue, turn + 1);
      plain.push(members[turn % members.length] as LocalSubscription);
    }
    // Each receiver gets its own copy: one handler mutating its buffer cannot affect another.
    for (const sub of plain) sub.deliver({ subject, data: copyBytes(data), headers: copyHeaders(headers) }, reply);
    return matched;
  }

  private subscribersOf(subject: string): LocalSubscription[] {
    let subs = this.matching.get(subject);
    if (!subs) {
      subs = [...this.subs].filter((sub) => subjectMatches(sub.pattern, subject));
      if (this.matching.size >= MAX_ROUTED_SUBJECTS) this.matching.clear();
      this.matching.set(subject, subs);
    }
    return subs;
  }
}

/** Subjects whose subscribers are remembered; the map is emptied when full. */
const MAX_ROUTED_SUBJECTS = 1024;
