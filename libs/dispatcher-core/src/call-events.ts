/**
 * Publishes a `tool.called` event for every RunTool to JetStream. How durable an event is before
 * the call's reply goes out is chosen by `durability`:
 * - `outbox` (the dispatcher app's default): appended to an on-disk write-ahead journal first
 *   ({@link EventJournal}); published in the background; a dispatcher killed before JetStream
 *   acknowledged it leaves it on disk, and the next dispatcher on that directory publishes it.
 * - `ack`: the reply waits for JetStream's acknowledgement (one more round trip per call, and a
 *   call waits while NATS is down, up to `ackTimeoutMs`).
 * - `memory`: kept in a bounded in-memory queue only (one-process mode, tests): lost on a crash.
 * Events finished together go out together: one provider's as one message of up to
 * `eventsPerMessage` (contracts' tool-called-messages.ts). Whatever cannot be stored right now (bus
 * down, stream busy) is retried with capped backoff; retries are safe: the stream drops a message id
 * it has (an event's id, or a batch's hash of its ids), and the registry counts each event id once.
 * A refused message is retried as it was formed (same events, same id), never regrouped with later
 * events: when the refusal was a lost acknowledgement of a message the stream did store, the retry
 * is dropped by the stream's de-duplication instead of storing its events a second time.
 *
 * With `claimGroups`, each event is stamped with a claim group when it is recorded (before the
 * outbox append): the provider's open group, closed after `eventsPerMessage` events or when the
 * pending events are taken for publishing, so a message is one group. Stamped events go on
 * `tool.called.grouped.<provider>`, where a registry claims a group's events with one document
 * instead of one each (docs/claim-groups.md). Every copy keeps the stamp (a retry, an outbox
 * replay however it regroups), and a replayed event goes grouped exactly when it is stamped.
 */
import { randomBytes } from 'node:crypto';

import type { Bus } from '@toolhub/bus';
import { encodeReusing, ToolCalled, toolCalledMessage } from '@toolhub/contracts';

import { claimOrphans, EventJournal, type JournalTicket, type OutboxDamage, OutboxWriteError, type RecoveredEvents } from './event-journal';

/** How durable a call's event is when the agent gets the reply. */
export type EventDurability = 'outbox' | 'ack' | 'memory';

export interface CallEventsOptions {
  /** @default 'memory' (the dispatcher app defaults to 'outbox') */
  durability?: EventDurability;
  /** Directory of the outbox journal; required with durability 'outbox'. */
  outboxDir?: string;
  /** fsync each outbox append (power-loss safe; slower). @default false */
  outboxFsync?: boolean;
  /** Longest wait for the acknowledgement with durability 'ack'. @default 5000 */
  ackTimeoutMs?: number;
  /** Events kept in memory while the bus cannot store them; the oldest are dropped past this (and counted). With an outbox, dropped events stay on disk for the next start. @default 100000 */
  maxPending?: number;
  /** First retry delay; doubles per failed attempt up to 5 s, with jitter. @default 100 */
  retryDelayMs?: number;
  /**
   * Longest an event waits for others to be published with it; a full message's worth
   * (`eventsPerMessage`) goes at once. At low rates a longer wait means fewer publishes and
   * acknowledgements per call; the events are on disk (outbox) or queued meanwhile. @default 50
   */
  batchDelayMs?: number;
  /**
   * Most events of one provider published as one message (a `ToolCalledBatch` on
   * `tool.called.batch.<provider>`); 1 publishes each on its own (`tool.called.<provider>`), which
   * registries older than the batch subject need to count them: with more, their events wait in
   * the stream until a registry that reads batches takes them. @default 16
   */
  eventsPerMessage?: number;
  /**
   * Stamp each event with a claim group and publish stamped events on
   * `tool.called.grouped.<provider>` (see the header). Only registries of 2026-11-27 or later read
   * that subject: until they run, grouped events wait in the stream. @default false
   */
  claimGroups?: boolean;
  /**
   * While this returns true (the dispatcher is shedding load), publishing waits, for at most
   * `maxHoldMs` after the oldest waiting event was recorded: publishing is CPU the calls being
   * answered need, and the events are already durable (outbox) or queued. Ignored with durability
   * 'ack', whose callers wait for the publication. @default never holds
   */
  holdWhile?: () => boolean;
  /** Longest hold of an event by `holdWhile`. @default 2000 */
  maxHoldMs?: number;
  onError?: (err: unknown) => void;
  /** Events recovered from a dead dispatcher's outbox (at start and by the periodic scan), and what was damaged there. */
  onRecovered?: (events: number, from: string, damage: readonly OutboxDamage[]) => void;
  /**
   * The outbox could not be written (full disk, I/O error: `healthy` false, with the reason) or can
   * be again; called on each change only. Meanwhile events are kept in memory (up to `maxPending`)
   * and published as usual: the calls' answers do not change.
   */
  onOutboxState?: (state: OutboxState) => void;
  /** How often directories of dead dispatchers are looked for and their events taken over (0: only at start). @default 5000 */
  orphanScanMs?: number;
}

