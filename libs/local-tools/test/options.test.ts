import { createLocalTools, LOCAL_TOOLS_DEFAULTS, LocalToolsError, MathEngine, withDefaults } from '../src';

describe('withDefaults', () => {
  it('fills in every default', () => {
    const o = withDefaults({ root: 'data' });
    expect(o).toMatchObject({ maxReadBytes: 262144, maxWriteBytes: 1048576, maxListEntries: 1000, allowWrite: true, mathTimeoutMs: 2000 });
    expect(o.categories).toEqual(['file', 'data', 'math', 'time', 'text']);
    expect(o.root).toBe(`${process.cwd()}/data`);
    expect(o.now()).toBeInstanceOf(Date);
    expect(LOCAL_TOOLS_DEFAULTS.maxReadBytes).toBe(262144);
  });

  it('requires a root', () => {
    expect(() => withDefaults({ root: ' ' })).toThrow(/root is required/);
  });

  it('names a bad limit', () => {
    expect(() => withDefaults({ root: '/r', maxReadBytes: -1 })).toThrow(/maxReadBytes must be an integer/);
    expect(() => withDefaults({ root: '/r', maxListEntries: 1.5 })).toThrow(LocalToolsError);
  });

  it('refuses unknown, repeated or no categories', () => {
    expect(() => withDefaults({ root: '/r', categories: ['file', 'net' as never] })).toThrow(/categories must be/);
    expect(() => withDefaults({ root: '/r', categories: ['file', 'file'] })).toThrow(/categories must be/);
    expect(() => withDefaults({ root: '/r', categories: [] })).toThrow(/categories must be/);
  });

  it('refuses a math timeout next to a ready-made engine', () => {
    expect(() => withDefaults({ root: '/r', mathEngine: MathEngine.create(), mathTimeoutMs: 100 })).toThrow(/both given/);
  });
});

describe('createLocalTools', () => {
  it('offers only the chosen categories, in the standard order', () => {
    const names = createLocalTools({ root: '/r', categories: ['text', 'time'] }).map((t) => t.name);
    expect(names[0]).toBe('time_now');
    expect(names.every((n) => n.startsWith('time_') || n.startsWith('text_'))).toBe(true);
  });

  it('leaves out file_write when writing is not allowed', () => {
    expect(createLocalTools({ root: '/r', allowWrite: false }).map((t) => t.name)).not.toContain('file_write');
  });
});
