/**
 * Durable JetStream pull consumer behind {@link Bus.consumeEvents}. Messages arrive through
 * `consumer.consume()` into a buffer; one loop hands them to the handler in batches of up to
 * `maxBatch`, then acknowledges every message of the batch (or naks it with a backoff when the
 * handler throws). At-least-once: nothing is acknowledged before the handler resolves.
 */
import { type NatsConnection } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { HEADER_MSG_ID } from '@toolhub/contracts';

import { type ConsumeOptions, type ConsumerLag, type EventConsumer, type EventMessage } from './bus';
import { fromNatsHeaders, serverAtLeast, toBusError } from './nats-util';
import { coveringPattern, subjectMatches } from './subject';
import { copyBytes, keepInProgress, redeliveryDelay } from './util';

export interface NatsConsumerDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  redeliveryDelayMs: number;
  onError: (err: unknown) => void;
  onClosed: (consumer: NatsEventConsumer) => void;
}

/**
 * Server-side filter for the requested subjects. nats-server 2.9 accepts only ONE `filter_subject`
 * per consumer (`filter_subjects` arrived in 2.10), so on 2.9 several filters become one covering
 * pattern and the rest of the filtering happens here (`clientFilter`); messages outside the
 * requested subjects are acknowledged without reaching the handler.
 */
export function consumerFilter(
  nc: NatsConnection,
  filters: readonly string[],
): { config: Pick<ConsumerConfig, 'filter_subject' | 'filter_subjects'>; clientFilter: boolean } {
  if (filters.length === 1) return { config: { filter_subject: filters[0] }, clientFilter: false };
  if (serverAtLeast(nc, 2, 10)) return { config: { filter_subjects: [...filters] }, clientFilter: false };
  const covering = coveringPattern(filters);
  return { config: covering ? { filter_subject: covering } : {}, clientFilter: true };
}

/** Creates the durable consumer, or brings an existing one in line with the requested settings. */
async function ensureConsumer(deps: NatsConsumerDeps, opts: Required<ConsumeOptions>): Promise<{ clientFilter: boolean; created: boolean }> {
  const { config: filter, clientFilter } = consumerFilter(deps.nc, opts.filterSubjects);
  const wanted: Partial<ConsumerConfig> = {
    ack_wait: nanos(opts.ackWaitMs),
    // Two batches in flight at most: one in the handler, one arriving. Bounds client memory.
    max_ack_pending: opts.maxBatch * 2,
    // -1: never give up on an event; a poison message is retried with a capped backoff rather than
    // silently dropped (the handler decides what to skip).
    max_deliver: -1,
    ...filter,
  };
  const what = `consumer "${opts.durable}" on stream ${deps.stream}`;
  let existing: ConsumerInfo | undefined;
  try {
    existing = await deps.jsm.consumers.info(deps.stream, opts.durable);
  } catch (err) {
    if (!(err instanceof Error && /consumer not found/i.test(err.message))) throw toBusError(err, 'connection_failed', what);
  }
  const create = (startSeq?: number): Promise<ConsumerInfo> =>
    deps.jsm.consumers.add(deps.stream, {
      ...wanted,
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      ...(startSeq
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }
        : opts.startAtUnixMs > 0
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(opts.startAtUnixMs).toISOString() }
          : { deliver_policy: DeliverPolicy.All }),
    });
  try {
    if (!existing) {
      await create();
    } else if (
      (existing.config.filter_subject ?? '') !== (wanted.filter_subject ?? '') ||
      JSON.stringify(existing.config.filter_subjects ?? []) !== JSON.stringify(wanted.filter_subjects ?? [])
    ) {
      // Changing the filter in place is unsafe: nats-server 2.9 moves the consumer to the end of the
      // stream on such an update, silently skipping events that arrived while it was stopped. So
      // recreate it from just after its ack floor: nothing is lost, at worst a few acknowledged
      // events are delivered again (allowed by at-least-once).
      await deps.jsm.consumers.delete(deps.stream, opts.durable);
      await create(existing.ack_floor.stream_seq + 1);
    } else if (existing.config.ack_wait !== wanted.ack_wait || existing.config.max_ack_pending !== wanted.max_ack_pending) {
      await deps.jsm.consumers.update(deps.stream, opts.durable, { ack_wait: wanted.ack_wait, max_ack_pending: wanted.max_ack_pending });
    }
  } catch (err) {
    // Mostly a config the server refuses (e.g. an invalid filter); connection trouble keeps its own code.
    throw toBusError(err, 'invalid_argument', `${what}: cannot ${existing ? 'update' : 'create'} it`);
  }
  return { clientFilter, created: !existing };
}

/**
 * Runs an ack/nak, ignoring a closed connection: the server then redelivers after ack_wait, which
 * is exactly the at-least-once outcome we want, and throwing here would only kill the loop.
 */
function settle(action: () => void): void {
  try {
    action();
  } catch {
    // see above
  }
}

function toEventMessage(m: JsMsg): EventMessage {
  const headers = fromNatsHeaders(m.headers);
  return {
    subject: m.subject,
    data: copyBytes(m.data),
    headers,
    msgId: headers[HEADER_MSG_ID] ?? '',
    seq: m.info.streamSequence,
    deliveryCount: m.info.deliveryCount,
  };
}

