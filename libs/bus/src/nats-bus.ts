/**
 * NatsBus: the Bus on a real NATS server (core NATS for request/reply and publish/subscribe,
 * JetStream for durable events), using the official NATS.js v3 packages.
 */
import { type Msg, type NatsConnection, PermissionViolationError, type Status, type Subscription as NatsSubscription } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import {
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { EVENTS_STREAM, EVENTS_WILDCARD, HEADER_MSG_ID, RUNS_QUEUE_WILDCARD, RUNS_STREAM } from '@toolhub/contracts';

import {
  type Bus,
  type BusConnection,
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
import { BusError, isBusError } from './errors';
import { type HandlerErrorCallback } from './handler-error';
import { NatsEventConsumer } from './nats-consumer';
import { NatsRequests } from './nats-requests';
import { RequestFlush } from './request-flush';
import { natsAuthenticator, type NatsCredentials, natsCredentialsFromEnv } from './nats-credentials';
import { fromNatsHeaders, toBusError, toNatsHeaders } from './nats-util';
import { assertPattern, assertPublishSubject } from './subject';
import {
  DEFAULT_DUPLICATE_WINDOW_MS,
  DEFAULT_MAX_PAYLOAD,
  assertEventSubject,
  assertPayload,
  assertTimeout,
  checkReply,
  copyBytes,
  internalErrorReply,
  normalizeConsumeOptions,
  streamOf,
} from './util';

/** A connection event, reported through {@link NatsBusOptions.onStatus}. */
export interface NatsBusStatus {
  /** NATS.js status type: `disconnect`, `reconnecting`, `reconnect`, `error`, `staleConnection`, `slowConsumer`, `ldm`, `update`, `close`, … */
  readonly type: string;
  /** Server the event concerns, when known. */
  readonly server?: string;
  /** The error, for `error` events. */
  readonly error?: Error;
}

/** Requests per event-loop turn (see request-flush.ts); 8 measured best at concurrency 64 (bench/dispatcher). */
export const DEFAULT_REQUESTS_PER_TURN = 8;

/** Options of {@link NatsBus.connect}. */
export interface NatsBusOptions {
  /** Server URL or URLs (`nats://host:port`). @default 'nats://127.0.0.1:4222' */
  servers?: string | string[];
  /** Connection name, shown in the server's monitoring. @default 'toolhub' */
  name?: string;
  /**
   * Reconnect attempts after losing the server; -1 retries forever. Services should outlive a
   * broker restart of any length (health checks report the outage), hence forever. @default -1
   */
  maxReconnectAttempts?: number;
  /** Pause between reconnect attempts. @default 2000 */
  reconnectTimeWaitMs?: number;
  /** Give up on the first connection after this long; the first connect is never retried. @default 5000 */
  connectTimeoutMs?: number;
  /** Create the `TOOLHUB_EVENTS` stream, or update its subjects and window, on connect. @default true */
  ensureStream?: boolean;
  /**
   * How long connect keeps asking a JetStream that answers with a timeout or "temporarily
   * unavailable" (a cluster electing its meta leader, a busy node). A server without JetStream
   * is refused at once. @default 30000
   */
  jetStreamWaitMs?: number;
  /** Storage of the stream when this bus creates it. @default 'file' */
  streamStorage?: 'file' | 'memory';
  /**
   * Copies of the stream in a NATS cluster when this bus creates it (1, 3 or 5; 3 survives the
   * loss of a node). An existing stream keeps its replicas. @default 1
   */
  streamReplicas?: number;
  /** The stream's de-duplication window (same `msgId` stored once within it). @default 120000 */
  duplicateWindowMs?: number;
  /** Events older than this are dropped from the stream. @default 604800000 (7 days) */
  maxEventAgeMs?: number;
  /** How long publishEvent waits for the stream's acknowledgement. @default 5000 */
  publishTimeoutMs?: number;
  /** First pause before a failed batch is redelivered; doubles per delivery, capped at 30 s. @default 250 */
  redeliveryDelayMs?: number;
  /**
   * Capture a stack trace when each request starts, so a timeout shows where it was sent from.
   * Costs two Error objects (stack captures) per request: about a tenth of a busy dispatcher's
   * CPU, hence off; the BusError of a failed request names its subject either way. @default false
   */
  asyncTraces?: boolean;
  /**
   * Requests sent per event-loop turn (see request-flush.ts): those of a turn leave together at its
   * end, at most this many; the rest go this many at a time in the turns after. 0 = all of a turn
   * in one write. The one place socket batching is tuned. @default 8
   */
  requestsPerTurn?: number;
  /**
   * Send requests and JetStream publishes through the bus's own reply multiplexer
   * (nats-requests.ts) instead of NATS.js's `request()` and `js.publish()`, which cost a request
   * object, a timer and a captured Error each (~4% of a dispatcher's CPU per RunTool). `false`
   * uses the library's own calls; the bus contract suite runs both ways
   * (test/nats.contract.int.test.ts), so a NATS.js upgrade that changes their semantics shows. @default true
   */
  multiplexRequests?: boolean;
  /**
   * How to authenticate to NATS; `null` connects without credentials.
   * @default from the environment (NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_CREDS, NATS_NKEY_SEED[_FILE]; see nats-credentials.ts), else none
   */
  credentials?: NatsCredentials | null;
  /**
   * Prefix of this connection's reply inboxes. Per-service NATS users may only read their own
   * inboxes (see nats-permissions.ts): set `_INBOX_<user>`. @default NATS_INBOX_PREFIX, else `_INBOX`
   */
  inboxPrefix?: string;
  /** Connection events (disconnect, reconnect, errors). The bus never logs. @default no-op */
  onStatus?: (status: NatsBusStatus) => void;
  /** A subscribe handler or a consumer batch handler threw (serve errors go back to the caller). @default no-op */
  onError?: HandlerErrorCallback;
}

function withDefaults(options: NatsBusOptions): Required<NatsBusOptions> {
  return {
    servers: options.servers ?? 'nats://127.0.0.1:4222',
    name: options.name ?? 'toolhub',
    maxReconnectAttempts: options.maxReconnectAttempts ?? -1,
    reconnectTimeWaitMs: options.reconnectTimeWaitMs ?? 2000,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    ensureStream: options.ensureStream ?? true,
    jetStreamWaitMs: options.jetStreamWaitMs ?? 30_000,
    inboxPrefix: options.inboxPrefix ?? (process.env['NATS_INBOX_PREFIX']?.trim() || '_INBOX'),
    credentials: options.credentials === undefined ? (natsCredentialsFromEnv() ?? null) : options.credentials,
    streamStorage: options.streamStorage ?? 'file',
    streamReplicas: options.streamReplicas ?? 1,
    duplicateWindowMs: options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS,
    maxEventAgeMs: options.maxEventAgeMs ?? 7 * 24 * 3_600_000,
    publishTimeoutMs: options.publishTimeoutMs ?? 5000,
    redeliveryDelayMs: options.redeliveryDelayMs ?? 250,
    asyncTraces: options.asyncTraces ?? false,
    requestsPerTurn: options.requestsPerTurn ?? DEFAULT_REQUESTS_PER_TURN,
    multiplexRequests: options.multiplexRequests ?? true,
    onStatus: options.onStatus ?? (() => undefined),
    onError: options.onError ?? (() => undefined),
  };
}

/** Creates the events stream, or widens/updates an existing one; never narrows what others rely on. */
async function ensureEventsStream(jsm: JetStreamManager, opts: Required<NatsBusOptions>): Promise<void> {
  const duplicateWindow = nanos(opts.duplicateWindowMs);
  const isNotFound = (err: unknown): boolean => err instanceof Error && /stream not found/i.test(err.message);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { config } = await jsm.streams.info(EVENTS_STREAM);
      if (!config.subjects.includes(EVENTS_WILDCARD) || config.duplicate_window !== duplicateWindow || config.max_age !== nanos(opts.maxEventAgeMs)) {
        await jsm.streams.update(EVENTS_STREAM, {
          subjects: [...new Set([...config.subjects, EVENTS_WILDCARD])],
          duplicate_window: duplicateWindow,
          max_age: nanos(opts.maxEventAgeMs),
        });
      }
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await jsm.streams.add({
        name: EVENTS_STREAM,
        subjects: [EVENTS_WILDCARD],
        storage: opts.streamStorage === 'memory' ? StorageType.Memory : StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
        duplicate_window: duplicateWindow,
        // Events are history, not state: a week covers any registry outage and keeps the stream
        // (and the replay of a new durable consumer) bounded.
        max_age: nanos(opts.maxEventAgeMs),
        num_replicas: opts.streamReplicas,
      });
      return;
    } catch (err) {
      // Another service created it between our info and add: loop once to check/update it.
      if (attempt > 0) throw err;
    }
  }
}

