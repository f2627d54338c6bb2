import { assignToolNames, createParamNameMap, fitDescription, renameParamsInText, schemaRuleViolation } from '@toolhub/adapter-sdk';
import { isValidToolName } from '@toolhub/contracts';

describe('assignToolNames: any source name → a legal, unique, stable name', () => {
  const wild = [
    'getUserByID',
    'list-files',
    'trigger.long running',
    'read_file',
    'readFile',
    'read-file',
    '',
    '   ',
    'tab\there',
    'bell\u0007and\u0000nul',
    'line\nbreak',
    '搜索',
    '翻译',
    '🚀 launch',
    'Ünïcödé',
    '1st-tool',
    'a'.repeat(300),
    `${'a'.repeat(299)}b`,
    '__proto__',
    'constructor',
  ];

  it('never throws and always gives legal, distinct names', () => {
    for (const prefix of ['srv', '', 'Bad Prefix!', '9lives']) {
      const { toName, toNative } = assignToolNames(prefix, wild);
      expect(toName.size).toBe(new Set(wild).size);
      expect(new Set(toName.values()).size).toBe(toName.size);
      for (const [native, name] of toName) {
        expect(isValidToolName(name)).toBe(true);
        expect(toNative.get(name)).toBe(native);
      }
    }
  });

  it('is deterministic whatever the order, and hashes names past 64 characters', () => {
    const a = assignToolNames('srv', wild);
    const b = assignToolNames('srv', [...wild].reverse());
    expect([...b.toName.entries()].sort()).toEqual([...a.toName.entries()].sort());
    expect(a.toName.get('a'.repeat(300))).toMatch(/^srv_a+_[0-9a-f]{8}$/);
    expect(a.toName.get('a'.repeat(300))).toHaveLength(64);
    expect(a.toName.get('getUserByID')).toBe('srv_get_user_by_id');
    expect(a.toName.get('read_file')).toBe('srv_read_file');
    expect(a.toName.get('readFile')).toMatch(/^srv_read_file_[0-9a-f]{8}$/);
    expect(a.toName.get('搜索')).toMatch(/^srv_tool_[0-9a-f]{8}$/);
    expect(a.toName.get('tab\there')).toBe('srv_tab_here');
    expect(assignToolNames('', ['1st-tool']).toName.get('1st-tool')).toBe('t_1st_tool');
  });
});

describe('parameter names that collide', () => {
  it('spell symbols as words when plain snake_case would collide (StartTime, StartTime<, StartTime>)', () => {
    const map = createParamNameMap({ type: 'object', properties: { StartTime: { type: 'string' }, 'StartTime<': { type: 'string' }, 'StartTime>': { type: 'string' }, PageSize: { type: 'integer' } } });
    expect(Object.keys(map.schema.properties as object)).toEqual(['start_time', 'start_time_lt', 'start_time_gt', 'page_size']);
    expect(map.toNative({ start_time_lt: 'x', page_size: 5 })).toEqual({ 'StartTime<': 'x', PageSize: 5 });
  });
});

describe('renameParamsInText', () => {
  it('rewrites whole-word mentions of renamed parameters only', () => {
    const renames = [
      { at: '', native: 'pageSize', name: 'page_size' },
      { at: '', native: 'pageSizeMax', name: 'page_size_max' },
      { at: '', native: 'dry-run', name: 'dry_run' },
    ];
    expect(renameParamsInText('Use pageSize (≤ pageSizeMax); `dry-run` previews. mypageSize stays.', renames)).toBe('Use page_size (≤ page_size_max); `dry_run` previews. mypageSize stays.');
  });
});

describe('tool rules for outside sources', () => {
  it('refuses too deep or too large schemas without recursion, and cuts long descriptions', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { properties: { x: deep } };
    expect(schemaRuleViolation(deep)).toEqual({ rule: 'schema_depth', reason: expect.stringMatching(/more than 128 levels/) });
    expect(schemaRuleViolation({ type: 'object', description: 'x'.repeat(600_000) })?.rule).toBe('schema_size');
    expect(schemaRuleViolation({ type: 'object', properties: { a: { type: 'string' } } })).toBeUndefined();
    expect(schemaRuleViolation([1, 2])?.rule).toBe('schema');
    expect(fitDescription('y'.repeat(20_000))).toHaveLength(16_384);
  });
});
