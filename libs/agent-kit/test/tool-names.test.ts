import { EXPOSED_NAME_PATTERN, ExposedNameTable, exposedToolName, parseExposedToolName } from '../src';

describe('exposed tool names', () => {
  it('joins provider and name with __ and splits them back', () => {
    expect(exposedToolName('local', 'file_read')).toBe('local__file_read');
    expect(exposedToolName('mcp-github', 'create_issue')).toBe('mcp-github__create_issue');
    expect(parseExposedToolName('mcp-github__create_issue')).toEqual({ provider: 'mcp-github', name: 'create_issue' });
    expect(parseExposedToolName('local__a__b')).toEqual({ provider: 'local', name: 'a__b' });
  });

  it('accepts an id as well', () => {
    expect(parseExposedToolName('local:file_read')).toEqual({ provider: 'local', name: 'file_read' });
    expect(parseExposedToolName('file_read')).toBeUndefined();
  });

  it('shortens long names to 64 characters with a stable hash, reversible through the table', () => {
    const provider = 'a-very-long-provider-name-here';
    const name = `x${'_y'.repeat(31)}`;
    const exposed = exposedToolName(provider, name);
    expect(exposed.length).toBeLessThanOrEqual(64);
    expect(exposed).toMatch(EXPOSED_NAME_PATTERN);
    expect(exposedToolName(provider, name)).toBe(exposed);
    expect(exposedToolName(provider, `${name.slice(0, -1)}z`)).not.toBe(exposed);
    const table = new ExposedNameTable();
    expect(table.register(provider, name)).toBe(exposed);
    expect(table.resolve(exposed)).toEqual({ provider, name });
  });

  it('hashes providers whose own name would make the split ambiguous', () => {
    for (const provider of ['my__mcp', 'odd_']) {
      const exposed = exposedToolName(provider, 'run');
      expect(parseExposedToolName(exposed)).not.toEqual({ provider, name: 'run' });
      const table = new ExposedNameTable();
      table.register(provider, 'run');
      expect(table.resolve(exposed)).toEqual({ provider, name: 'run' });
    }
  });
});