/** Whether the outbox takes appends; see {@link CallEventsOptions.onOutboxState}. */
export interface OutboxState {
  readonly healthy: boolean;
  /** Why not, when not. */
  readonly detail: string;
}

interface Pending {
  readonly provider: string;
  /** The event's claim group ('' for none): grouped events are published together, on the grouped subject. */
  readonly group: string;
  /** When it was queued (epoch ms), for the longest hold. */
  readonly queuedAt: number;
  readonly msgId: string;
  readonly data: Uint8Array;
  /** Set once the event is in the outbox (by the append of its turn). */
  ticket?: JournalTicket;
  readonly recovered?: RecoveredBatch;
  readonly stored?: (ok: boolean) => void;
}

/** A message formed from some pending events, kept as formed until the stream stores it. */
interface Message {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly msgId: string;
  readonly events: readonly Pending[];
}

interface RecoveredBatch {
  left: number;
  readonly source: RecoveredEvents;
}

/**
 * Default of `eventsPerMessage`. Up to 64 events share one message's cost (stream store, delivery,
 * acknowledgement, a claim group): at a few thousand calls/s a 10 ms window goes as one message
 * instead of several, and the registry's statistics cost less per event (figures: bench/registry
 * README, 2026-11-27 14:40). A consumer's batch of N messages stays at most
 * 64·N events: the registry's 1,250-message batches hold ≤ 80,000 events (~12 MB raw), as 5,000 of 16 did.
 */
export const DEFAULT_EVENTS_PER_MESSAGE = 64;

/**
 * Upper bound of `eventsPerMessage`: an event is ~100–300 bytes encoded, so a message stays far below
 * NATS's default 1 MB payload limit.
 */
export const MAX_EVENTS_PER_MESSAGE = 1024;

/**
 * Default of `batchDelayMs`. Was 10 ms: at concurrency 1 (~1,500 calls/s) that published every
 * ~15 events, a JetStream publish, its acknowledgement and a timer wake-up shared by few calls;
 * at high rates a full message goes before the window ends anyway (bench/dispatcher README, 2026-11-29).
 */
export const DEFAULT_BATCH_DELAY_MS = 50;

/** How often held events check whether they may go. */
const HOLD_RECHECK_MS = 50;

export class CallEventPublisher {
  /** Events not yet in a message. */
  private readonly pending: Pending[] = [];
  /** Events recorded this turn, waiting for the turn's one outbox append ({@link writeTurn}). */
  private unwritten: Pending[] = [];
  /** Settles when {@link unwritten} is on disk (or kept in memory after a failed append). */
  private turnWritten: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;
  /** Messages the bus refused, oldest first: published again exactly as they were. */
  private refused: Message[] = [];
  /** Events in {@link refused}. */
  private refusedEvents = 0;
  private readonly maxPending: number;
  private readonly baseDelayMs: number;
  private readonly batchDelayMs: number;
  private readonly eventsPerMessage: number;
  private journal: EventJournal | undefined;
  readonly durability: EventDurability;
  private outbox: OutboxState = { healthy: true, detail: '' };
  private orphanTimer: NodeJS.Timeout | undefined;
  /** Events the outbox could not take (they were kept in memory instead). */
  outboxWriteFailures = 0;
  /** Damaged outbox segments found on recovery (torn tails, corrupt bytes, unreadable files). */
  outboxDamaged = 0;
  /** Recovered records that were not events (damage the checksum did not catch, or an older format's garbage). */
  undecodable = 0;
  private delayMs: number;
  private timer: NodeJS.Timeout | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  /** {@link scheduled} is for the next turn (a full message is waiting), not the end of the window. */
  private scheduledSoon = false;
  /** The last check found publishing held by `holdWhile`. */
  private held = false;
  private flushing = false;
  private closed = false;
  /** Events dropped from memory because the queue was full (reported in health). */
  dropped = 0;
  published = 0;
  /** Events taken over from dead dispatchers' outboxes since start. */
  recovered = 0;
  /** This publisher in its claim groups' ids. */
  private readonly instance = randomBytes(6).toString('base64url');
  /** Claim groups taken so far (numbers them). */
  private groupsOpened = 0;
  /** Each provider's open claim group: its id and how many events it has. */
  private readonly openGroups = new Map<string, { id: string; size: number }>();

