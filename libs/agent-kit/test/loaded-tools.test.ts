import { Importance, type ToolInfo } from '@toolhub/contracts';

import { estimateTokens, LoadedTools, META_TOOL_NAMES, renderTools } from '../src';

const preload = [
  { id: 'local:file_read', provider: 'local', name: 'file_read', description: 'Read a text file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, version: 'v1' },
];

function info(name: string, importance: Importance = Importance.IMPORTANCE_NORMAL, description = `Does ${name}.`, provider = 'local'): ToolInfo {
  return {
    id: `${provider}:${name}`,
    provider,
    name,
    path: 'misc',
    description,
    inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
    outputDescription: '',
    examples: [],
    importance,
    version: 'v1',
    tags: [],
    defaultTimeoutMs: 0,
  };
}

/** Every tool costs exactly 10 "tokens" with this counter, which keeps budgets readable. */
const tenEach = (): number => 10;

describe('LoadedTools', () => {
  it('starts with the meta-tools then the preload set', () => {
    const loaded = new LoadedTools(preload);
    expect(loaded.tools().map((t) => t.name)).toEqual([...META_TOOL_NAMES, 'local__file_read']);
    expect(loaded.resolve('local__file_read')).toEqual({ provider: 'local', name: 'file_read' });
  });

  it('appends discovered tools and never touches the prefix bytes', () => {
    const loaded = new LoadedTools(preload, { tokenBudget: 30, countTokens: tenEach });
    const prefixJson = renderTools(loaded.prefix, 'anthropic').json;
    for (const n of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) loaded.load(info(n));
    const all = renderTools(loaded.tools(), 'anthropic').json;
    expect(all.startsWith(prefixJson.slice(0, -1))).toBe(true);
    expect(loaded.tools().slice(0, 5).map((t) => t.name)).toEqual([...META_TOOL_NAMES, 'local__file_read']);
  });

  it('exposes tools until the budget is reached, then releases the least recently used', () => {
    const loaded = new LoadedTools([], { tokenBudget: 30, countTokens: tenEach });
    loaded.load(info('alpha'));
    loaded.load(info('beta'));
    loaded.load(info('gamma'));
    loaded.recordRun('local__alpha');
    const res = loaded.load(info('delta'));
    expect(res).toEqual({ exposedName: 'local__delta', exposed: true, released: ['local__beta'] });
    expect(loaded.discovered.map((d) => d.tool.name)).toEqual(['local__alpha', 'local__gamma', 'local__delta']);
    expect(loaded.usedTokens).toBe(30);
  });

  it('releases low-importance tools before normal and core ones', () => {
    const loaded = new LoadedTools([], { tokenBudget: 30, countTokens: tenEach });
    loaded.load(info('core_one', Importance.IMPORTANCE_CORE));
    loaded.load(info('normal_one'));
    loaded.load(info('low_one', Importance.IMPORTANCE_LOW));
    expect(loaded.load(info('newcomer')).released).toEqual(['local__low_one']);
    expect(loaded.load(info('another')).released).toEqual(['local__normal_one']);
  });

  it('releases run low-importance tools after use, keeping the most recent one', () => {
    const loaded = new LoadedTools([], { tokenBudget: 1000, countTokens: tenEach });
    loaded.load(info('low_a', Importance.IMPORTANCE_LOW));
    loaded.load(info('low_b', Importance.IMPORTANCE_LOW));
    loaded.load(info('normal_c'));
    expect(loaded.recordRun('local__low_a')).toEqual([]);
    expect(loaded.recordRun('local__normal_c')).toEqual([]);
    expect(loaded.recordRun('local__low_b')).toEqual(['local__low_a']);
    expect(loaded.discovered.map((d) => d.tool.name)).toEqual(['local__low_b', 'local__normal_c']);
    // Released, yet still callable by name.
    expect(loaded.isExposed('local__low_a')).toBe(false);
    expect(loaded.resolve('local__low_a')).toEqual({ provider: 'local', name: 'low_a' });
  });

  it('keeps a reloaded tool in place and re-exposes a released one at the end', () => {
    const loaded = new LoadedTools([], { tokenBudget: 1000, countTokens: tenEach });
    loaded.load(info('alpha'));
    loaded.load(info('beta'));
    loaded.load({ ...info('alpha'), description: 'Changed.', version: 'v2' });
    expect(loaded.discovered.map((d) => [d.tool.name, d.version])).toEqual([
      ['local__alpha', 'v2'],
      ['local__beta', 'v1'],
    ]);
    loaded.release('local__alpha');
    loaded.load(info('alpha'));
    expect(loaded.discovered.map((d) => d.tool.name)).toEqual(['local__beta', 'local__alpha']);
  });

  it('does not expose a tool larger than the whole budget, and releases nothing for it', () => {
    const loaded = new LoadedTools([], { tokenBudget: 50 });
    loaded.load(info('small', Importance.IMPORTANCE_NORMAL, 'x'));
    const res = loaded.load(info('huge', Importance.IMPORTANCE_NORMAL, 'word '.repeat(500)));
    expect(res).toMatchObject({ exposed: false, released: [] });
    expect(loaded.discovered.map((d) => d.tool.name)).toEqual(['local__small']);
  });

  it('does not duplicate a preloaded tool fetched with tool_info', () => {
    const loaded = new LoadedTools(preload);
    expect(loaded.load(info('file_read')).exposed).toBe(true);
    expect(loaded.discovered).toHaveLength(0);
  });

  it('counts tokens with the pluggable counter on the rendered tool', () => {
    const seen: string[] = [];
    const loaded = new LoadedTools([], { countTokens: (t) => (seen.push(t), estimateTokens(t)), measureFormat: 'anthropic' });
    loaded.load(info('alpha'));
    expect(seen[0]).toContain('"input_schema"');
    expect(loaded.usedTokens).toBe(estimateTokens(seen[0]!));
  });

  it('rejects bad options and duplicate preload entries', () => {
    expect(() => new LoadedTools([], { tokenBudget: -1 })).toThrow(/tokenBudget/);
    expect(() => new LoadedTools([...preload, ...preload])).toThrow(/twice/);
  });
});
