import { adapterQueueGroup, adapterSubject, eventSubject, parseEventSubject } from '../src/subjects';

describe('NATS subjects', () => {
  it('are versioned and per provider', () => {
    expect(adapterSubject('local', 'run')).toBe('toolhub.v1.adapter.local.run');
    expect(adapterQueueGroup('mcp')).toBe('toolhub-adapter-mcp');
    expect(eventSubject('tool.called', 'cloud')).toBe('toolhub.v1.events.tool.called.cloud');
  });

  it('refuse provider names that would escape their subject token', () => {
    for (const bad of ['a.b', '*', '>', 'A', '', 'a b']) expect(() => adapterSubject(bad, 'run')).toThrow(/Provider/);
  });

  it('parse event subjects back into kind and provider', () => {
    expect(parseEventSubject('toolhub.v1.events.catalog.changed.mcp')).toEqual({ kind: 'catalog.changed', provider: 'mcp' });
    expect(parseEventSubject('toolhub.v1.adapter.local.run')).toBeUndefined();
  });
});