  constructor(
    private readonly bus: Bus,
    private readonly options: CallEventsOptions = {},
  ) {
    this.maxPending = options.maxPending ?? 100_000;
    this.baseDelayMs = options.retryDelayMs ?? 100;
    this.batchDelayMs = options.batchDelayMs ?? DEFAULT_BATCH_DELAY_MS;
    this.eventsPerMessage = options.eventsPerMessage ?? DEFAULT_EVENTS_PER_MESSAGE;
    if (!Number.isInteger(this.eventsPerMessage) || this.eventsPerMessage < 1 || this.eventsPerMessage > MAX_EVENTS_PER_MESSAGE) {
      throw new Error(`CallEventPublisher: eventsPerMessage must be an integer from 1 to ${MAX_EVENTS_PER_MESSAGE}, got ${JSON.stringify(options.eventsPerMessage)}`);
    }
    this.delayMs = this.baseDelayMs;
    this.durability = options.durability ?? 'memory';
    if (this.durability === 'outbox') {
      if (!options.outboxDir) throw new Error('CallEventPublisher: durability "outbox" needs outboxDir');
      this.openJournal();
      const scanMs = options.orphanScanMs ?? 5000;
      if (scanMs > 0) {
        // A dispatcher that died after this one started (a fast restart beside it, a sibling on
        // the same volume) leaves its events to whichever looks next, not only to the next start.
        this.orphanTimer = setInterval(() => this.scanOutbox(), scanMs);
        this.orphanTimer.unref();
      }
    }
  }

  /** Whether the outbox takes appends (always true without one). */
  get outboxState(): OutboxState {
    return this.outbox;
  }

  /** Opens this process's outbox and takes over dead owners' events; a disk that refuses leaves the outbox off for now (retried by the scan). */
  private openJournal(): void {
    try {
      const { journal, recovered } = EventJournal.open({ dir: this.options.outboxDir!, fsync: this.options.outboxFsync });
      this.journal = journal;
      this.setOutbox({ healthy: true, detail: '' });
      for (const source of recovered) this.requeue(source);
    } catch (err) {
      this.setOutbox({ healthy: false, detail: `cannot open the event outbox in ${this.options.outboxDir}: ${(err as Error).message}` });
    }
  }

  /** Periodic: opens the outbox if it could not be opened, and takes over dead dispatchers' directories. */
  private scanOutbox(): void {
    if (this.closed) return;
    if (!this.journal) return this.openJournal();
    for (const source of claimOrphans(this.options.outboxDir!)) this.requeue(source);
  }

  private setOutbox(state: OutboxState): void {
    if (state.healthy === this.outbox.healthy) return;
    this.outbox = state;
    this.options.onOutboxState?.(state);
  }

  /**
   * Appends the events recorded this turn to the outbox, one `write(2)` for all of them, and lets
   * their calls answer; on failure they stay in memory only, and the calls go on as if stored.
   */
  private readonly writeTurn = (): void => {
    const written = this.turnWritten;
    if (!written) return; // close() wrote them already
    const items = this.unwritten;
    this.unwritten = [];
    this.turnWritten = undefined;
    const ticket = this.append(items);
    for (const item of items) {
      item.ticket = ticket;
      this.push(item);
    }
    this.schedule();
    written.resolve();
  };

  private append(items: readonly Pending[]): JournalTicket | undefined {
    if (!this.journal) return undefined;
    try {
      const ticket = this.journal.appendMany(items.map((i) => i.data));
      if (!this.outbox.healthy) this.setOutbox({ healthy: true, detail: '' });
      return ticket;
    } catch (err) {
      this.outboxWriteFailures += items.length;
      const detail = err instanceof OutboxWriteError ? `${err.code}: ${err.message}` : (err as Error).message;
      this.setOutbox({ healthy: false, detail: `event outbox not writable (${detail}); keeping events in memory (up to ${this.maxPending}) and publishing them directly` });
      return undefined;
    }
  }

  private readonly observers: Array<(event: ToolCalled) => void> = [];

  /** Also hands every recorded event to `observer` (process metrics); synchronous, so keep it cheap. */
  observe(observer: (event: ToolCalled) => void): void {
    this.observers.push(observer);
  }

  /** Queues one event and returns at once (see {@link record} to wait for durability 'ack'). */
  emit(event: ToolCalled): void {
    void this.record(event);
  }

