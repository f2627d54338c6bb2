import { compileLinear, LinearRegexError, matchAll, replaceMatches, toRe2Syntax } from '../src';

describe('compileLinear', () => {
  it('matches the shapes that hang backtracking engines, in linear time, with JavaScript answers', () => {
    const long = `${'a'.repeat(100_000)}!`;
    expect([...matchAll(compileLinear('(a|a)*$'), long)].length).toBe([...'aa!'.matchAll(/(a|a)*$/g)].length);
    expect([...matchAll(compileLinear('(a+)+$'), long)].length).toBe(0);
  });

  it('translates JavaScript escapes RE2 spells differently', () => {
    expect(toRe2Syntax('\\u00e9\\u{1F600}\\cA\\/x')).toBe('\\x{00e9}\\x{1F600}\\x{1}/x');
    expect(compileLinear('^caf\\u00e9$').test('café')).toBe(true);
    expect(compileLinear('^\\/api\\/v1$').test('/api/v1')).toBe(true);
  });

  it('honours i, m and s', () => {
    expect(compileLinear('^b', 'm').test('a\nb')).toBe(true);
    expect(compileLinear('^b').test('a\nb')).toBe(false);
    expect(compileLinear('a.b', 's').test('a\nb')).toBe(true);
    expect(compileLinear('ABC', 'i').test('abc')).toBe(true);
  });

  it('refuses look-around and back-references with a hint', () => {
    expect(() => compileLinear('(?=a)')).toThrow(LinearRegexError);
    expect(() => compileLinear('(?<!a)b')).toThrow(/Look-ahead and look-behind/);
    expect(() => compileLinear('(a)\\1')).toThrow(/Back-references/);
    expect(() => compileLinear('(unclosed')).toThrow(/^pattern "\(unclosed" is not a valid RE2 regular expression/);
  });
});

describe('matchAll and replaceMatches', () => {
  it('report UTF-16 indexes, numbered and named groups', () => {
    const [m] = [...matchAll(compileLinear('(?<n>\\d)(x)?'), '👋 7')];
    expect(m).toEqual({ match: '7', index: '👋 '.length, groups: ['7', null], named: { n: '7' } });
  });

  it.each(['[$&]', '<$<d>>', '$$1', '$10', '$2$1', "$`|$'", '$9'])('expand %s like String.replace', (replacement) => {
    const text = 'x ab12 y ab3';
    const expected = text.replace(/(?<l>[a-z]+)(?<d>\d+)/g, replacement);
    expect(replaceMatches(compileLinear('(?<l>[a-z]+)(?<d>\\d+)'), text, replacement, true).text).toBe(expected);
  });

  it('replace the first match only, and count', () => {
    expect(replaceMatches(compileLinear('\\d'), 'a1b2', '#', false)).toEqual({ text: 'a#b2', replacements: 1 });
    expect(replaceMatches(compileLinear('z'), 'abc', '#', true)).toEqual({ text: 'abc', replacements: 0 });
  });
});