/** A running durable consumer on NATS. Create with {@link NatsEventConsumer.start}. */
export class NatsEventConsumer implements EventConsumer {
  private readonly buffer: JsMsg[] = [];
  private stopped = false;
  private wake: (() => void) | undefined;
  /** When the partial batch now waiting for more messages runs anyway (see `lingerMs`). */
  private lingerUntil: number | undefined;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly deps: NatsConsumerDeps,
    private readonly opts: Required<ConsumeOptions>,
    private readonly clientFilter: boolean,
    readonly created: boolean,
  ) {}

  static async start(deps: NatsConsumerDeps, opts: Required<ConsumeOptions>): Promise<NatsEventConsumer> {
    const { clientFilter, created } = await ensureConsumer(deps, opts);
    const self = new NatsEventConsumer(deps, opts, clientFilter, created);
    try {
      const consumer = await deps.js.consumers.get(deps.stream, opts.durable);
      self.messages = await consumer.consume({ max_messages: opts.maxBatch, callback: (m) => self.receive(m) });
    } catch (err) {
      throw toBusError(err, 'connection_failed', `consumer "${opts.durable}"`);
    }
    // consume() ends on its own only on a terminal error (e.g. the consumer was deleted).
    void self.messages.closed().then((err) => {
      if (err && !self.stopped) deps.onError(err);
    });
    self.loop = self.run();
    return self;
  }

  /**
   * Pending plus unacknowledged events from the server's consumer info, and the age of the oldest
   * one not acknowledged (the stream message just past the ack floor).
   * @throws BusError when the server cannot be asked (e.g. NATS is down).
   */
  async lag(): Promise<ConsumerLag> {
    try {
      const info = await this.deps.jsm.consumers.info(this.deps.stream, this.opts.durable);
      const events = info.num_pending + info.num_ack_pending;
      if (events === 0) return { events, seconds: 0 };
      const oldest = await this.deps.jsm.streams.getMessage(this.deps.stream, { seq: info.ack_floor.stream_seq + 1 }).catch(() => null);
      const seconds = oldest ? Math.max(0, (Date.now() - oldest.time.getTime()) / 1000) : 0;
      return { events, seconds };
    } catch (err) {
      throw toBusError(err, 'connection_failed', `lag of consumer "${this.opts.durable}"`);
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopped = true;
      await this.messages?.close().catch(() => undefined);
      this.poke();
      await this.loop;
      // Make sure the acks and naks of the last batch reached the server before reporting closed.
      await this.deps.nc.flush().catch(() => undefined);
      this.deps.onClosed(this);
    })();
    return this.closing;
  }

  private receive(m: JsMsg): void {
    if (this.stopped) {
      settle(() => m.nak()); // arrived after close(): hand it straight back for another consumer
      return;
    }
    this.buffer.push(m);
    // While a partial batch lingers, only a full batch cuts the wait short.
    if (this.lingerUntil === undefined || this.buffer.length >= this.opts.maxBatch) this.poke();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.stopped) {
        // Not started yet, so not ours to finish: back to the server for immediate redelivery.
        for (const m of this.buffer.splice(0)) settle(() => m.nak());
        return;
      }
      if (this.buffer.length === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      if (this.opts.lingerMs > 0 && this.buffer.length < this.opts.maxBatch) {
        const now = Date.now();
        this.lingerUntil ??= now + this.opts.lingerMs;
        if (now < this.lingerUntil) {
          await this.pause(this.lingerUntil - now);
          continue;
        }
      }
      this.lingerUntil = undefined;
      await this.process(this.buffer.splice(0, this.opts.maxBatch));
    }
  }

  /** Waits `ms`, or less when poked (a full batch, close()). */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.poke(), ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async process(raw: JsMsg[]): Promise<void> {
    const batch: JsMsg[] = [];
    for (const m of raw) {
      if (this.clientFilter && !this.opts.filterSubjects.some((f) => subjectMatches(f, m.subject))) settle(() => m.ack());
      else batch.push(m);
    }
    const last = batch[batch.length - 1];
    if (!last) return;
    // The batch, and what arrives behind it meanwhile, stays ours while the handler works.
    const stopWorking = keepInProgress(this.opts.ackWaitMs, this.opts.maxWorkMs, () => {
      for (const m of batch) settle(() => m.working());
      for (const m of this.buffer) settle(() => m.working());
    });
    try {
      await this.opts.handler(batch.map(toEventMessage));
    } catch (err) {
      stopWorking();
      for (const m of batch) settle(() => m.nak(redeliveryDelay(this.deps.redeliveryDelayMs, m.info.deliveryCount)));
      this.deps.onError(err);
      return;
    }
    stopWorking();
    for (const m of batch) if (m !== last) settle(() => m.ack());
    // Acks are fire-and-forget; waiting for the server's confirmation of the last one (processed
    // in order) means the whole batch is recorded before the next batch or close() proceeds.
    await last.ackAck().catch(() => undefined);
  }
}
