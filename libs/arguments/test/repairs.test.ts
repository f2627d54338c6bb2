import { ArgumentValidator } from '@toolhub/arguments';
import { type ToolHubError } from '@toolhub/contracts';

const schema = {
  type: 'object',
  required: ['query'],
  properties: {
    query: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    ratio: { type: 'number' },
    exact: { type: 'boolean' },
    label: { type: 'string' },
    order: { type: 'string', enum: ['ascending', 'descending'] },
    format: { enum: ['csv', 'json', 'markdown'] },
    model: { enum: ['gpt-4', 'claude'] },
    page: { enum: [1, 2, 3] },
    tags: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' } },
    filter: { type: 'object', properties: { since: { type: 'string' }, max: { type: 'integer' } } },
    note: { type: 'string' },
  },
};

function run(args: Record<string, unknown>, s: unknown = schema) {
  return new ArgumentValidator().validateAndRepair('demo:search', 'v1', s, args);
}

function rejection(args: Record<string, unknown>, s: unknown = schema): ToolHubError {
  try {
    run(args, s);
  } catch (err) {
    return err as ToolHubError;
  }
  throw new Error('expected a rejection');
}

describe('safe repairs', () => {
  it('leaves valid arguments unchanged and reports nothing but the defaults it filled', () => {
    const result = run({ query: 'cats', limit: 3 });
    expect(result).toEqual({ args: { query: 'cats', limit: 3 }, fixes: [], validated: true });
  });

  it('converts a clean numeric string to an integer or a number and says so', () => {
    const { args, fixes } = run({ query: 'q', limit: ' 7 ', ratio: '-0.25e1' });
    expect(args).toMatchObject({ limit: 7, ratio: -2.5 });
    expect(fixes).toEqual([
      { field: '/limit', description: 'converted the string " 7 " to the integer 7' },
      { field: '/ratio', description: 'converted the string "-0.25e1" to the number -2.5' },
    ]);
  });

  it.each(['0x10', '1,000', '007', '', 'NaN', 'Infinity', '1e400', '5 apples', '2.5'])('does not guess a number from the string %p for an integer', (text) => {
    const err = rejection({ query: 'q', limit: text });
    expect(err.code).toBe('invalid_argument');
    expect(err.violations.map((v) => v.field)).toEqual(['/limit']);
  });

  it('does not convert an integer string past 2^53, which would lose digits', () => {
    expect(rejection({ query: 'q', ids: ['9007199254740993'] }).violations[0]!.field).toBe('/ids/0');
  });

  it('converts "true" and "false" in any case to booleans, and nothing else', () => {
    expect(run({ query: 'q', exact: 'FALSE' }).args['exact']).toBe(false);
    expect(rejection({ query: 'q', exact: 'yes' }).violations[0]!.field).toBe('/exact');
  });

  it('converts a finite number to a string where a string is expected', () => {
    const { args, fixes } = run({ query: 'q', label: 42.5 });
    expect(args['label']).toBe('42.5');
    expect(fixes[0]).toEqual({ field: '/label', description: 'converted the number 42.5 to the string "42.5"' });
  });

  it('refuses to stringify an integer that has already lost precision', () => {
    expect(rejection({ query: 'q', label: 2 ** 60 }).violations[0]!.field).toBe('/label');
  });

  it('fills missing optional properties with their defaults and reports each', () => {
    const s = { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', default: 10 }, opts: { type: 'object', properties: { deep: { type: 'boolean', default: false } } } } };
    const { args, fixes } = run({ query: 'q', opts: {} }, s);
    expect(args).toEqual({ query: 'q', limit: 10, opts: { deep: false } });
    expect(fixes).toEqual([
      { field: '/opts/deep', description: 'filled the missing optional property with its default false' },
      { field: '/limit', description: 'filled the missing optional property with its default 10' },
    ]);
  });

  it('never fills a required property from its default: the caller must choose', () => {
    const s = { type: 'object', required: ['path'], properties: { path: { type: 'string', default: '.' } } };
    const err = rejection({}, s);
    expect(err.violations).toEqual([{ field: '/path', message: 'missing required property "path"', expected: 'string', example: '"."' }]);
  });

  it('does not insert explicit nulls for `default: null`', () => {
    const s = { type: 'object', properties: { cursor: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } } };
    expect(run({}, s)).toEqual({ args: {}, fixes: [], validated: true });
  });

  it('corrects an enum value that differs only in case or separators', () => {
    const { args, fixes } = run({ query: 'q', order: 'Descending' });
    expect(args['order']).toBe('descending');
    expect(fixes[0]).toEqual({ field: '/order', description: 'corrected "Descending" to the allowed value "descending" (same value up to case and separators)' });
  });

  it('corrects an enum value one or two typos away when exactly one value is closest', () => {
    expect(run({ query: 'q', order: 'ascendng' }).args['order']).toBe('ascending');
    expect(run({ query: 'q', format: 'makrdown' }).args['format']).toBe('markdown');
  });

  it('does not correct short words or changed digits, which are different values, not typos', () => {
    expect(rejection({ query: 'q', format: 'tsv' }).violations[0]!.field).toBe('/format');
    expect(rejection({ query: 'q', model: 'gpt-5' }).violations[0]!.field).toBe('/model');
  });

  it('names the candidates instead of guessing when two allowed values are equally close', () => {
    const s = { type: 'object', properties: { size: { enum: ['small', 'smell'] } } };
    const err = rejection({ size: 'smoll' }, s);
    expect(err.violations[0]!.message).toContain('close to "small" and "smell": say which');
  });

  it('turns a string that spells a numeric enum value into that value', () => {
    expect(run({ query: 'q', limit: 1, page: '2' })).toMatchObject({ args: { page: 2 }, fixes: [{ field: '/page' }] });
  });

  it('wraps a single value in an array when the array items have its type', () => {
    const { args, fixes } = run({ query: 'q', limit: 1, tags: 'urgent' });
    expect(args['tags']).toEqual(['urgent']);
    expect(fixes).toEqual([{ field: '/tags', description: 'wrapped the single value "urgent" in an array (the tool expects a list)' }]);
  });

  it('wraps then converts a single numeric string for an array of integers, reporting both steps', () => {
    const { args, fixes } = run({ query: 'q', limit: 1, ids: '12' });
    expect(args['ids']).toEqual([12]);
    expect(fixes.map((f) => f.field)).toEqual(['/ids', '/ids/0']);
  });

  it('does not wrap a value the items could never accept', () => {
    expect(rejection({ query: 'q', ids: true }).violations[0]!.field).toBe('/ids');
  });

  it('does not wrap text that starts like a JSON list but does not parse: the caller sees why', () => {
    const err = rejection({ query: 'q', limit: 1, tags: '["a", "b"' });
    expect(err.violations[0]!.field).toBe('/tags');
  });

  it('parses JSON text into the object or array the schema expects', () => {
    const { args, fixes } = run({ query: 'q', limit: 1, filter: '{"since": "2024-01-01", "max": "3"}', tags: '["a","b"]' });
    expect(args['filter']).toEqual({ since: '2024-01-01', max: 3 });
    expect(args['tags']).toEqual(['a', 'b']);
    expect(fixes.map((f) => f.field)).toEqual(['/tags', '/filter', '/filter/max']);
  });

  it('rejects text that is not JSON where an object is expected', () => {
    expect(rejection({ query: 'q', filter: 'since yesterday' }).violations[0]).toMatchObject({ field: '/filter', message: 'must be object, got "since yesterday"' });
  });

  it('drops null from an optional property and fills its default when there is one', () => {
    const { args, fixes } = run({ query: 'q', note: null, limit: null });
    expect(args).toEqual({ query: 'q', limit: 10 });
    expect(fixes).toEqual([
      { field: '/limit', description: 'replaced null with the default 10 (null means "not given" for an optional property)' },
      { field: '/note', description: 'removed null from an optional property (treated as not given)' },
    ]);
  });

  it('keeps null on a required property and rejects it', () => {
    const err = rejection({ query: null });
    expect(err.violations).toEqual([expect.objectContaining({ field: '/query', message: 'must be string, got null' })]);
    expect(err.fixes).toEqual([]);
  });

  it('never mutates the caller’s arguments, even deep inside', () => {
    const args = deepFreeze({ query: 'q', limit: '5', filter: { max: '2' }, tags: 'x', note: null });
    const before = JSON.stringify(args);
    run(args);
    expect(JSON.stringify(args)).toBe(before);
  });

  it('returns arguments that share nothing with the input', () => {
    const inner = { since: 'x' };
    const { args } = run({ query: 'q', filter: inner });
    expect(args['filter']).toEqual(inner);
    expect(args['filter']).not.toBe(inner);
  });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('parameter-name aliases', () => {
  const renamedSchema = {
    type: 'object',
    required: ['old_text', 'new_text'],
    additionalProperties: false,
    properties: { old_text: { type: 'string' }, new_text: { type: 'string' }, dry_run: { type: 'boolean', default: false }, 'StartTime<': { type: 'string' } },
  };

  it('accepts the source names of renamed parameters and reports each rename as a fix', () => {
    const result = run({ oldText: 'a', 'new-text': 'b' }, renamedSchema);
    expect(result.args).toEqual({ old_text: 'a', new_text: 'b', dry_run: false });
    expect(result.fixes).toEqual([
      { field: '/old_text', description: 'renamed the argument "oldText" to "old_text", the parameter\'s name in the tool\'s schema' },
      { field: '/new_text', description: 'renamed the argument "new-text" to "new_text", the parameter\'s name in the tool\'s schema' },
      { field: '/dry_run', description: 'filled the missing optional property with its default false' },
    ]);
  });

  it('keeps the schema name when both forms are sent, and never folds a name with symbols onto a plain one', () => {
    const both = rejection({ old_text: 'a', oldText: 'b', new_text: 'c' }, renamedSchema);
    expect(both.violations.map((v) => v.field)).toContain('/oldText');
    const symbolic = run({ old_text: 'a', new_text: 'b', 'StartTime<': 'x' }, renamedSchema);
    expect(symbolic.fixes.filter((f) => f.description.startsWith('renamed'))).toEqual([]);
    const schemaWithPlain = { type: 'object', properties: { start_time: { type: 'string' } }, additionalProperties: false };
    expect(rejection({ 'StartTime>': 'x' }, schemaWithPlain).violations[0]?.field).toBe('/StartTime>');
  });
});