  /**
   * Records one event. With an outbox the returned promise resolves once it is on disk: events are
   * appended together, with one `write(2)`, from `process.nextTick` (recorded in promise callbacks,
   * as on the run path, that is once the queue of those callbacks has drained; recorded from
   * synchronous code, right after it), so a call whose reply waits for this never answers before
   * its event is on disk. With 'ack' it resolves once
   * JetStream stored it (or `ackTimeoutMs` passed: it stays queued then).
   */
  record(event: ToolCalled): Promise<void> | undefined {
    for (const observer of this.observers) observer(event);
    if (this.closed) return undefined;
    if (this.options.claimGroups && !event.claimGroup) event.claimGroup = this.groupFor(event.provider);
    const data = encodeReusing(ToolCalled, event);
    if (this.journal) {
      this.unwritten.push({ provider: event.provider, group: event.claimGroup, queuedAt: Date.now(), msgId: event.eventId, data });
      if (!this.turnWritten) {
        let resolve!: () => void;
        this.turnWritten = { promise: new Promise<void>((r) => (resolve = r)), resolve };
        process.nextTick(this.writeTurn);
      }
      return this.turnWritten.promise;
    }
    let wait: Promise<void> | undefined;
    let stored: ((ok: boolean) => void) | undefined;
    if (this.durability === 'ack') {
      wait = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.ackTimeoutMs ?? 5000);
        timer.unref();
        stored = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.push({ provider: event.provider, group: event.claimGroup, queuedAt: Date.now(), msgId: event.eventId, data, stored });
    if (this.durability === 'ack' && !this.flushing && !this.timer) {
      // Nothing to wait for: the caller is waiting for this very acknowledgement.
      clearTimeout(this.scheduled);
      this.scheduled = undefined;
      void this.flush();
    } else this.schedule();
    return wait;
  }

  /** The provider's open claim group, counting one more event in it (a new group when it is full). */
  private groupFor(provider: string): string {
    let open = this.openGroups.get(provider);
    if (!open || open.size >= this.eventsPerMessage) {
      // `<time ms>-<instance>-<n>`: the time places the group's claims (libs/store's claim slots).
      open = { id: `${Date.now()}-${this.instance}-${++this.groupsOpened}`, size: 0 };
      this.openGroups.set(provider, open);
    }
    open.size++;
    return open.id;
  }

  get backlog(): number {
    return this.unwritten.length + this.pending.length + this.refusedEvents;
  }

  /**
   * Queues an event. Past `maxPending` the oldest go: a whole refused message (its events are not
   * split, see the header), else the oldest pending event.
   */
  private push(item: Pending): void {
    if (this.backlog >= this.maxPending) this.dropOldest();
    this.pending.push(item);
  }

  private dropOldest(): void {
    const message = this.refused.shift();
    const lost = message ? message.events : this.pending.splice(0, 1);
    if (message) this.refusedEvents -= lost.length;
    for (const e of lost) e.stored?.(false);
    this.dropped += lost.length;
  }

  private requeue(source: RecoveredEvents): void {
    this.outboxDamaged += source.damage.length;
    const events: Array<{ event: ToolCalled; data: Uint8Array }> = [];
    for (const data of source.records) {
      try {
        const event = ToolCalled.decode(data);
        if (!event.eventId || !event.provider) throw new Error('not a tool.called event');
        events.push({ event, data });
      } catch {
        this.undecodable++;
      }
    }
    this.options.onRecovered?.(events.length, source.from, source.damage);
    const batch: RecoveredBatch = { left: events.length, source };
    if (batch.left === 0) {
      source.settle();
      return;
    }
    for (const { event, data } of events) {
      this.push({ provider: event.provider, group: event.claimGroup, queuedAt: Date.now(), msgId: event.eventId, data, recovered: batch });
    }
    this.recovered += events.length;
    this.schedule();
  }

  private schedule(delayMs = this.batchDelayMs): void {
    // Publish a few milliseconds later: the call's reply goes out first, and the events of every
    // call finished meanwhile leave together (one socket write and one read of acks, not one each).
    // A full message's worth goes on the next turn instead of waiting out the window.
    if (this.flushing || this.timer) return;
    // (Not while held by `holdWhile`: that waits and rechecks at its own pace.)
    const full = !this.held && this.pending.length >= this.eventsPerMessage;
    if (this.scheduled && (!full || this.scheduledSoon)) return;
    clearTimeout(this.scheduled);
    this.scheduledSoon = full;
    this.scheduled = setTimeout(
      () => {
        this.scheduled = undefined;
        this.scheduledSoon = false;
        if (this.flushing || this.timer) return;
        this.held = this.holding();
        if (this.held) this.schedule(HOLD_RECHECK_MS);
        else void this.flush();
      },
      full ? 0 : delayMs,
    );
    this.scheduled.unref();
  }

