/**
 * How `tool.called` events travel on the stream. A message is either one `ToolCalled` on
 * `tool.called.<provider>` (`Nats-Msg-Id` = its event id), or a `ToolCalledBatch` of several
 * events of one provider on `tool.called.batch.<provider>` (`Nats-Msg-Id` = a hash of their ids).
 * Batches cut what the stream stores, delivers and acknowledges per event; consumers count each
 * event id once either way, so an event in two messages (an outbox replay that grouped it
 * differently, or a producer that regroups retries) is still counted once. A consumer filtering `tool.called.*` alone never sees a batch: the events of
 * batches wait in the stream until a consumer that reads both ({@link TOOL_CALLED_FILTERS}) takes them.
 */
import { BinaryWriter } from '@bufbuild/protobuf/wire';

import { contentHash } from './canonical';
import { ToolCalled, ToolCalledBatch } from './gen/toolhub/v1/events';
import { eventSubject, eventWildcard, parseEventSubject } from './subjects';

/** The subject filters that take every `tool.called` event, single or batched. */
export const TOOL_CALLED_FILTERS: readonly string[] = [eventWildcard('tool.called'), eventWildcard('tool.called.batch')];

/** One message to publish: subject, payload and de-duplication id. */
export interface ToolCalledMessage {
  subject: string;
  data: Uint8Array;
  msgId: string;
}

/**
 * The message for some events of one provider, given already encoded (`ToolCalled.encode`): the
 * single-event form for one, a batch for more. The batch is framed from the encoded bytes as they
 * are (field 1, length-delimited), so nothing is decoded or encoded again.
 */
export function toolCalledMessage(provider: string, events: ReadonlyArray<{ readonly eventId: string; readonly data: Uint8Array }>): ToolCalledMessage {
  if (events.length === 0) throw new Error('toolCalledMessage: no events');
  if (events.length === 1) return { subject: eventSubject('tool.called', provider), data: events[0]!.data, msgId: events[0]!.eventId };
  const writer = new BinaryWriter();
  for (const e of events) writer.uint32(10).bytes(e.data);
  return {
    subject: eventSubject('tool.called.batch', provider),
    data: writer.finish(),
    msgId: `batch-${contentHash(events.map((e) => e.eventId).join('\n'), 32)}`,
  };
}

/**
 * The events of one message taken with {@link TOOL_CALLED_FILTERS}.
 * @throws Error when the payload is not what its subject says (a malformed message)
 */
export function decodeToolCalledMessage(subject: string, data: Uint8Array): ToolCalled[] {
  const kind = parseEventSubject(subject)?.kind;
  if (kind === 'tool.called.batch') return ToolCalledBatch.decode(data).events;
  if (kind === 'tool.called') return [ToolCalled.decode(data)];
  throw new Error(`${subject} is not a tool.called subject`);
}
