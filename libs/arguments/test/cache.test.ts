import { ArgumentValidator, type SchemaProblem } from '@toolhub/arguments';
import { ToolHubError } from '@toolhub/contracts';

const v1 = { type: 'object', properties: { n: { type: 'integer' } } };
const v2 = { type: 'object', properties: { n: { type: 'string', enum: ['one', 'two'] } } };

function problemsOf(options: ConstructorParameters<typeof ArgumentValidator>[0] = {}) {
  const problems: SchemaProblem[] = [];
  const validator = new ArgumentValidator({ ...options, onSchemaProblem: (p) => problems.push(p) });
  return { validator, problems };
}

describe('compiled schema cache', () => {
  it('compiles a tool version once and reuses it on every later call', () => {
    const validator = new ArgumentValidator();
    for (let i = 0; i < 5; i++) validator.validateAndRepair('demo:count', 'v1', v1, { n: i });
    expect(validator.stats()).toEqual({ entries: 1, hits: 4, misses: 1, unusableSchemas: 0 });
  });

  it('recompiles when the version changes, and the new schema takes effect', () => {
    const validator = new ArgumentValidator();
    expect(validator.validateAndRepair('demo:count', 'v1', v1, { n: '2' }).args).toEqual({ n: 2 });
    expect(validator.validateAndRepair('demo:count', 'v2', v2, { n: 'Two' }).args).toEqual({ n: 'two' });
    expect(validator.stats()).toMatchObject({ entries: 2, misses: 2 });
  });

  it('keeps using the compiled version even if the caller mutates the schema object later', () => {
    const validator = new ArgumentValidator();
    const schema = structuredClone(v1);
    validator.validateAndRepair('demo:count', 'v1', schema, { n: 1 });
    schema.properties.n.type = 'string';
    expect(validator.validateAndRepair('demo:count', 'v1', schema, { n: 1 }).args).toEqual({ n: 1 });
  });

  it('keeps at most cacheSize compiled versions, dropping the least recently used', () => {
    const validator = new ArgumentValidator({ cacheSize: 3 });
    for (let i = 0; i < 10; i++) validator.validateAndRepair(`demo:t${i}`, '1', v1, {});
    validator.validateAndRepair('demo:t0', '1', v1, {});
    expect(validator.stats()).toEqual({ entries: 3, hits: 0, misses: 11, unusableSchemas: 0 });
  });

  it('keeps working across Ajv engine recycling', () => {
    const validator = new ArgumentValidator({ recycleEngineAfter: 2 });
    for (let i = 0; i < 7; i++) expect(validator.validateAndRepair('demo:count', String(i), v1, { n: '3' }).args).toEqual({ n: 3 });
    expect(validator.validateAndRepair('demo:count', '0', v1, { n: '4' }).args).toEqual({ n: 4 });
  });

  it('clear() forgets every compiled schema', () => {
    const validator = new ArgumentValidator();
    validator.validateAndRepair('demo:count', 'v1', v1, {});
    validator.clear();
    expect(validator.stats().entries).toBe(0);
  });
});

