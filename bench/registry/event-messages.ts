/**
 * The bench publishers' `tool.called` messages: one event each (`--events-per-message 1`, the
 * default), or consecutive events in `ToolCalledBatch` messages of up to N, as a dispatcher sends
 * the events of the calls it finished within 10 ms. The bench's events span many providers (one
 * per MCP server of the catalog), while a dispatcher groups by provider, and ToolHub's providers are
 * few (local, mcp, cloud); so a batch here takes consecutive events whatever their provider, under
 * the first one's subject. The registry reads the provider from each event, not from the subject,
 * so this measures what the registry spends per event at N events per message.
 *
 * With `claimGroups` (`--claim-groups`), each message's events are stamped with a claim group of
 * their own and go on `tool.called.grouped.<provider>`, as a dispatcher with TOOLHUB_CLAIM_GROUPS
 * sends them: the registry then claims each message's events with one document.
 */
import type { NatsBus } from '@toolhub/bus';
import { ToolCalled, toolCalledMessage } from '@toolhub/contracts';

/** Claim groups stamped by this process (numbers them). */
let groups = 0;
/** This process in its claim groups' ids. */
const instance = `bench${process.pid}`;

/** Publishes `events` as messages of up to `perMessage` events, all at once; resolves when the stream has them all. */
export async function publishEvents(bus: NatsBus, events: readonly ToolCalled[], perMessage: number, options: { claimGroups?: boolean } = {}): Promise<void> {
  const sends: Array<Promise<void>> = [];
  for (let i = 0; i < events.length; i += perMessage) {
    let part = events.slice(i, i + perMessage);
    if (options.claimGroups) {
      const claimGroup = `${Date.now()}-${instance}-${++groups}`;
      part = part.map((e) => ({ ...e, claimGroup }));
    }
    const m = toolCalledMessage(
      part[0]!.provider,
      part.map((e) => ({ eventId: e.eventId, data: ToolCalled.encode(e).finish() })),
      { grouped: options.claimGroups ?? false },
    );
    sends.push(bus.publishEvent(m.subject, m.data, { msgId: m.msgId }));
  }
  await Promise.all(sends);
}