/**
 * Creates the work-queue stream of async runs if missing: one message per queued run, removed once
 * a worker acknowledges it (the run's record, in the run store, holds everything else).
 */
async function ensureRunsStream(jsm: JetStreamManager, opts: Required<NatsBusOptions>): Promise<void> {
  try {
    const { config } = await jsm.streams.info(RUNS_STREAM);
    if (!config.subjects.includes(RUNS_QUEUE_WILDCARD)) await jsm.streams.update(RUNS_STREAM, { subjects: [RUNS_QUEUE_WILDCARD] });
    return;
  } catch (err) {
    if (!(err instanceof Error && /stream not found/i.test(err.message))) throw err;
  }
  try {
    await jsm.streams.add({
      name: RUNS_STREAM,
      subjects: [RUNS_QUEUE_WILDCARD],
      storage: opts.streamStorage === 'memory' ? StorageType.Memory : StorageType.File,
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(opts.duplicateWindowMs),
      num_replicas: opts.streamReplicas,
    });
  } catch (err) {
    // Another service created it between our info and add.
    if (!(err instanceof Error && /already in use|already exists/i.test(err.message))) throw err;
  }
}

/** NATS.js's js.publish to a subject no stream stores: "no responders" (possibly wrapped). */
function isNoStream(err: unknown): boolean {
  return isBusError(toBusError(err, 'publish_failed', ''), 'no_responders');
}

