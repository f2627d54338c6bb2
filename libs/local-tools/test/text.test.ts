import { createTextTools } from '../src';
import { countSegments, SEGMENT_WINDOW } from '../src/text/segments';
import { call, callError, data, pick, textOf } from './helpers';

const tools = createTextTools({ maxRegexInputChars: 1000, maxDiffEdits: 50 });
const tool = (name: string) => pick(tools, name);

describe('text_stats', () => {
  it('counts grapheme clusters, not UTF-16 units, and words Unicode-aware', async () => {
    const result = await call(tool('text_stats'), { text: 'Héllo wörld! 👋🏽\nBye.' });
    expect(data(result)).toEqual({ characters: 19, codePoints: 20, bytes: 28, words: 3, sentences: 3, lines: 2, paragraphs: 1 });
  });

  it('finds Chinese words without spaces', async () => {
    const stats = data(await call(tool('text_stats'), { text: '我爱北京天安门', locale: 'zh' }));
    expect(stats['characters']).toBe(7);
    expect(stats['words'] as number).toBeGreaterThanOrEqual(3);
  });

  it('counts lines like a person does and paragraphs by blank lines', async () => {
    expect(data(await call(tool('text_stats'), { text: 'a\nb\n\nc\n' }))).toMatchObject({ lines: 4, paragraphs: 2 });
    expect(data(await call(tool('text_stats'), { text: '' }))).toMatchObject({ characters: 0, lines: 0, words: 0, paragraphs: 0 });
  });

  it('refuses an invalid locale', async () => {
    expect((await callError(tool('text_stats'), { text: 'x', locale: 'not a locale' })).violations[0]?.field).toBe('/locale');
  });
});

describe('text_transform', () => {
  it.each([
    ['upper', 'straße', 'STRASSE'],
    ['lower', 'ÉCOLE', 'école'],
    ['title', "the o'neil CASE", "The O'neil Case"],
    ['sentence', 'HELLO. how ARE you?', 'Hello. How are you?'],
    ['snake', 'parseHTTPResponse v2', 'parse_http_response_v2'],
    ['kebab', 'Hello World!', 'hello-world'],
    ['camel', 'user_id-value', 'userIdValue'],
    ['pascal', 'user id', 'UserId'],
    ['constant', 'maxRetryCount', 'MAX_RETRY_COUNT'],
    ['slug', '  Crème Brûlée: 10 Tips! ', 'creme-brulee-10-tips'],
    ['slug', '你好 世界', '你好-世界'],
    ['trim', '  padded \n', 'padded'],
    ['collapse_whitespace', ' a \t b\n\nc ', 'a b c'],
  ])('converts to %s', async (to, text, expected) => {
    expect(textOf(await call(tool('text_transform'), { text, to }))).toBe(expected);
  });

  it('uses the locale for case rules', async () => {
    expect(textOf(await call(tool('text_transform'), { text: 'istanbul', to: 'upper', locale: 'tr' }))).toBe('İSTANBUL');
  });

  it('lists the allowed conversions when given an unknown one', async () => {
    const err = await callError(tool('text_transform'), { text: 'x', to: 'shout' });
    expect(err.violations[0]?.expected).toContain('"snake"');
  });
});

