/**
 * `tool.called` events reduced to what statistics need (compact field names: each record is
 * stored once in its batch document). Malformed events are rejected one by one, never the batch.
 */
import { ErrorCode, type ToolCalled, errorCodeFromProto, toolId as makeToolId } from '@toolhub/contracts';

import type { RejectedEvent } from '../store';
import { isValidToolId } from '../validation';
import { clampLatency } from './digest';

/** Longest accepted event id. */
export const MAX_EVENT_ID_LENGTH = 256;
const CLASS_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/**
 * A claim group as producers stamp it (`ToolCalled.claim_group`): `<time ms>-<producer>-<n>`. The
 * time places the group's claims (slotted-claims.ts); `#` is kept out, it joins a group and the
 * number of a link of its claim chain.
 */
const CLAIM_GROUP_PATTERN = /^([1-9]\d{0,14})-[A-Za-z0-9._:-]{1,200}$/;

/** The time of a well-formed claim group; undefined for anything else (counted by event id then). */
export function claimGroupTime(group: string): number | undefined {
  const m = CLAIM_GROUP_PATTERN.exec(group);
  return m ? Number(m[1]) : undefined;
}

/** One counted call. */
export interface CallRecord {
  /** Event id. */
  id: string;
  /** Tool id. */
  t: string;
  /** Succeeded. */
  ok: boolean;
  /** Failure class ('' on success). */
  c: string;
  /** Latency, whole ms. */
  l: number;
  /** When it happened, ms since the epoch. */
  ts: number;
  /** Served by a fallback. */
  fb: boolean;
  /**
   * The event carried no timestamp (`ts` is when it was first recorded, different for each
   * delivery): its claim cannot be placed by time (see slotted-claims.ts). Absent otherwise.
   */
  u?: true;
  /**
   * Its claim group (well-formed, see {@link claimGroupTime}): where the ledger supports it, the
   * group's events are claimed together (docs/claim-groups.md). Absent: claimed by event id.
   */
  g?: string;
}

/** The records of the valid events, the rejected ones, and repeats within the input. */
export interface NormalizedEvents {
  records: CallRecord[];
  rejected: RejectedEvent[];
  duplicates: number;
}

/**
 * The failure class of an event: undefined for `ok`, else its status when that is a plain
 * snake_case word (`tool_error`, `timeout`), else the name of its error code, else `unknown`.
 */
export function failureClass(event: Pick<ToolCalled, 'status' | 'errorCode'>): string | undefined {
  const status = (event.status ?? '').trim().toLowerCase();
  if (status === 'ok') return undefined;
  if (CLASS_PATTERN.test(status)) return status;
  if (event.errorCode !== undefined && event.errorCode !== ErrorCode.ERROR_CODE_UNSPECIFIED) return errorCodeFromProto(event.errorCode);
  return 'unknown';
}

/** Validates and reduces `events`; `now` stands in for a missing timestamp. */
export function normalizeEvents(events: readonly ToolCalled[], now: number): NormalizedEvents {
  const records: CallRecord[] = [];
  const rejected: RejectedEvent[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  events.forEach((event, index) => {
    const reject = (reason: string): void => void rejected.push({ index, eventId: typeof event?.eventId === 'string' ? event.eventId : '', reason });
    if (event === null || typeof event !== 'object') return reject('not a ToolCalled object');
    const id = event.eventId;
    if (typeof id !== 'string' || id === '') return reject('eventId is empty: without it a redelivery could not be told apart from a new call');
    if (id.length > MAX_EVENT_ID_LENGTH) return reject(`eventId has ${id.length} characters; at most ${MAX_EVENT_ID_LENGTH} are allowed`);
    const tool = event.toolId || (event.provider && event.name ? makeToolId(event.provider, event.name) : '');
    if (!isValidToolId(tool)) return reject(`toolId ${JSON.stringify(tool)} is not "<provider>:<name>" with a valid provider and tool name`);
    const latency = Number(event.latencyMs ?? 0);
    if (!Number.isFinite(latency) || latency < 0) return reject(`latencyMs ${JSON.stringify(event.latencyMs)} is not a number >= 0`);
    const ts = Number(event.timestampUnixMs ?? 0);
    if (!Number.isFinite(ts) || ts < 0) return reject(`timestampUnixMs ${JSON.stringify(event.timestampUnixMs)} is not a time`);
    if (seen.has(id)) {
      duplicates++;
      return;
    }
    seen.add(id);
    const cls = failureClass(event);
    const record: CallRecord = { id, t: tool, ok: cls === undefined, c: cls ?? '', l: clampLatency(latency), ts: ts > 0 ? ts : now, fb: Boolean(event.fallbackUsed) };
    if (ts === 0) record.u = true;
    // A malformed group is no group: the event is counted by its id, as every copy of it is.
    if (event.claimGroup && claimGroupTime(event.claimGroup) !== undefined) record.g = event.claimGroup;
    records.push(record);
  });
  return { records, rejected, duplicates };
}
