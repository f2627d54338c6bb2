/**
 * Small helpers shared by the bus implementations (not exported from the package).
 */
import { EVENTS_STREAM, EVENTS_WILDCARD, HEADER_ERROR, HEADER_ERROR_CODE, RUNS_QUEUE_WILDCARD, RUNS_STREAM } from '@toolhub/contracts';

import { type BusReply, type ConsumeOptions, type Headers } from './bus';
import { BusError } from './errors';
import { assertPattern, assertPublishSubject, subjectMatches } from './subject';

/** Defaults of {@link ConsumeOptions}, in one place for both implementations. */
export const CONSUME_DEFAULTS = { maxBatch: 256, ackWaitMs: 30_000, lingerMs: 0 } as const;

/** JetStream's default de-duplication window; the in-process bus uses the same. */
export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

/** NATS' default `max_payload` (1 MiB); the in-process bus uses the same. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * Longest pause before a failed batch is redelivered, however many times it failed. A few
 * seconds: once the store is back, ingestion resumes within this long (it was 30 s, which kept
 * statistics frozen ~20 s after a database outage ended).
 */
export const MAX_REDELIVERY_DELAY_MS = 4_000;

/** A private copy, so no two parties share (and can mutate) one buffer. */
export function copyBytes(data: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(data);
}

export function copyHeaders(headers: Headers | undefined): Headers {
  return headers ? { ...headers } : {};
}

const encoder = new TextEncoder();

/**
 * Bytes a message takes on the wire, counted as NATS does (payload plus the `NATS/1.0` header
 * block), so both implementations reject the same messages as `payload_too_large`.
 */
export function wireSize(data: Uint8Array, headers: Headers | undefined): number {
  let size = data.byteLength;
  const entries = headers ? Object.entries(headers) : [];
  if (entries.length > 0) {
    size += 'NATS/1.0\r\n\r\n'.length;
    for (const [k, v] of entries) size += encoder.encode(`${k}: ${v}\r\n`).byteLength;
  }
  return size;
}

/** An upper bound of the header block's bytes from string lengths alone (UTF-8 needs at most 3 bytes per UTF-16 unit). */
function headerBytesBound(headers: Headers | undefined): number {
  if (!headers) return 0;
  let units = 12; // 'NATS/1.0\r\n\r\n'
  for (const k of Object.keys(headers)) units += k.length + (headers[k] ?? '').length + 4;
  return units * 3;
}

export function assertPayload(data: Uint8Array, headers: Headers | undefined, maxPayload: number): void {
  if (!(data instanceof Uint8Array)) {
    throw new BusError('invalid_argument', 'payload must be a Uint8Array');
  }
  // Nearly every message is far below the limit: settle it without encoding the headers.
  if (data.byteLength + headerBytesBound(headers) <= maxPayload) return;
  const size = wireSize(data, headers);
  if (size > maxPayload) {
    throw new BusError('payload_too_large', `message of ${size} bytes exceeds the bus limit of ${maxPayload} bytes`);
  }
}