/** Checks a JetStream publish acknowledgement (`{"stream":…,"seq":…}` or `{"error":{…}}`). @throws BusError publish_failed */
function assertPubAck(subject: string, data: Uint8Array): void {
  let ack: { stream?: unknown; error?: { code?: unknown; description?: unknown } };
  try {
    ack = JSON.parse(new TextDecoder().decode(data)) as typeof ack;
  } catch {
    throw new BusError('publish_failed', `publishEvent("${subject}"): the stream's acknowledgement is not JSON`);
  }
  if (ack.error) throw new BusError('publish_failed', `publishEvent("${subject}"): JetStream refused the event: ${String(ack.error.description)} (${String(ack.error.code)})`);
  if (typeof ack.stream !== 'string' || ack.stream === '') throw new BusError('publish_failed', `publishEvent("${subject}"): invalid acknowledgement from the stream`);
}

/** JetStream errors that pass once a cluster has settled (leader election, a node catching up). */
const TRANSIENT_JETSTREAM = /timeout|timed out|temporarily unavailable|not ready|no suitable peers/i;

/** Retries `attempt` while JetStream answers with a transient error, for at most `budgetMs`. */
async function untilJetStreamAnswers<T>(budgetMs: number, attempt: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + budgetMs;
  for (let pause = 250; ; pause = Math.min(pause * 2, 2000)) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof Error) || !TRANSIENT_JETSTREAM.test(err.message) || Date.now() + pause > giveUpAt) throw err;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Tracks handler promises so a subscription can wait for the ones in flight. */
class InFlight {
  private readonly tasks = new Set<Promise<unknown>>();
  track(task: Promise<unknown>): void {
    const t = task.finally(() => this.tasks.delete(t));
    this.tasks.add(t);
  }
  async idle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }
}