describe('text_regex_extract', () => {
  it('returns every match with its position', async () => {
    const result = await call(tool('text_regex_extract'), { text: 'Write to ada@example.com or lin@example.org.', pattern: '[\\w.+-]+@[\\w-]+\\.\\w+' });
    expect(textOf(result)).toBe('2 matches:\n"ada@example.com"\n"lin@example.org"');
    expect((data(result)['matches'] as Array<{ index: number }>).map((m) => m.index)).toEqual([9, 28]);
  });

  it('returns one capture group by number or by name', async () => {
    const text = 'id=7, id=42';
    expect(textOf(await call(tool('text_regex_extract'), { text, pattern: 'id=(\\d+)', group: 1 }))).toBe('2 matches:\n"7"\n"42"');
    expect(textOf(await call(tool('text_regex_extract'), { text, pattern: 'id=(?<n>\\d+)', group: 'n' }))).toBe('2 matches:\n"7"\n"42"');
  });

  it('refuses a group the pattern does not have', async () => {
    expect((await callError(tool('text_regex_extract'), { text: 'a', pattern: '(a)', group: 2 })).message).toContain('the pattern has 1 groups');
  });

  it('applies flags', async () => {
    expect(data(await call(tool('text_regex_extract'), { text: 'A a', pattern: 'a', flags: 'i' }))['count']).toBe(2);
  });

  it('stops at maxMatches and says so', async () => {
    const result = await call(tool('text_regex_extract'), { text: 'aaaaa', pattern: 'a', maxMatches: 3 });
    expect(data(result)).toMatchObject({ count: 3, truncated: true });
    expect(textOf(result)).toMatch(/^3\+ matches:/);
  });

  it('survives patterns that match the empty string', async () => {
    expect(data(await call(tool('text_regex_extract'), { text: 'ab', pattern: 'x*' }))['count']).toBe(3);
  });

  it('reports an invalid pattern', async () => {
    const err = await callError(tool('text_regex_extract'), { text: 'a', pattern: '(unclosed' });
    expect(err.message).toMatch(/^pattern "\(unclosed" is not a valid RE2 regular expression/);
  });

  it('refuses flags other than imsu', async () => {
    expect((await callError(tool('text_regex_extract'), { text: 'a', pattern: 'a', flags: 'gy' })).violations[0]?.field).toBe('/flags');
  });

  it('runs patterns that make backtracking engines hang, in linear time', async () => {
    // (a|a)*$ on 28 characters blocked a backtracking engine for 12 s; RE2 answers at once.
    // Same answers as JavaScript gives on a short input (only the empty match at the end; none).
    expect(data(await call(tool('text_regex_extract'), { text: `${'a'.repeat(28)}!`, pattern: '(a|a)*$' }))['count']).toBe([...'aa!'.matchAll(/(a|a)*$/g)].length);
    expect(data(await call(tool('text_regex_extract'), { text: `${'a'.repeat(29)}!`, pattern: '(a+)+$' }))['count']).toBe([...'aa!'.matchAll(/(a+)+$/g)].length);
  });

  it('explains look-around and back-references, which RE2 does not have', async () => {
    expect((await callError(tool('text_regex_extract'), { text: 'ab', pattern: '(?<=a)b' })).message).toContain('Look-ahead and look-behind');
    expect((await callError(tool('text_regex_extract'), { text: 'aa', pattern: '(a)\\1' })).message).toContain('Back-references');
  });

  it('reports match positions in UTF-16 units, as JavaScript does', async () => {
    const matches = data(await call(tool('text_regex_extract'), { text: '👋 id=7', pattern: '\\d' }))['matches'] as Array<{ index: number }>;
    expect(matches[0]?.index).toBe('👋 id='.length);
  });

  it('refuses input longer than the regex limit', async () => {
    expect((await callError(tool('text_regex_extract'), { text: 'a'.repeat(1001), pattern: 'a' })).violations[0]?.field).toBe('/text');
  });
});

describe('windowed segmentation', () => {
  const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
  const words = new Intl.Segmenter('en', { granularity: 'word' });
  const whole = (text: string, s: Intl.Segmenter, keep: (x: Intl.SegmentData) => boolean = () => true) => [...s.segment(text)].filter(keep).length;
  const samples = {
    prose: 'Héllo wörld! 👋🏽 Bye now. '.repeat(200),
    emoji: '👨‍👩‍👧‍👦🏳️‍🌈e\u0301'.repeat(300),
    cjk: '我爱北京天安门。'.repeat(300),
  };
  it.each(Object.entries(samples))('counts %s exactly as whole-text segmentation does', (_name, text) => {
    expect(text.length).toBeGreaterThan(SEGMENT_WINDOW * 3);
    expect(countSegments(text, graphemes)).toBe(whole(text, graphemes));
    expect(countSegments(text, words, (s) => s.isWordLike === true)).toBe(whole(text, words, (s) => s.isWordLike === true));
  });
  it('counts a run longer than a window as one segment', () => {
    expect(countSegments('a'.repeat(SEGMENT_WINDOW * 5 + 3), words)).toBe(1);
  });
});

