import { ArgumentValidator } from '@toolhub/arguments';
import { findToolHubError, type ToolHubError } from '@toolhub/contracts';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: ['repo', 'title'],
  properties: {
    repo: { type: 'string', pattern: '^[\\w.-]+/[\\w.-]+$', examples: ['octocat/hello-world'] },
    title: { type: 'string', minLength: 1, maxLength: 80 },
    priority: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
    state: { enum: ['open', 'closed'] },
    due: { type: 'string', format: 'date' },
    labels: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, color: { type: 'string' } } }, maxItems: 10 },
    assignee: { anyOf: [{ type: 'string', minLength: 2 }, { type: 'null' }] },
    target: { oneOf: [{ type: 'integer' }, { type: 'object', properties: { sha: { type: 'string' } }, required: ['sha'] }] },
  },
};

function rejection(args: Record<string, unknown>, s: unknown = schema, validator = new ArgumentValidator()): ToolHubError {
  try {
    validator.validateAndRepair('github:create_issue', 'abc123', s, args);
  } catch (err) {
    const found = findToolHubError(err);
    if (found) return found;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('rejections an LLM can act on', () => {
  it('lists every field error at once, not just the first', () => {
    const err = rejection({ repo: 'not a repo', priority: 9, state: 'merged', due: 'tomorrow' });
    expect(err.code).toBe('invalid_argument');
    expect(err.violations.map((v) => v.field)).toEqual(['/title', '/repo', '/priority', '/state', '/due']);
    expect(err.message).toContain('(5 problems)');
    for (const v of err.violations) expect(err.message).toContain(v.field);
  });

  it('gives the expected type and an example in each violation, taken from the schema', () => {
    const err = rejection({ repo: 'nope', priority: 0, state: 'merged', due: 'tomorrow' });
    const by = Object.fromEntries(err.violations.map((v) => [v.field, v]));
    expect(by['/repo']).toEqual({ field: '/repo', message: 'must match pattern "^[\\w.-]+/[\\w.-]+$", got "nope"', expected: 'string matching /^[\\w.-]+/[\\w.-]+$/', example: '"octocat/hello-world"' });
    expect(by['/title']).toEqual({ field: '/title', message: 'missing required property "title"', expected: 'string of 1-80 characters', example: '"text"' });
    expect(by['/priority']).toMatchObject({ expected: 'integer >= 1 and <= 5', example: '3' });
    expect(by['/state']).toMatchObject({ message: 'must be one of "open", "closed", got "merged"', example: '"open"' });
    expect(by['/due']).toMatchObject({ message: 'must be a string in date format, got "tomorrow"', example: '"2024-01-31"' });
  });

  it('names the closest allowed property for an unknown one', () => {
    const err = rejection({ repo: 'a/b', titel: 'Bug' });
    expect(err.violations).toEqual([
      { field: '/title', message: 'missing required property "title"', expected: expect.any(String), example: '"text"' },
      {
        field: '/titel',
        message: 'unknown property "titel"; did you mean "title"? Allowed: repo, title, priority, state, due, labels, assignee, target.',
        expected: 'only the properties repo, title, priority, state, due, labels, assignee, target',
        example: '{"title":"text"}',
      },
    ]);
  });

  it('still lists the allowed properties when nothing is close', () => {
    const err = rejection({ repo: 'a/b', title: 't', zzzzzz: 1 });
    expect(err.violations[0]!.message).toBe('unknown property "zzzzzz" Allowed: repo, title, priority, state, due, labels, assignee, target.');
  });

  it('points into nested objects and arrays with JSON pointers', () => {
    const err = rejection({ repo: 'a/b', title: 't', labels: [{ name: 'bug' }, { color: 'red' }, { name: 7 }, { name: { x: 1 } }] });
    expect(err.violations.map((v) => [v.field, v.message])).toEqual([
      ['/labels/1/name', 'missing required property "name"'],
      ['/labels/3/name', 'must be string, got object {"x":1}'],
    ]);
    // `7` at /labels/2/name was repaired to "7" and is reported as a fix next to the rejection.
    expect(err.fixes).toEqual([{ field: '/labels/2/name', description: 'converted the number 7 to the string "7"' }]);
    expect(err.message).toContain('Already repaired (keep these): /labels/2/name converted the number 7 to the string "7".');
  });

  it('escapes "/" and "~" in property names per RFC 6901', () => {
    const s = { type: 'object', properties: { 'a/b': { type: 'object', properties: { '~x': { type: 'integer' } } } } };
    expect(rejection({ 'a/b': { '~x': 'one' } }, s).violations[0]!.field).toBe('/a~1b/~0x');
  });

  it('reports the non-null alternative of an optional value, not "matches none of 2 alternatives"', () => {
    const err = rejection({ repo: 'a/b', title: 't', assignee: 'x' });
    expect(err.violations).toEqual([{ field: '/assignee', message: 'must NOT have fewer than 2 characters, got "x"', expected: 'string of at least 2 characters', example: '"text"' }]);
  });

  it('describes every alternative when a value matches none of several', () => {
    const err = rejection({ repo: 'a/b', title: 't', target: { ref: 'main' } });
    expect(err.violations).toEqual([
      { field: '/target', message: 'matches none of the 2 alternatives, got object {"ref":"main"}', expected: 'integer | object (properties sha; required sha)', example: '1' },
    ]);
  });

  it('uses the default, then the first enum value, then a sample built from the type as the example', () => {
    const s = {
      type: 'object',
      required: ['a', 'b', 'c', 'd', 'e'],
      properties: {
        a: { type: 'integer', default: 25 },
        b: { enum: ['x', 'y'] },
        c: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
        d: { type: 'array', items: { type: 'string', format: 'email' }, minItems: 2 },
        e: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
      },
    };
    const examples = rejection({}, s).violations.map((v) => v.example);
    expect(examples).toEqual(['25', '"x"', '0.5', '["user@example.com","user@example.com"]', '{"id":"123e4567-e89b-12d3-a456-426614174000"}']);
  });

  it('resolves local $refs when describing the expected shape', () => {
    const s = { type: 'object', required: ['when'], $defs: { Day: { type: 'string', format: 'date' } }, properties: { when: { $ref: '#/$defs/Day' } } };
    expect(rejection({}, s).violations[0]).toMatchObject({ expected: 'string in date format', example: '"2024-01-31"' });
  });

  it('caps the listed violations and says how many there were', () => {
    const s = { type: 'object', properties: { xs: { type: 'array', items: { type: 'integer' } } } };
    const err = rejection({ xs: Array.from({ length: 30 }, (_, i) => `n${i}`) }, s, new ArgumentValidator({ maxViolations: 10 }));
    expect(err.violations).toHaveLength(10);
    expect(err.message).toContain('(30 problems)');
    expect(err.message).toContain('…and 22 more (10 listed in violations)');
  });

  it('rejects arguments nested deeper than the limit, naming where', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const err = rejection(deep, { type: 'object' });
    expect(err.violations[0]!.field).toMatch(/^(\/d){32}$/);
    expect(err.message).toContain('nest deeper than 32 levels');
  });

  it('tells the caller what to do next in the message', () => {
    expect(rejection({}).message).toMatch(/Fix every listed field and call the tool again; tool_info shows the full schema\.$/);
  });
});
