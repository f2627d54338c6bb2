import { coveringPattern, subjectMatches } from '../src/subject';

describe('subjectMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.b.c', false],
    ['a.>', 'a.b', true],
    ['a.>', 'a.b.c.d', true],
    ['a.>', 'a', false],
    ['*', 'a', true],
    ['*', 'a.b', false],
    ['a.b', 'a.b.c', false],
  ])('pattern %s against %s is %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe('coveringPattern (one server filter for several, for nats-server 2.9)', () => {
  it.each([
    [['a.b.c'], 'a.b.c'],
    [['a.x.*', 'a.y.*'], 'a.*.*'],
    [['e.k.a', 'e.k.b'], 'e.k.*'],
    [['a.b.c', 'a.b.d.e'], 'a.b.>'],
    [['a.b', 'a.b.c'], 'a.>'],
    [['a.*.c', 'a.b.c.d'], 'a.>'],
    [['x.a', 'y.b'], undefined],
    [['a.>', 'a.b'], 'a.>'],
  ])('%j is covered by %s', (patterns, expected) => {
    const covering = coveringPattern(patterns);
    expect(covering).toBe(expected);
  });

  it('every subject matched by one of the patterns is matched by the covering pattern', () => {
    const patterns = ['t.v1.events.tool.called.*', 't.v1.events.catalog.changed.*', 't.v1.events.tool.invalidated.x'];
    const covering = coveringPattern(patterns) as string;
    for (const s of ['t.v1.events.tool.called.p', 't.v1.events.catalog.changed.q', 't.v1.events.tool.invalidated.x']) {
      expect(subjectMatches(covering, s)).toBe(true);
    }
  });
});