describe('text_replace', () => {
  it('replaces every literal occurrence, without interpreting $', async () => {
    const result = await call(tool('text_replace'), { text: 'cost: X, tax: X', find: 'X', replacement: '$5' });
    expect(data(result)).toEqual({ text: 'cost: $5, tax: $5', replacements: 2 });
  });

  it('replaces only the first occurrence on request', async () => {
    expect(data(await call(tool('text_replace'), { text: 'a a a', find: 'a', replacement: 'b', all: false }))).toEqual({ text: 'b a a', replacements: 1 });
  });

  it('uses groups in regex mode', async () => {
    const result = await call(tool('text_replace'), { text: 'Due 2025-03-30.', find: '(\\d{4})-(\\d{2})-(\\d{2})', replacement: '$3/$2/$1', regex: true });
    expect(textOf(result)).toBe('Due 30/03/2025.');
  });

  it('reports zero replacements when nothing matches', async () => {
    expect(data(await call(tool('text_replace'), { text: 'abc', find: 'z', replacement: 'y' }))['replacements']).toBe(0);
  });

  it('applies the same regex rules', async () => {
    expect((await callError(tool('text_replace'), { text: 'a', find: '(?=a)', replacement: '', regex: true })).violations[0]?.field).toBe('/find');
  });

  it('expands $&, $<name>, $$ and two-digit groups like String.replace', async () => {
    const text = 'ab12';
    for (const replacement of ['[$&]', '<$<d>>', '$$1', '$10', '$2$1']) {
      const re = /(?<l>[a-z]+)(?<d>\d+)/;
      const expected = text.replace(re, replacement);
      expect(textOf(await call(tool('text_replace'), { text, find: '(?<l>[a-z]+)(?<d>\\d+)', replacement, regex: true }))).toBe(expected);
    }
  });

  it('replaces only the first regex match on request, and empty matches between characters', async () => {
    expect(data(await call(tool('text_replace'), { text: 'a1b2', find: '\\d', replacement: '#', regex: true, all: false }))).toEqual({ text: 'a#b2', replacements: 1 });
    expect(textOf(await call(tool('text_replace'), { text: 'ab', find: 'x*', replacement: '-', regex: true }))).toBe('ab'.replace(/x*/g, '-'));
  });
});

describe('text_diff', () => {
  it('shows a changed line as a unified diff hunk', async () => {
    const result = await call(tool('text_diff'), { before: 'a\nb\nc\n', after: 'a\nB\nc\n', context: 1 });
    expect(textOf(result)).toBe('--- before\n+++ after\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
    expect(data(result)).toMatchObject({ identical: false, added: 1, removed: 1, hunks: 1 });
  });

  it('splits distant changes into separate hunks with context', async () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const after = before.replace('l2\n', 'L2\n').replace('l18\n', '');
    const result = await call(tool('text_diff'), { before, after, context: 2, fromLabel: 'v1', toLabel: 'v2' });
    expect(textOf(result)).toBe('--- v1\n+++ v2\n@@ -1,4 +1,4 @@\n l1\n-l2\n+L2\n l3\n l4\n@@ -16,5 +16,4 @@\n l16\n l17\n-l18\n l19\n l20\n');
  });

  it('handles insertions into an empty text', async () => {
    expect(textOf(await call(tool('text_diff'), { before: '', after: 'new\n' }))).toBe('--- before\n+++ after\n@@ -0,0 +1,1 @@\n+new\n');
  });

  it('marks a missing newline at the end of file', async () => {
    expect(textOf(await call(tool('text_diff'), { before: 'a\n', after: 'a' }))).toBe('--- before\n+++ after\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n');
  });

  it('says when there are no differences', async () => {
    const result = await call(tool('text_diff'), { before: 'same', after: 'same' });
    expect(textOf(result)).toBe('(no differences)');
    expect(data(result)['identical']).toBe(true);
  });

  it('gives up with a clear message when the texts differ too much', async () => {
    const many = (p: string): string => Array.from({ length: 60 }, (_, i) => `${p}${i}`).join('\n');
    expect((await callError(tool('text_diff'), { before: many('a'), after: many('b') })).message).toContain('differ in more than 50 lines');
  });
});