describe('schemas that cannot be used', () => {
  it('passes arguments through unvalidated and reports the problem once per version', () => {
    const { validator, problems } = problemsOf();
    const broken = { type: 'object', properties: { n: { type: 'int' } } };
    for (let i = 0; i < 3; i++) {
      expect(validator.validateAndRepair('sloppy:tool', 'v1', broken, { n: 'x' })).toEqual({ args: { n: 'x' }, fixes: [], validated: false });
    }
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ toolId: 'sloppy:tool', version: 'v1', code: 'schema_invalid', validationDisabled: true });
    expect(problems[0]!.message).toContain('passed on without validation');
    expect(validator.stats().unusableSchemas).toBe(1);
  });

  it.each([
    ['null', null],
    ['a string', 'object'],
    ['an unresolvable remote $ref', { type: 'object', properties: { a: { $ref: 'https://example.com/schemas/a.json' } } }],
    ['an invalid regular expression', { type: 'object', properties: { a: { type: 'string', pattern: '([a-z' } } }],
  ])('tolerates %s as a schema', (_name, schema) => {
    const { validator, problems } = problemsOf();
    expect(validator.validateAndRepair('sloppy:tool', '1', schema, { a: 1 }).validated).toBe(false);
    expect(problems.map((p) => p.code)).toEqual(['schema_invalid']);
  });

  it('refuses absurdly large or deep schemas before compiling them', () => {
    const { validator, problems } = problemsOf({ maxSchemaNodes: 500, maxSchemaDepth: 20 });
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 30; i++) deep = { type: 'object', properties: { x: deep } };
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic['properties'] = { self: cyclic };
    validator.validateAndRepair('big:wide', '1', wide, {});
    validator.validateAndRepair('big:deep', '1', deep, {});
    validator.validateAndRepair('big:cyclic', '1', cyclic, {});
    expect(problems.map((p) => [p.toolId, p.code])).toEqual([
      ['big:wide', 'schema_too_large'],
      ['big:deep', 'schema_too_deep'],
      ['big:cyclic', 'schema_too_deep'],
    ]);
  });

  it('refuses a schema whose JSON text is over the byte limit', () => {
    const { validator, problems } = problemsOf({ maxSchemaBytes: 1000 });
    validator.validateAndRepair('big:text', '1', { type: 'object', description: 'x'.repeat(2000) }, {});
    expect(problems[0]).toMatchObject({ code: 'schema_too_large', validationDisabled: true });
  });

  it('reports a slow compile but still validates with the schema', () => {
    const { validator, problems } = problemsOf({ slowCompileMs: 1 });
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^p${i}` }])) };
    expect(() => validator.validateAndRepair('big:slow', '1', big, { p1: 'nope' })).toThrow(ToolHubError);
    expect(problems[0]).toMatchObject({ code: 'slow_compile', validationDisabled: false });
  });

  it('survives an onSchemaProblem callback that throws', () => {
    const validator = new ArgumentValidator({
      onSchemaProblem: () => {
        throw new Error('logger down');
      },
    });
    expect(validator.validateAndRepair('sloppy:tool', '1', { type: 'nope' }, {}).validated).toBe(false);
  });
});

describe('dialects', () => {
  it('honours 2020-12 keywords when $schema says 2020-12', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } } };
    const validator = new ArgumentValidator();
    expect(validator.validateAndRepair('geo:at', '1', schema, { point: ['1.5', 2] }).args).toEqual({ point: [1.5, 2] });
    expect(() => validator.validateAndRepair('geo:at', '1', schema, { point: [1, 2, 3] })).toThrow(/\/point/);
  });

  it('sniffs 2020-12 from its keywords when $schema is absent', () => {
    const schema = { type: 'object', $defs: { N: { type: 'integer' } }, properties: { n: { $ref: '#/$defs/N' } }, unevaluatedProperties: false };
    const validator = new ArgumentValidator();
    expect(validator.validateAndRepair('x:y', '1', schema, { n: '1' }).args).toEqual({ n: 1 });
    expect(() => validator.validateAndRepair('x:y', '1', schema, { m: 1 })).toThrow(/unknown property "m"; did you mean "n"\?/);
  });

  it('compiles draft-07 tuple items and definitions', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { S: { type: 'string' } }, type: 'object', properties: { pair: { type: 'array', items: [{ $ref: '#/definitions/S' }, { type: 'integer' }] } } };
    expect(new ArgumentValidator().validateAndRepair('x:y', '1', schema, { pair: ['a', '2'] }).args).toEqual({ pair: ['a', 2] });
  });

  it('compiles draft-04 leftovers (boolean exclusiveMinimum) instead of giving up', () => {
    const schema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { page: { type: 'integer', minimum: 0, exclusiveMinimum: true } } };
    const { validator, problems } = problemsOf();
    expect(() => validator.validateAndRepair('x:y', '1', schema, { page: 0 })).toThrow(/must be > 0/);
    expect(problems).toEqual([]);
  });

  it('accepts sloppy regular expressions that only non-Unicode JavaScript understands', () => {
    const schema = { type: 'object', properties: { slug: { type: 'string', pattern: '^[\\w\\_\\-]+$' } } };
    const { validator, problems } = problemsOf();
    expect(validator.validateAndRepair('x:y', '1', schema, { slug: 'a_b-c' }).validated).toBe(true);
    expect(() => validator.validateAndRepair('x:y', '1', schema, { slug: 'a b' })).toThrow(/\/slug/);
    expect(problems).toEqual([]);
  });

  it('does not let one tool’s $id clash with another tool’s', () => {
    const validator = new ArgumentValidator();
    const a = { $id: 'https://example.com/args', type: 'object', properties: { n: { type: 'integer' } } };
    const b = { $id: 'https://example.com/args', type: 'object', properties: { n: { type: 'string' } } };
    expect(validator.validateAndRepair('x:a', '1', a, { n: '1' }).args).toEqual({ n: 1 });
    expect(validator.validateAndRepair('x:b', '1', b, { n: 1 }).args).toEqual({ n: '1' });
  });
});
