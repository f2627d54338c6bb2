import { isValidToolName } from '@toolhub/contracts';

import { assignToolNames, namespacedName, toolFilter } from '../src/names';

describe('tool names', () => {
  it('prefixes the alias and normalises to the tool name rule', () => {
    const { toName, toNative } = assignToolNames('everything', ['echo', 'get-sum', 'getTinyImage', 'trigger.long running']);
    expect([...toName.entries()]).toEqual([
      ['echo', 'everything_echo'],
      ['get-sum', 'everything_get_sum'],
      ['getTinyImage', 'everything_get_tiny_image'],
      ['trigger.long running', 'everything_trigger_long_running'],
    ]);
    expect(toNative.get('everything_get_sum')).toBe('get-sum');
  });

  it('keeps the mapping both ways for every tool', () => {
    const natives = ['a', 'b-c', 'B_C', 'bC', 'x'.repeat(100)];
    const { toName, toNative } = assignToolNames('srv', natives);
    for (const n of natives) expect(toNative.get(toName.get(n)!)).toBe(n);
    expect(new Set(toName.values()).size).toBe(natives.length);
  });

  it('cuts long names to 64 characters with a stable hash, without collisions', () => {
    const long1 = `${'very_long_tool_name_'.repeat(4)}one`;
    const long2 = `${'very_long_tool_name_'.repeat(4)}two`;
    const first = assignToolNames('github', [long1, long2]);
    const again = assignToolNames('github', [long2, long1]);
    const n1 = first.toName.get(long1)!;
    const n2 = first.toName.get(long2)!;
    expect(n1).toHaveLength(64);
    expect(n2).toHaveLength(64);
    expect(n1).not.toBe(n2);
    expect(n1).toMatch(/^github_very_long_tool_name_very_long_tool_name_very_lon_[0-9a-f]{8}$/);
    expect(isValidToolName(n1) && isValidToolName(n2)).toBe(true);
    expect(again.toName.get(long1)).toBe(n1);
  });

  it('gives the plain name to the tool already in normal form when two names normalise alike', () => {
    const { toName } = assignToolNames('fs', ['read-file', 'read_file', 'readFile']);
    expect(toName.get('read_file')).toBe('fs_read_file');
    expect(toName.get('read-file')).toMatch(/^fs_read_file_[0-9a-f]{8}$/);
    expect(toName.get('readFile')).toMatch(/^fs_read_file_[0-9a-f]{8}$/);
    expect(toName.get('read-file')).not.toBe(toName.get('readFile'));
  });

  it('names tools without usable characters by a hash', () => {
    const { toName } = assignToolNames('cn', ['搜索', '翻译']);
    expect(toName.get('搜索')).toMatch(/^cn_tool_[0-9a-f]{8}$/);
    expect(toName.get('搜索')).not.toBe(toName.get('翻译'));
    expect(namespacedName('cn', '搜索')).toBeUndefined();
  });

  it('is always a valid tool name', () => {
    const natives = ['', '--', '1st', 'Ünïcödé', 'a'.repeat(200), 'UPPER_CASE', 'dots.and.more.dots', 'tool name with spaces'];
    for (const name of assignToolNames('a1', natives).toName.values()) expect(isValidToolName(name)).toBe(true);
  });
});

describe('toolFilter', () => {
  it('keeps included tools that are not excluded, by glob on the native name', () => {
    const keep = toolFilter(['get-*', 'echo'], ['get-env', 'get-?ecret']);
    expect(['echo', 'get-sum', 'get-env', 'get-secret', 'get-tiny-image', 'toggle-logging'].filter(keep)).toEqual(['echo', 'get-sum', 'get-tiny-image']);
  });

  it('keeps everything with no include list, and treats regex characters literally', () => {
    const keep = toolFilter([], ['a.b']);
    expect(['a.b', 'axb', 'c'].filter(keep)).toEqual(['axb', 'c']);
  });
});
