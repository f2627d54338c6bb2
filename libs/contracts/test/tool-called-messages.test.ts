/** tool.called events on the stream: one per message, or a provider's batch in one message. */
import { ToolCalled, ToolCalledBatch } from '../src/gen/toolhub/v1/events';
import { eventWildcard, parseEventSubject } from '../src/subjects';
import { decodeToolCalledMessage, TOOL_CALLED_FILTERS, toolCalledMessage } from '../src/tool-called-messages';

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

  it('refuse a message that is no tool.called event, and a payload that is not what its subject says', () => {
    expect(() => decodeToolCalledMessage('toolhub.v1.events.tool.invalidated.mcp', new Uint8Array())).toThrow(/not a tool.called subject/);
    expect(() => decodeToolCalledMessage('toolhub.v1.events.tool.called.batch.mcp', Uint8Array.from([10, 50, 1]))).toThrow();
    expect(() => toolCalledMessage('mcp', [])).toThrow(/no events/);
  });
});
