import { closestMatches, isValidToolName, normalizePath, parseToolId, toToolName, toolId } from '../src/names';
import { ToolHubError } from '../src/errors';

describe('tool names', () => {
  it('accepts names every LLM API accepts and refuses the rest', () => {
    expect(isValidToolName('file_read')).toBe(true);
    expect(isValidToolName('a')).toBe(true);
    expect(isValidToolName('a'.repeat(64))).toBe(true);
    for (const bad of ['', 'File', '1abc', 'a-b', 'a.b', 'a b', 'a'.repeat(65), 'é']) expect(isValidToolName(bad)).toBe(false);
  });

  it('normalises native names to snake_case within the rules', () => {
    expect(toToolName('getUserByID')).toBe('get_user_by_id');
    expect(toToolName('list-files')).toBe('list_files');
    expect(toToolName('Read File (v2)')).toBe('read_file_v2');
    expect(toToolName('123go')).toBe('t_123go');
    expect(toToolName('café.menu')).toBe('cafe_menu');
    expect(toToolName('!!!')).toBe('');
    const long = toToolName('x'.repeat(100));
    expect(long).toHaveLength(64);
    expect(isValidToolName(long)).toBe(true);
  });
});

describe('category paths', () => {
  it('normalises slashes and case', () => {
    expect(normalizePath('/File//Read/')).toBe('file/read');
    expect(normalizePath('')).toBe('');
    expect(normalizePath('/')).toBe('');
  });

  it('refuses dot segments and odd characters with an invalid_argument error', () => {
    for (const bad of ['..', 'a/../b', 'a/./b', 'a b', 'a/*']) {
      expect(() => normalizePath(bad)).toThrow(ToolHubError);
      try {
        normalizePath(bad);
      } catch (e) {
        expect((e as ToolHubError).code).toBe('invalid_argument');
        expect((e as ToolHubError).violations[0]?.field).toBe('path');
      }
    }
  });

  it('refuses paths deeper than the limit', () => {
    expect(() => normalizePath('a/b/c/d/e/f/g/h/i')).toThrow(/levels deep/);
  });
});

describe('tool ids and close matches', () => {
  it('round-trips provider and name through the id', () => {
    expect(parseToolId(toolId('mcp', 'everything_echo'))).toEqual({ provider: 'mcp', name: 'everything_echo' });
    expect(parseToolId('noprovider')).toBeUndefined();
    expect(parseToolId(':x')).toBeUndefined();
  });

  it('ranks substring and small-edit matches first and ignores unrelated names', () => {
    const names = ['file_read', 'file_write', 'file_list', 'math_calculate', 'time_now'];
    expect(closestMatches('file_reed', names)[0]).toBe('file_read');
    expect(closestMatches('read', names)).toEqual(['file_read']);
    expect(closestMatches('zzzzzz', names)).toEqual([]);
  });
});