  /** Whether publishing should wait for now (see {@link CallEventsOptions.holdWhile}). */
  private holding(): boolean {
    const oldest = this.refused[0]?.events[0] ?? this.pending[0];
    if (!oldest || this.durability === 'ack' || this.closed || !this.options.holdWhile) return false;
    if (Date.now() - oldest.queuedAt >= (this.options.maxHoldMs ?? 2000)) return false;
    return this.options.holdWhile();
  }

  /**
   * Publishes the refused messages again as they are, then what is pending, each provider's events
   * together in messages of up to `eventsPerMessage`; the messages of a round concurrently (order
   * does not matter: the registry aggregates). A refused message is kept as it is and a retry is
   * scheduled with backoff.
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.refused.length > 0 || this.pending.length > 0) {
        const messages = this.refused.length > 0 ? this.takeRefused() : this.messages(this.pending.splice(0, Math.max(256, 4 * this.eventsPerMessage)));
        const results = await Promise.allSettled(messages.map((m) => this.bus.publishEvent(m.subject, m.data, { msgId: m.msgId })));
        const failed: Message[] = [];
        let stored = 0;
        messages.forEach((m, i) => {
          if (results[i]!.status === 'rejected') failed.push(m);
          else {
            for (const e of m.events) this.stored(e);
            stored += m.events.length;
          }
        });
        this.published += stored;
        if (failed.length > 0) {
          this.refused.unshift(...failed);
          for (const m of failed) this.refusedEvents += m.events.length;
          throw (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason;
        }
        this.delayMs = this.baseDelayMs;
      }
    } catch (err) {
      this.options.onError?.(err);
      if (!this.closed) {
        // Jitter: dispatchers that lost NATS together do not all come back in the same instant.
        this.timer = setTimeout(
          () => {
            this.timer = undefined;
            void this.flush();
          },
          this.delayMs * (0.5 + Math.random() / 2),
        );
        this.timer.unref();
        this.delayMs = Math.min(this.delayMs * 2, 5000);
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Every refused message, taken out of the queue for one more attempt: at most one round's worth,
   * since a flush stops at the first round with a refusal.
   */
  private takeRefused(): Message[] {
    const taken = this.refused;
    this.refused = [];
    this.refusedEvents = 0;
    return taken;
  }

  /**
   * `events` grouped by provider (and claim group) into messages of at most `eventsPerMessage`.
   * The open claim groups close: events recorded from now on go in new ones, so a group is not
   * spread over several rounds.
   */
  private messages(events: readonly Pending[]): Message[] {
    this.openGroups.clear();
    const byKey = new Map<string, Pending[]>();
    for (const e of events) {
      const key = `${e.provider}\n${e.group}`;
      const group = byKey.get(key);
      if (group) group.push(e);
      else byKey.set(key, [e]);
    }
    const out: Message[] = [];
    for (const group of byKey.values()) {
      const { provider, group: claimGroup } = group[0]!;
      for (let i = 0; i < group.length; i += this.eventsPerMessage) {
        const part = group.slice(i, i + this.eventsPerMessage);
        out.push({ ...toolCalledMessage(provider, part.map((e) => ({ eventId: e.msgId, data: e.data })), { grouped: claimGroup !== '' }), events: part });
      }
    }
    return out;
  }

  private stored(e: Pending): void {
    if (e.ticket) this.journal!.settle(e.ticket);
    if (e.recovered && --e.recovered.left === 0) e.recovered.source.settle();
    e.stored?.(true);
  }

  /**
   * Tries for up to `timeoutMs` to publish what is pending, then stops. Returns how many were
   * left (with an outbox they stay on disk for the next start).
   */
  async close(timeoutMs = 2000): Promise<number> {
    if (this.turnWritten) this.writeTurn();
    const deadline = Date.now() + timeoutMs;
    while (this.backlog > 0 && Date.now() < deadline) {
      if (!this.flushing) await this.flush();
      if (this.backlog > 0) await new Promise((r) => setTimeout(r, 50));
    }
    this.closed = true;
    clearInterval(this.orphanTimer);
    clearTimeout(this.timer);
    clearTimeout(this.scheduled);
    for (const e of [...this.refused.flatMap((m) => m.events), ...this.pending]) e.stored?.(false);
    this.journal?.close();
    return this.backlog;
  }
}