class NatsBusSubscription implements Subscription {
  private closing: Promise<void> | undefined;
  constructor(
    private readonly sub: NatsSubscription,
    private readonly inFlight: InFlight,
    private readonly onClosed: (s: NatsBusSubscription) => void,
  ) {}
  close(): Promise<void> {
    this.closing ??= (async () => {
      // drain: the server stops sending, messages already received are still handled.
      if (!this.sub.isClosed()) await this.sub.drain().catch(() => undefined);
      await this.inFlight.idle();
      this.onClosed(this);
    })();
    return this.closing;
  }
}

function toBusMessage(msg: Msg): BusMessage {
  // Copy: NATS.js may hand out views into its read buffer.
  return { subject: msg.subject, data: copyBytes(msg.data), headers: fromNatsHeaders(msg.headers) };
}

/**
 * A {@link Bus} on NATS. Create with {@link NatsBus.connect}; call {@link NatsBus.close} on shutdown
 * (drains subscriptions and consumers, then the connection).
 */
export class NatsBus implements Bus {
  private readonly subs = new Set<NatsBusSubscription>();
  private readonly consumers = new Set<NatsEventConsumer>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly flush: RequestFlush;
  private state: BusConnection;
  private violations = 0;
  private readonly requests: NatsRequests;
  /** Requests sent and not answered yet: a request made when there are none goes at once (see RequestFlush). */
  private requestsInFlight = 0;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly options: Required<NatsBusOptions>,
  ) {
    this.state = { connected: true, detail: `connected to ${nc.getServer()}`, sinceUnixMs: Date.now() };
    this.requests = new NatsRequests(nc, options.inboxPrefix);
    this.flush = new RequestFlush(options.requestsPerTurn);
    this.watchStatus()
      .catch(() => undefined) // ends with the connection; never unhandled
      .finally(() => this.requests.close());
  }

  /** Connected, or since when not (from NATS.js status events: disconnect, reconnect, close). */
  connection(): BusConnection {
    return this.state;
  }

  /**
   * Connects, checks JetStream is enabled and (by default) ensures the events stream exists.
   * @throws BusError `connection_failed` when the server is unreachable or JetStream is off.
   */
  static async connect(options: NatsBusOptions = {}): Promise<NatsBus> {
    const opts = withDefaults(options);
    if (!Number.isInteger(opts.requestsPerTurn) || opts.requestsPerTurn < 0) {
      throw new BusError('invalid_argument', `requestsPerTurn must be a whole number ≥ 0, got ${JSON.stringify(opts.requestsPerTurn)}`);
    }
    let nc: NatsConnection;
    try {
      nc = await connect({
        servers: opts.servers,
        name: opts.name,
        maxReconnectAttempts: opts.maxReconnectAttempts,
        reconnectTimeWait: opts.reconnectTimeWaitMs,
        timeout: opts.connectTimeoutMs,
        noAsyncTraces: !opts.asyncTraces,
        inboxPrefix: opts.inboxPrefix,
        ...(opts.credentials ? { authenticator: natsAuthenticator(opts.credentials) } : {}),
      });
    } catch (err) {
      throw new BusError('connection_failed', `cannot connect to NATS at ${String(opts.servers)}: ${(err as Error).message}${authHint(err, opts.credentials)}`, { cause: err });
    }
    try {
      const jsm = await untilJetStreamAnswers(opts.jetStreamWaitMs, async () => {
        const m = await jetstreamManager(nc);
        if (opts.ensureStream) {
          await ensureEventsStream(m, opts);
          await ensureRunsStream(m, opts);
        }
        return m;
      });
      return new NatsBus(nc, jsm, jsm.jetstream(), opts);
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw new BusError(
        'connection_failed',
        `NATS at ${String(opts.servers)} is reachable but JetStream is not usable (start nats-server with -js): ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  /** The server's `max_payload` (it may change after a reconnect to another server). */
  /** Publishes and subscriptions the server refused for this connection's user (permission violations), since connect. */
  get permissionViolations(): number {
    return this.violations;
  }

  get maxPayload(): number {
    return this.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  }

  async request(subject: string, data: Uint8Array, options: RequestOptions): Promise<BusReply> {
    this.assertOpen();
    assertPublishSubject(subject);
    assertTimeout(options.timeoutMs);
    assertPayload(data, options.headers, this.maxPayload);
    const alone = this.requestsInFlight === 0;
    this.requestsInFlight++;
    try {
      const headers = toNatsHeaders(options.headers);
      const msg = await this.flush.defer(
        () => (this.options.multiplexRequests ? this.requests.request(subject, data, headers, options.timeoutMs) : this.nc.request(subject, data, { headers, timeout: options.timeoutMs })),
        alone,
      );
      return { data: copyBytes(msg.data), headers: fromNatsHeaders(msg.headers) };
    } catch (err) {
      throw toBusError(err, 'connection_failed', `request to "${subject}"`);
    } finally {
      this.requestsInFlight--;
    }
  }

  async serve(subject: string, handler: RequestHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    return this.register(subject, options, async (msg) => {
      let reply: BusReply;
      try {
        reply = checkReply(await handler(toBusMessage(msg)), this.maxPayload);
      } catch (err) {
        reply = internalErrorReply(err);
      }
      if (!msg.reply) return; // a plain publish to a served subject: nobody waits for the answer
      try {
        msg.respond(reply.data, { headers: toNatsHeaders(reply.headers) });
      } catch (err) {
        this.options.onError(err, { kind: 'serve', source: subject });
      }
    });
  }

  publish(subject: string, data: Uint8Array, headers?: Headers): void {
    this.assertOpen();
    assertPublishSubject(subject);
    assertPayload(data, headers, this.maxPayload);
    try {
      this.nc.publish(subject, data, { headers: toNatsHeaders(headers) });
    } catch (err) {
      throw toBusError(err, 'connection_failed', `publish to "${subject}"`);
    }
  }

  async subscribe(subject: string, handler: MessageHandler, options: SubscribeOptions = {}): Promise<Subscription> {
    return this.register(subject, options, async (msg) => {
      try {
        await handler(toBusMessage(msg));
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
    assertPayload(data, { ...options.headers, [HEADER_MSG_ID]: options.msgId }, this.maxPayload);
    // A JetStream publish is a request whose reply is the stream's acknowledgement; sent through the
    // shared request multiplexer (see nats-requests.ts) rather than NATS.js's JetStream client,
    // which costs a request object, a timer and an Error per event.
    const headers = toNatsHeaders({ ...options.headers, [HEADER_MSG_ID]: options.msgId });
    if (!this.options.multiplexRequests) {
      try {
        await this.js.publish(subject, data, { msgID: options.msgId, headers, timeout: this.options.publishTimeoutMs });
        return;
      } catch (err) {
        throw isNoStream(err)
          ? new BusError('publish_failed', `publishEvent("${subject}"): no stream stores this subject (is ${EVENTS_STREAM} created?)`, { cause: err })
          : toBusError(err, 'publish_failed', `publishEvent("${subject}")`);
      }
    }
    let reply: Msg;
    try {
      reply = await this.requests.request(subject, data, headers, this.options.publishTimeoutMs);
    } catch (err) {
      throw isBusError(err, 'no_responders')
        ? new BusError('publish_failed', `publishEvent("${subject}"): no stream stores this subject (is ${EVENTS_STREAM} created?)`, { cause: err })
        : toBusError(err, 'publish_failed', `publishEvent("${subject}")`);
    }
    assertPubAck(subject, reply.data);
  }

  async consumeEvents(options: ConsumeOptions): Promise<EventConsumer> {
    this.assertOpen();
    const opts = normalizeConsumeOptions(options);
    const consumer = await NatsEventConsumer.start(
      {
        nc: this.nc,
        js: this.js,
        jsm: this.jsm,
        stream: streamOf(opts.filterSubjects),
        redeliveryDelayMs: this.options.redeliveryDelayMs,
        onError: (err) => this.options.onError(err, { kind: 'consume', source: opts.durable }),
        onClosed: (c) => this.consumers.delete(c),
      },
      opts,
    );
    if (this.closed) {
      // close() ran while we were starting: do not leave a consumer nobody will stop.
      await consumer.close();
      throw new BusError('closed', 'the bus is closed');
    }
    this.consumers.add(consumer);
    return consumer;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      await Promise.allSettled([...this.consumers].map((c) => c.close()));
      await Promise.allSettled([...this.subs].map((s) => s.close()));
      if (!this.nc.isClosed()) {
        // drain flushes what we published, then closes; it throws if already closing/closed.
        await this.nc.drain().catch(() => undefined);
      }
      await this.nc.closed();
      this.requests.close();
      this.state = { connected: false, detail: 'closed', sinceUnixMs: Date.now() };
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closed || this.nc.isClosed()) throw new BusError('closed', 'the bus is closed');
  }

  private async register(subject: string, options: SubscribeOptions, run: (msg: Msg) => Promise<void>): Promise<Subscription> {
    this.assertOpen();
    assertPattern(subject);
    if (options.queue !== undefined && !/^[^\s.*>]+$/.test(options.queue)) {
      throw new BusError('invalid_argument', `invalid queue group name ${JSON.stringify(options.queue)}`);
    }
    const inFlight = new InFlight();
    let sub: NatsSubscription;
    try {
      sub = this.nc.subscribe(subject, {
        ...(options.queue ? { queue: options.queue } : {}),
        callback: (err, msg) => {
          if (err) this.options.onError(err, { kind: 'subscribe', source: subject });
          else inFlight.track(run(msg));
        },
      });
      // Round trip so the server knows the interest before we return: a request sent right after
      // serve() must not fail with no_responders.
      await this.nc.flush();
    } catch (err) {
      throw toBusError(err, 'connection_failed', `subscribe to "${subject}"`);
    }
    const wrapped = new NatsBusSubscription(sub, inFlight, (s) => this.subs.delete(s));
    this.subs.add(wrapped);
    return wrapped;
  }

  private async watchStatus(): Promise<void> {
    // The iterator ends when the connection closes.
    for await (const s of this.nc.status()) {
      const now = Date.now();
      if (s.type === 'disconnect' && this.state.connected) {
        this.state = { connected: false, detail: `disconnected from NATS (${'server' in s ? String(s.server) : 'server'}) since ${new Date(now).toISOString()}; reconnecting`, sinceUnixMs: now };
      } else if (s.type === 'reconnect') {
        this.state = { connected: true, detail: `connected to ${this.nc.getServer()} (reconnected ${new Date(now).toISOString()})`, sinceUnixMs: now };
      } else if (s.type === 'error' && s.error instanceof PermissionViolationError) {
        this.violations++;
        // A request the server refused to route: fail it now instead of at its timeout.
        if (s.error.operation === 'publish') this.requests.failSubject(s.error.subject, s.error);
      }
      try {
        this.options.onStatus(toStatus(s));
      } catch {
        // A throwing callback must neither stop status reporting nor crash the process.
      }
    }
  }
}

function toStatus(s: Status): NatsBusStatus {
  return {
    type: s.type,
    ...('server' in s && typeof s.server === 'string' ? { server: s.server } : {}),
    ...('error' in s && s.error instanceof Error ? { error: s.error } : {}),
  };
}

/** What to do about a refused login, for the connect error (the server only says "Authorization Violation"). */
function authHint(err: unknown, credentials: NatsCredentials | null | undefined): string {
  if (!/authorization|authentication/i.test(err instanceof Error ? `${err.name} ${err.message}` : String(err))) return '';
  if (!credentials) {
    return '. The server requires credentials: set NATS_USER and NATS_PASSWORD (or NATS_TOKEN, NATS_CREDS, NATS_NKEY_SEED[_FILE]); `bash scripts/services.sh up` prints its admin user';
  }
  if ('user' in credentials) return `. The server refused the credentials of user "${credentials.user}": check NATS_USER and NATS_PASSWORD against the server's users`;
  return '. The server refused the credentials given (NATS_TOKEN, NATS_CREDS or NATS_NKEY_SEED): check them against the server';
}
