/**
 * The Bus port: how ToolHub services talk. Request/reply with deadlines and queue groups (adapter
 * calls), fire-and-forget publish/subscribe (invalidation fan-out), and durable events with
 * de-duplication (JetStream in production). Implementations: NATS and in-process.
 *
 * The bus moves bytes and headers only; it knows nothing of protobuf, tracing or error codes.
 */

/** Header map; names are case-sensitive as NATS treats them. */
export type Headers = Record<string, string>;

/** A message delivered to a handler. */
export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: Headers;
}

/** A reply to a request. */
export interface BusReply {
  readonly data: Uint8Array;
  readonly headers: Headers;
}

export interface RequestOptions {
  /** Give up after this many milliseconds (required: there is no unbounded request). */
  timeoutMs: number;
  headers?: Headers;
}

/** Answers one request. Throwing makes the bus send an `internal` error reply; prefer returning one. */
export type RequestHandler = (msg: BusMessage) => Promise<BusReply> | BusReply;

/** Receives one published message. */
export type MessageHandler = (msg: BusMessage) => Promise<void> | void;

export interface SubscribeOptions {
  /** Queue group: each message goes to one member of the group. Omit for fan-out to every subscriber. */
  queue?: string;
}

/** A live subscription or service endpoint. */
export interface Subscription {
  /** Stop receiving; in-flight handlers finish first. */
  close(): Promise<void>;
}

export interface PublishEventOptions {
  /** De-duplication id (`Nats-Msg-Id`): the same id published twice is stored once. */
  msgId: string;
  headers?: Headers;
}

/** A durable event handed to a consumer. */
export interface EventMessage extends BusMessage {
  /** The publisher's de-duplication id. */
  readonly msgId: string;
  /** Stream sequence number, increasing. */
  readonly seq: number;
  /** Times this event was delivered, 1 for the first delivery. */
  readonly deliveryCount: number;
}

export interface ConsumeOptions {
  /** Durable consumer name: progress survives restarts of the consumer. */
  durable: string;
  /** Subjects (wildcards allowed) to receive. */
  filterSubjects: string[];
  /**
   * Processes a batch. Resolving acknowledges every event in it; throwing leaves all of them
   * unacknowledged, so they are delivered again (at-least-once: de-duplicate by `msgId`).
   */
  handler: (batch: EventMessage[]) => Promise<void>;
  /** @default 256 */
  maxBatch?: number;
  /** How long an unacknowledged event waits before redelivery. @default 30000 */
  ackWaitMs?: number;
  /**
   * Only when the durable consumer does not exist yet: start with the events stored at or after
   * this time instead of the whole stream (a new deployment need not replay a week). An existing
   * consumer always resumes where it stopped. 0 = the whole stream. @default 0
   */
  startAtUnixMs?: number;
  /**
   * How long a partial batch (fewer than `maxBatch` events) waits for more before the handler
   * runs: fewer, larger batches for a handler whose cost is mostly per batch (a database write).
   * A full batch already waiting runs at once, so a backlog drains without lingering. On NATS the
   * consumer pulls nothing while it lingers — events arriving meanwhile wait on the server until
   * the linger ends — so a trickle wakes it once per linger, not once per event. At most a quarter
   * of `ackWaitMs`. @default 0
   */
  lingerMs?: number;
  /**
   * How long a batch whose handler is still running keeps its events from redelivery: every `ackWaitMs / 3` the consumer tells the broker they
   * are still being worked on (JetStream "in progress"). Without it a handler slower than
   * `ackWaitMs` sees its own events delivered again behind it, and the redelivered copies cost a
   * de-duplicating handler more than the first ones did (a spiral on a slow database). After
   * `maxWorkMs` it stops, so a hung handler cannot hold events for ever: they go to another
   * consumer of the durable. 0 turns it off. @default 10 × ackWaitMs
   */
  maxWorkMs?: number;
  /**
   * Events delivered and not yet acknowledged, across every consumer of the durable (JetStream
   * `max_ack_pending`). A work queue whose handlers each hold one event for a long time (async
   * runs) needs room for every worker of every replica. @default 2 × maxBatch
   */
  maxAckPending?: number;
}

/** How far a consumer is behind its stream. */
export interface ConsumerLag {
  /** Events not processed yet (waiting plus delivered but unacknowledged). */
  readonly events: number;
  /** Age of the oldest of them, in seconds; 0 when caught up. */
  readonly seconds: number;
}

/** A running durable consumer. */
export interface EventConsumer {
  /** Stop fetching; the batch in progress finishes (and is acknowledged) first. */
  close(): Promise<void>;
  /** Whether this start created the durable consumer (a new deployment) rather than resuming it. */
  readonly created?: boolean;
  /** How far behind the stream the consumer is; asks the server. Optional for older implementations. */
  lag?(): Promise<ConsumerLag>;
}

/** Whether a bus can reach its broker right now. */
export interface BusConnection {
  readonly connected: boolean;
  /** What happened and when, e.g. "disconnected from nats://… since 2026-…; reconnecting". */
  readonly detail: string;
  /** When the current state began, epoch ms. */
  readonly sinceUnixMs: number;
}

/** The port every bus implementation fulfils; checked by one contract suite (`@toolhub/bus/testing`). */
export interface Bus {
  /** Request/reply. @throws BusError `no_responders`, `timeout`, `closed` or `payload_too_large`. */
  request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply>;
  /** Serves requests on `subject`; with `queue`, replicas share the load. */
  serve(subject: string, handler: RequestHandler, options?: SubscribeOptions): Promise<Subscription>;
  /** Fire-and-forget publish (not durable). */
  publish(subject: string, data: Uint8Array, headers?: Headers): void;
  /** Receives published messages (and requests, which it must not answer). */
  subscribe(subject: string, handler: MessageHandler, options?: SubscribeOptions): Promise<Subscription>;
  /** Durably stores an event; resolves once stored. Duplicate `msgId`s are dropped. @throws BusError */
  publishEvent(subject: string, data: Uint8Array, options: PublishEventOptions): Promise<void>;
  /** Starts a durable, at-least-once consumer. */
  consumeEvents(options: ConsumeOptions): Promise<EventConsumer>;
  /** Largest payload accepted, in bytes. */
  readonly maxPayload: number;
  /**
   * The broker connection's state, for health checks and failing fast while it is down.
   * Optional so older implementations still fit; absent means "assume connected".
   */
  connection?(): BusConnection;
  /** Drains subscriptions and consumers, then closes. Idempotent. */
  close(): Promise<void>;
}