export function assertTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new BusError('invalid_argument', `timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
}

/** Event subjects must fall inside the stream, or a real server would not store them. */
export function assertEventSubject(subject: string): void {
  assertPublishSubject(subject);
  if (!subjectMatches(EVENTS_WILDCARD, subject) && !subjectMatches(RUNS_QUEUE_WILDCARD, subject)) {
    throw new BusError('publish_failed', `no event stream stores "${subject}": stream ${EVENTS_STREAM} holds ${EVENTS_WILDCARD}, stream ${RUNS_STREAM} holds ${RUNS_QUEUE_WILDCARD}`);
  }
}

/** Durable names become part of NATS API subjects, so the same characters are off limits. */
const DURABLE_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** Validates consume options and fills defaults. @throws BusError `invalid_argument` */
export function normalizeConsumeOptions(options: ConsumeOptions): Required<ConsumeOptions> {
  if (!DURABLE_NAME.test(options.durable ?? '')) {
    throw new BusError('invalid_argument', `durable name ${JSON.stringify(options.durable)} must match ${DURABLE_NAME.source}`);
  }
  if (!Array.isArray(options.filterSubjects) || options.filterSubjects.length === 0) {
    throw new BusError('invalid_argument', `consumer "${options.durable}": filterSubjects must list at least one subject`);
  }
  for (const f of options.filterSubjects) {
    assertPattern(f);
    if (!isWithinEvents(f) && !isWithinRuns(f)) {
      throw new BusError('invalid_argument', `consumer "${options.durable}": filter "${f}" is outside the event stream (${EVENTS_WILDCARD})`);
    }
  }
  if (typeof options.handler !== 'function') {
    throw new BusError('invalid_argument', `consumer "${options.durable}": handler must be a function`);
  }
  const maxBatch = options.maxBatch ?? CONSUME_DEFAULTS.maxBatch;
  const ackWaitMs = options.ackWaitMs ?? CONSUME_DEFAULTS.ackWaitMs;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) {
    throw new BusError('invalid_argument', `consumer "${options.durable}": maxBatch must be a positive integer, got ${maxBatch}`);
  }
  // JetStream measures ack_wait in nanoseconds but rejects values under a millisecond-ish; one
  // second keeps both implementations sane and is far below any realistic handler time.
  if (!Number.isFinite(ackWaitMs) || ackWaitMs < 1000) {
    throw new BusError('invalid_argument', `consumer "${options.durable}": ackWaitMs must be at least 1000, got ${ackWaitMs}`);
  }
  const lingerMs = options.lingerMs ?? CONSUME_DEFAULTS.lingerMs;
  if (!Number.isFinite(lingerMs) || lingerMs < 0 || lingerMs > ackWaitMs / 4) {
    throw new BusError('invalid_argument', `consumer "${options.durable}": lingerMs must be from 0 to ackWaitMs / 4 (${ackWaitMs / 4}), got ${lingerMs}`);
  }
  const maxWorkMs = options.maxWorkMs ?? ackWaitMs * 10;
  if (!Number.isFinite(maxWorkMs) || maxWorkMs < 0) {
    throw new BusError('invalid_argument', `consumer "${options.durable}": maxWorkMs must be 0 (off) or more, got ${maxWorkMs}`);
  }
  return {
    durable: options.durable,
    filterSubjects: [...new Set(options.filterSubjects)],
    handler: options.handler,
    maxBatch,
    ackWaitMs,
    startAtUnixMs: options.startAtUnixMs ?? 0,
    lingerMs,
    maxWorkMs,
    maxAckPending: options.maxAckPending ?? maxBatch * 2,
  };
}

/** The stream a consumer's filters read: the runs work queue, or the events stream. */
export function streamOf(filterSubjects: readonly string[]): string {
  return filterSubjects.every(isWithinRuns) ? RUNS_STREAM : EVENTS_STREAM;
}

/** True when every subject `pattern` can match lies inside the runs work-queue stream. */
function isWithinRuns(pattern: string): boolean {
  const root = RUNS_QUEUE_WILDCARD.slice(0, -2); // "toolhub.v1.runs.queue"
  return pattern.startsWith(`${root}.`) && pattern.length > root.length + 1;
}

/** True when every subject `pattern` can match lies inside the event stream. */
function isWithinEvents(pattern: string): boolean {
  const root = EVENTS_WILDCARD.slice(0, -2); // "toolhub.v1.events"
  return pattern.startsWith(`${root}.`) && pattern.length > root.length + 1;
}

/**
 * Exponential backoff for a failed batch: base, 2×base, 4×base … capped at {@link MAX_REDELIVERY_DELAY_MS},
 * plus up to 25 % jitter past the first retries so consumers that failed together do not retry in step.
 */
export function redeliveryDelay(baseMs: number, deliveryCount: number): number {
  const exp = Math.min(Math.max(deliveryCount - 1, 0), 16);
  const delay = Math.min(baseMs * 2 ** exp, MAX_REDELIVERY_DELAY_MS);
  return exp < 2 ? delay : Math.round(delay * (1 + Math.random() / 4));
}

/** Message of an unknown thrown value, for error replies. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : 'handler failed';
}

/**
 * Validates what a serve handler returned. A bad reply is a bug in the handler, so it is thrown as
 * a plain Error and answered as `internal`, never blamed on the caller.
 */
export function checkReply(reply: BusReply | undefined, maxPayload: number): BusReply {
  if (!reply || !(reply.data instanceof Uint8Array)) {
    throw new Error('request handler returned no reply (expected { data: Uint8Array, headers })');
  }
  const size = wireSize(reply.data, reply.headers);
  if (size > maxPayload) throw new Error(`reply of ${size} bytes exceeds the bus limit of ${maxPayload} bytes`);
  return reply;
}

/** The reply sent when a serve handler throws: NATS service-error headers, empty body. */
export function internalErrorReply(err: unknown): BusReply {
  return { data: new Uint8Array(0), headers: { [HEADER_ERROR_CODE]: 'internal', [HEADER_ERROR]: errorMessage(err) } };
}

/**
 * While a handler runs: calls `touch` (tell the broker the events are still being worked on)
 * every `ackWaitMs / 3`, for at most `maxWorkMs` (see {@link ConsumeOptions.maxWorkMs}). Returns
 * the stop function. A batch done within a third of the ack wait — the usual case — costs one timer.
 */
export function keepInProgress(ackWaitMs: number, maxWorkMs: number, touch: () => void): () => void {
  if (maxWorkMs <= 0) return () => undefined;
  const until = Date.now() + maxWorkMs;
  const timer = setInterval(() => {
    if (Date.now() >= until) clearInterval(timer);
    else touch();
  }, ackWaitMs / 3);
  timer.unref();
  return () => clearInterval(timer);
}
