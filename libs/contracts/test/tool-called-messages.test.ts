/** tool.called events on the stream: one per message, a provider's batch in one message, or grouped events. */
import { ToolCalled, ToolCalledBatch } from '../src/gen/toolhub/v1/events';
import { eventWildcard, parseEventSubject } from '../src/subjects';
import { decodeToolCalledMessage, TOOL_CALLED_FILTERS, TOOL_CALLED_GROUPED_FILTERS, toolCalledMessage } from '../src/tool-called-messages';

const event = (id: string, provider = 'mcp'): ToolCalled => ({
  eventId: id,
  toolId: `${provider}:echo`,
  provider,
  name: 'echo',
  status: 'ok',
  errorCode: 0,
  latencyMs: 7,
  attempts: 1,
  fallbackUsed: '',
  caller: 'agent-1',
  timestampUnixMs: 1_764_000_000_000,
  searchId: id === 'b' ? 's-42' : '',
  claimGroup: '',
});
const encoded = (e: ToolCalled) => ({ eventId: e.eventId, data: ToolCalled.encode(e).finish() });

describe('tool.called messages', () => {
  it('send one event as it always was: its own subject, payload and event id', () => {
    const m = toolCalledMessage('mcp', [encoded(event('a'))]);
    expect(m.subject).toBe('toolhub.v1.events.tool.called.mcp');
    expect(m.msgId).toBe('a');
    expect(ToolCalled.decode(m.data)).toEqual(event('a'));
    expect(decodeToolCalledMessage(m.subject, m.data)).toEqual([event('a')]);
  });

  it('send several as one ToolCalledBatch on tool.called.batch.<provider>, framed from the encoded events', () => {
    const events = [event('a'), event('b'), event('c')];
    const m = toolCalledMessage('mcp', events.map(encoded));
    expect(m.subject).toBe('toolhub.v1.events.tool.called.batch.mcp');
    expect(ToolCalledBatch.decode(m.data).events).toEqual(events);
    expect(m.data).toEqual(ToolCalledBatch.encode({ events }).finish());
    expect(decodeToolCalledMessage(m.subject, m.data)).toEqual(events);
  });

  it('name a batch by its events: the same events give the same id (a retried publish is de-duplicated), others another', () => {
    const ab = toolCalledMessage('mcp', [encoded(event('a')), encoded(event('b'))]);
    expect(toolCalledMessage('mcp', [encoded(event('a')), encoded(event('b'))]).msgId).toBe(ab.msgId);
    expect(toolCalledMessage('mcp', [encoded(event('a')), encoded(event('c'))]).msgId).not.toBe(ab.msgId);
    expect(ab.msgId).toMatch(/^batch-[0-9a-f]{32}$/);
  });

  it('keep batches out of a consumer of single events, and tell the two apart for one that takes both', () => {
    const batch = toolCalledMessage('batch', [encoded(event('a', 'batch')), encoded(event('b', 'batch'))]);
    const single = toolCalledMessage('batch', [encoded(event('c', 'batch'))]);
    // `tool.called.*` is one token: it matches the single event of a provider named "batch", never a batch.
    const singleFilter = new RegExp(`^${eventWildcard('tool.called').replace(/\./g, '\\.').replace('*', '[^.]+')}$`);
    expect(singleFilter.test(single.subject)).toBe(true);
    expect(singleFilter.test(batch.subject)).toBe(false);
    expect(parseEventSubject(batch.subject)).toEqual({ kind: 'tool.called.batch', provider: 'batch' });
    expect(parseEventSubject(single.subject)).toEqual({ kind: 'tool.called', provider: 'batch' });
    expect(TOOL_CALLED_FILTERS).toEqual(['toolhub.v1.events.tool.called.*', 'toolhub.v1.events.tool.called.batch.*']);
    expect(decodeToolCalledMessage(single.subject, single.data).map((e) => e.eventId)).toEqual(['c']);
  });

  it('send grouped events as a batch on tool.called.grouped.<provider>, even one, keeping their claim group', () => {
    const stamped = (id: string): ToolCalled => ({ ...event(id), claimGroup: '1764000000000-d1-7' });
    const one = toolCalledMessage('mcp', [encoded(stamped('a'))], { grouped: true });
    expect(one.subject).toBe('toolhub.v1.events.tool.called.grouped.mcp');
    expect(one.msgId).toMatch(/^group-[0-9a-f]{32}$/);
    expect(decodeToolCalledMessage(one.subject, one.data)).toEqual([stamped('a')]);
    const two = toolCalledMessage('mcp', [encoded(stamped('a')), encoded(stamped('b'))], { grouped: true });
    expect(decodeToolCalledMessage(two.subject, two.data)).toEqual([stamped('a'), stamped('b')]);
    expect(two.msgId).not.toBe(one.msgId);
    expect(parseEventSubject(two.subject)).toEqual({ kind: 'tool.called.grouped', provider: 'mcp' });
    expect(TOOL_CALLED_GROUPED_FILTERS).toEqual(['toolhub.v1.events.tool.called.grouped.*']);
  });

  it('clear the claim group of events on the other subjects, where every registry counts them by id', () => {
    const stamped = (id: string): ToolCalled => ({ ...event(id), claimGroup: '1764000000000-d1-7' });
    const single = toolCalledMessage('mcp', [encoded(stamped('a'))]);
    const batch = toolCalledMessage('mcp', [encoded(stamped('a')), encoded(stamped('b'))]);
    expect(decodeToolCalledMessage(single.subject, single.data)).toEqual([event('a')]);
    expect(decodeToolCalledMessage(batch.subject, batch.data)).toEqual([event('a'), event('b')]);
  });

  it('refuse a message that is no tool.called event, and a payload that is not what its subject says', () => {
    expect(() => decodeToolCalledMessage('toolhub.v1.events.tool.invalidated.mcp', new Uint8Array())).toThrow(/not a tool.called subject/);
    expect(() => decodeToolCalledMessage('toolhub.v1.events.tool.called.batch.mcp', Uint8Array.from([10, 50, 1]))).toThrow();
    expect(() => decodeToolCalledMessage('toolhub.v1.events.tool.called.grouped.mcp', Uint8Array.from([10, 50, 1]))).toThrow();
    expect(() => toolCalledMessage('mcp', [])).toThrow(/no events/);
  });
});
