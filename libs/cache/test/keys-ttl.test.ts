import {
  DEFAULT_TTL_POLICY,
  isCacheError,
  providerKeyPrefix,
  toolInfoKey,
  toolInfoKeyPrefix,
  toolListKey,
  toolListKeyPrefix,
  ttlForImportance,
  ttlPolicy,
} from '@toolhub/cache';

const HOUR = 3_600_000;

describe('cache keys', () => {
  it('puts every key of a provider under its provider prefix', () => {
    const prefix = providerKeyPrefix('mcp');
    expect(toolInfoKey('mcp', 'read_file')).toMatch(new RegExp(`^${prefix}`));
    expect(toolInfoKey('mcp', 'read_file', 'abc123')).toMatch(new RegExp(`^${prefix}`));
    expect(toolListKey('mcp', 'file/read', true)).toMatch(new RegExp(`^${prefix}`));
  });

  it('keeps providers apart even when one name is a prefix of another or contains the separator', () => {
    for (const other of ['mcp2', 'mcp:x', 'mc']) {
      expect(toolInfoKey(other, 'read_file').startsWith(providerKeyPrefix('mcp'))).toBe(false);
    }
    expect(toolInfoKey('a:b', 'c')).not.toBe(toolInfoKey('a', 'b:c'));
  });

  it('keys tool info by provider, name and optional version, evictable per tool', () => {
    expect(toolInfoKey('local', 'add')).toBe('v1:local:info:add@');
    expect(toolInfoKey('local', 'add', 'h1')).toBe('v1:local:info:add@h1');
    expect(toolInfoKey('local', 'add', 'h1').startsWith(toolInfoKeyPrefix('local', 'add'))).toBe(true);
    expect(toolInfoKey('local', 'add_two').startsWith(toolInfoKeyPrefix('local', 'add'))).toBe(false);
  });

  it('keys list results by provider, normalised path and recursion', () => {
    expect(toolListKey('local', 'file/read', false)).toBe('v1:local:list:file/read:1');
    expect(toolListKey('local', '/file//read/', false)).toBe(toolListKey('local', 'file/read', false));
    expect(toolListKey('local', 'file', true)).not.toBe(toolListKey('local', 'file', false));
    expect(toolListKey('local', '', true)).toBe('v1:local:list::r');
    expect(toolListKey('local', 'x', true).startsWith(toolListKeyPrefix('local'))).toBe(true);
    expect(toolInfoKey('local', 'x').startsWith(toolListKeyPrefix('local'))).toBe(false);
  });

  it('escapes separators, whitespace and control characters', () => {
    expect(toolListKey('p', 'a b:c@d%e\n', false)).toBe('v1:p:list:a%20b%3Ac%40d%25e%0A:1');
    expect(toolInfoKey('p', 'ü')).toBe('v1:p:info:ü@');
  });
});

describe('ttlForImportance', () => {
  it('defaults to core 12 h, normal 4 h, low 1 h', () => {
    expect(ttlForImportance('core')).toBe(12 * HOUR);
    expect(ttlForImportance('normal')).toBe(4 * HOUR);
    expect(ttlForImportance('low')).toBe(1 * HOUR);
    expect(DEFAULT_TTL_POLICY).toEqual({ core: 12 * HOUR, normal: 4 * HOUR, low: HOUR });
  });

  it('applies overrides and keeps the other defaults', () => {
    expect(ttlForImportance('low', { low: 5000 })).toBe(5000);
    expect(ttlForImportance('core', { low: 5000 })).toBe(12 * HOUR);
    expect(ttlPolicy({ normal: 1 })).toEqual({ core: 12 * HOUR, normal: 1, low: HOUR });
  });

  it('treats an unknown importance as normal', () => {
    expect(ttlForImportance('unspecified' as never)).toBe(4 * HOUR);
  });

  it('rejects a bad override with a message naming the field', () => {
    let error: unknown;
    try {
      ttlPolicy({ core: 0 });
    } catch (err) {
      error = err;
    }
    expect(isCacheError(error, 'invalid_argument')).toBe(true);
    expect((error as Error).message).toContain('ttl.core');
  });
});
