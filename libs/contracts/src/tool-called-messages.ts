/**
 * How `tool.called` events travel on the stream. A message is one of:
 * - one `ToolCalled` on `tool.called.<provider>` (`Nats-Msg-Id` = its event id);
 * - a `ToolCalledBatch` of several events of one provider on `tool.called.batch.<provider>`
 *   (`Nats-Msg-Id` = a hash of their ids);
 * - a `ToolCalledBatch` of one or more events stamped with a claim group (`ToolCalled.claim_group`)
 *   on `tool.called.grouped.<provider>` (`Nats-Msg-Id` = `group-` and a hash of their ids).
 *   Consumers may count a group's events with one claim (docs/claim-groups.md), so the group is
 *   honoured on this subject only: {@link decodeToolCalledMessage} clears it on the others, where
 *   registries of the version before count each event by its id.
 * Batches cut what the stream stores, delivers and acknowledges per event; consumers count each
 * event id once either way, so an event in two messages (an outbox replay that grouped it
 * differently, or a producer that regroups retries) is still counted once. A consumer filtering
 * `tool.called.*` alone never sees a batch or a grouped message: those wait in the stream until a
 * consumer that reads them ({@link TOOL_CALLED_FILTERS}, {@link TOOL_CALLED_GROUPED_FILTERS}) takes them.
 */
import { BinaryWriter } from '@bufbuild/protobuf/wire';

import { contentHash } from './canonical';
import { ToolCalled, ToolCalledBatch } from './gen/toolhub/v1/events';
import { eventSubject, eventWildcard, parseEventSubject } from './subjects';

/** The subject filters that take every ungrouped `tool.called` event, single or batched. */
export const TOOL_CALLED_FILTERS: readonly string[] = [eventWildcard('tool.called'), eventWildcard('tool.called.batch')];

/**
 * The subject filter of grouped `tool.called` events. A consumer of its own reads it, so a
 * registry of the version before, sharing the durable of {@link TOOL_CALLED_FILTERS}, never
 * receives one.
 */
export const TOOL_CALLED_GROUPED_FILTERS: readonly string[] = [eventWildcard('tool.called.grouped')];

/** One message to publish: subject, payload and de-duplication id. */
export interface ToolCalledMessage {
  subject: string;
  data: Uint8Array;
  msgId: string;
}

/**
 * The message for some events of one provider, given already encoded (`ToolCalled.encode`): the
 * single-event form for one, a batch for more; with `grouped` (events stamped with a claim group),
 * a batch on `tool.called.grouped.<provider>` however many. A batch is framed from the encoded
 * bytes as they are (field 1, length-delimited), so nothing is decoded or encoded again.
 */
export function toolCalledMessage(provider: string, events: ReadonlyArray<{ readonly eventId: string; readonly data: Uint8Array }>, options: { grouped?: boolean } = {}): ToolCalledMessage {
  if (events.length === 0) throw new Error('toolCalledMessage: no events');
  if (events.length === 1 && !options.grouped) return { subject: eventSubject('tool.called', provider), data: events[0]!.data, msgId: events[0]!.eventId };
  const writer = new BinaryWriter();
  for (const e of events) writer.uint32(10).bytes(e.data);
  const hash = contentHash(events.map((e) => e.eventId).join('\n'), 32);
  return options.grouped
    ? { subject: eventSubject('tool.called.grouped', provider), data: writer.finish(), msgId: `group-${hash}` }
    : { subject: eventSubject('tool.called.batch', provider), data: writer.finish(), msgId: `batch-${hash}` };
}

/**
 * The events of one message taken with {@link TOOL_CALLED_FILTERS} or
 * {@link TOOL_CALLED_GROUPED_FILTERS}. Outside `tool.called.grouped` an event's claim group is
 * cleared: there it is counted by its id, as every registry counts it.
 * @throws Error when the payload is not what its subject says (a malformed message)
 */
export function decodeToolCalledMessage(subject: string, data: Uint8Array): ToolCalled[] {
  const kind = parseEventSubject(subject)?.kind;
  if (kind === 'tool.called.grouped') return ToolCalledBatch.decode(data).events;
  const events = kind === 'tool.called.batch' ? ToolCalledBatch.decode(data).events : kind === 'tool.called' ? [ToolCalled.decode(data)] : undefined;
  if (!events) throw new Error(`${subject} is not a tool.called subject`);
  for (const e of events) e.claimGroup = '';
  return events;
}
