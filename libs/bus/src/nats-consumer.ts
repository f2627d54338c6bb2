/**
 * Durable JetStream pull consumer behind {@link Bus.consumeEvents}. One loop pulls a batch of up
 * to `maxBatch` events (see `collect`), hands it to the handler, then acknowledges every message
 * of the batch (or naks it with a backoff when the handler throws). At-least-once: nothing is
 * acknowledged before the handler resolves.
 */
import { type NatsConnection } from '@nats-io/nats-core';
import {
  AckPolicy,
  DeliverPolicy,
  type Consumer,
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
    // By default two batches in flight at most: one in the handler, one arriving. Bounds client memory.
    max_ack_pending: opts.maxAckPending,
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

/** How long the pull for a batch's first event stays open; heartbeats come at half of it. */
const FIRST_PULL_MS = 30_000;
/** The pull for what already waits on the server (the client library's minimum). */
const REST_PULL_MS = 1_000;
/** Retry after a failed pull: doubles from the first to the last. */
const RETRY_MS = [1_000, 30_000] as const;

/** A running durable consumer on NATS. Create with {@link NatsEventConsumer.start}. */
export class NatsEventConsumer implements EventConsumer {
  private stopped = false;
  private wake: (() => void) | undefined;
  /** The pull request now open, stopped by close(). */
  private pulling: ConsumerMessages | undefined;
  private loop: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly deps: NatsConsumerDeps,
    private readonly opts: Required<ConsumeOptions>,
    private readonly consumer: Consumer,
    private readonly clientFilter: boolean,
    readonly created: boolean,
  ) {}

  static async start(deps: NatsConsumerDeps, opts: Required<ConsumeOptions>): Promise<NatsEventConsumer> {
    const { clientFilter, created } = await ensureConsumer(deps, opts);
    let consumer: Consumer;
    try {
      consumer = await deps.js.consumers.get(deps.stream, opts.durable);
    } catch (err) {
      throw toBusError(err, 'connection_failed', `consumer "${opts.durable}"`);
    }
    const self = new NatsEventConsumer(deps, opts, consumer, clientFilter, created);
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
      await this.pulling?.close().catch(() => undefined);
      this.poke();
      await this.loop;
      // Make sure the acks and naks of the last batch reached the server before reporting closed.
      await this.deps.nc.flush().catch(() => undefined);
      this.deps.onClosed(this);
    })();
    return this.closing;
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let batch: JsMsg[];
      try {
        batch = await this.collect();
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        // E.g. the consumer was deleted, or NATS is unreachable: say so, and try again later.
        this.deps.onError(toBusError(err, 'connection_failed', `consumer "${this.opts.durable}"`));
        await this.pause(Math.min(RETRY_MS[0] * 2 ** failures++, RETRY_MS[1]));
        continue;
      }
      if (this.stopped) {
        // Not started yet, so not ours to finish: back to the server for immediate redelivery.
        for (const m of batch) settle(() => m.nak());
        break;
      }
      if (batch.length > 0) await this.process(batch);
    }
  }

  /**
   * One batch. No pull request is open while a partial batch lingers: JetStream hands an open
   * request each event as it arrives, and waking up for every arrival is what a trickle of events
   * costs most (bench/registry README). So: wait for a first event, linger unless a full batch
   * already waits, then fetch what waits on the server in one request.
   */
  private async collect(): Promise<JsMsg[]> {
    const batch = await this.pull(1, FIRST_PULL_MS);
    const first = batch[0];
    if (!first || this.opts.maxBatch === 1) return batch;
    try {
      let take = await this.takeable(first);
      if (this.opts.lingerMs > 0 && take < this.opts.maxBatch - 1) {
        await this.pause(this.opts.lingerMs);
        if (this.stopped) return batch;
        take = await this.takeable(first);
      }
      if (take > 0) batch.push(...(await this.pull(take, REST_PULL_MS, true)));
      return batch;
    } catch (err) {
      for (const m of batch) settle(() => m.nak());
      throw err;
    }
  }

  /**
   * How many more events to fetch for the batch begun with `first`: those waiting on the server
   * and, while redeliveries come in (`first` is one), those delivered but not acknowledged (e.g. a
   * killed replica's batch, due again together), within `maxBatch` and the server's
   * `max_ack_pending` (a pull beyond it stalls).
   */
  private async takeable(first: JsMsg): Promise<number> {
    const info = await this.consumer.info();
    const redelivering = first.info.deliveryCount > 1;
    const due = info.num_pending + (redelivering ? Math.max(0, info.num_ack_pending - 1) : 0);
    const limit = info.config.max_ack_pending ?? 0;
    const free = limit > 0 ? limit - info.num_ack_pending : Number.POSITIVE_INFINITY;
    return Math.max(0, Math.min(this.opts.maxBatch - 1, due, free));
  }

  /**
   * Up to `max` events: ends when they arrived, the request expired, or close() stopped it. With
   * `keepOnError` whatever ends the pull early keeps what arrived — for the rest of a batch, where
   * that is fewer events than counted (another replica took some) or missed heartbeats while this
   * process was busy: those events are ours, and a real fault shows on the next first pull.
   * Otherwise an error gives back what arrived and is thrown.
   */
  private async pull(max: number, expires: number, keepOnError = false): Promise<JsMsg[]> {
    const got: JsMsg[] = [];
    const messages = await this.consumer.fetch({ max_messages: max, expires });
    this.pulling = messages;
    try {
      if (this.stopped) await messages.close();
      for await (const m of messages) got.push(m);
    } catch (err) {
      if (!keepOnError) {
        for (const m of got) settle(() => m.nak());
        throw err;
      }
    } finally {
      this.pulling = undefined;
    }
    return got;
  }

  /** Waits `ms`, or less when poked (close()). */
  private async pause(ms: number): Promise<void> {
    if (this.stopped) return;
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
    // The batch stays ours while the handler works.
    const stopWorking = keepInProgress(this.opts.ackWaitMs, this.opts.maxWorkMs, () => {
      for (const m of batch) settle(() => m.working());
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
