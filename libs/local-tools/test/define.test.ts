import { ToolHubError } from '@toolhub/contracts';
import { z } from 'zod';

import { defineTool, issuesToViolations, LocalToolsError, toJsonPointer } from '../src';
import { textResult } from '../src/define';
import { call, callError, ctx } from './helpers';

const greet = defineTool({
  name: 'demo_greet',
  path: 'demo',
  description: 'Greets someone. Use it in tests; do not use it in production.',
  input: z.strictObject({
    name: z.string().min(1).describe('Who to greet.'),
    times: z.number().int().min(1).max(5).default(1).describe('How many greetings.'),
    style: z.enum(['plain', 'loud']).default('plain').describe('Tone of the greeting.'),
    tags: z.array(z.object({ label: z.string().describe('A label.') })).optional().describe('Labels.'),
  }),
  examples: [{ description: 'Greet Ada twice', arguments: { name: 'Ada', times: 2 } }],
  annotations: { readOnly: true },
  async run(args) {
    const text = Array.from({ length: args.times }, () => `Hello ${args.name}`).join(' ');
    return textResult(args.style === 'loud' ? text.toUpperCase() : text, { text });
  },
});

describe('defineTool', () => {
  it('publishes a draft 2020-12 object schema without $schema, with descriptions and defaults', () => {
    const schema = greet.inputSchema;
    expect(schema['$schema']).toBeUndefined();
    expect(schema['type']).toBe('object');
    expect(schema['additionalProperties']).toBe(false);
    expect(schema['required']).toEqual(['name']);
    const props = schema['properties'] as Record<string, Record<string, unknown>>;
    expect(props['times']).toMatchObject({ type: 'integer', minimum: 1, maximum: 5, default: 1, description: 'How many greetings.' });
    expect(props['style']).toMatchObject({ enum: ['plain', 'loud'] });
  });

  it('drops the safe-integer bounds zod adds to every integer', () => {
    const tool = defineTool({
      name: 'demo_int',
      path: 'demo',
      description: 'x',
      input: z.object({ n: z.number().int().describe('Any integer.') }),
      run: async () => textResult(''),
    });
    expect((tool.inputSchema['properties'] as Record<string, unknown>)['n']).toEqual({ type: 'integer', description: 'Any integer.' });
  });

  it('runs the handler with parsed arguments and defaults applied', async () => {
    const result = await call(greet, { name: 'Ada', times: 2 });
    expect(result.content[0]?.text).toBe('Hello Ada Hello Ada');
  });

  it('keeps the metadata it was given and marks tools normal by default', () => {
    expect(greet).toMatchObject({ name: 'demo_greet', path: 'demo', importance: 'normal', annotations: { readOnly: true } });
    expect(greet.examples).toHaveLength(1);
  });

  it('refuses a tool name that breaks the naming rule', () => {
    expect(() => defineTool({ name: 'Demo-Greet', path: 'demo', description: 'x', input: z.object({}), run: async () => textResult('') })).toThrow(LocalToolsError);
  });

  it('refuses a path that is not a normalised category path', () => {
    expect(() => defineTool({ name: 'demo_x', path: '/Demo/', description: 'x', input: z.object({}), run: async () => textResult('') })).toThrow(/normalised/);
  });

  it('refuses a property without a description', () => {
    expect(() => defineTool({ name: 'demo_x', path: 'demo', description: 'x', input: z.object({ a: z.string() }), run: async () => textResult('') })).toThrow(/add .describe\(\) to a/);
  });

  it('refuses an example whose arguments do not parse', () => {
    expect(() =>
      defineTool({
        name: 'demo_x',
        path: 'demo',
        description: 'x',
        input: z.object({ a: z.string().describe('A.') }),
        examples: [{ description: 'bad', arguments: { a: 1 } }],
        run: async () => textResult(''),
      }),
    ).toThrow(/example 0/);
  });
});

describe('argument violations', () => {
  it('reports a missing property as required, with the expected type and an example from the examples', async () => {
    const err = await callError(greet, {});
    expect(err.code).toBe('invalid_argument');
    expect(err.violations).toEqual([{ field: '/name', message: 'is required', expected: 'non-empty string', example: '"Ada"' }]);
    expect(err.message).toMatch(/^Invalid arguments for demo_greet: \/name is required/);
  });

  it('reports a wrong type with what was received', async () => {
    const err = await callError(greet, { name: 42 });
    expect(err.violations[0]).toMatchObject({ field: '/name', message: 'must be non-empty string, got number 42' });
  });

  it('reports an out-of-range number with its bounds', async () => {
    const err = await callError(greet, { name: 'Ada', times: 9 });
    expect(err.violations[0]).toMatchObject({ field: '/times', expected: 'integer >= 1 <= 5', example: '2' });
  });

  it('reports a bad enum value with the allowed values', async () => {
    const err = await callError(greet, { name: 'Ada', style: 'shouty' });
    expect(err.violations[0]).toMatchObject({ field: '/style', expected: 'one of "plain", "loud"', example: '"plain"' });
    expect(err.violations[0]?.message).toContain('got the string "shouty"');
  });

  it('reports an unknown property and suggests the close one', async () => {
    const err = await callError(greet, { nmae: 'Ada' });
    const unknown = err.violations.find((v) => v.field === '/nmae');
    expect(unknown?.message).toBe('unknown property "nmae"; did you mean "name"?');
    expect(unknown?.expected).toContain('name, times, style, tags');
  });

  it('points into nested arrays with a JSON pointer', async () => {
    const err = await callError(greet, { name: 'Ada', tags: [{ label: 'ok' }, { label: 3 }] });
    expect(err.violations[0]?.field).toBe('/tags/1/label');
  });

  it('escapes ~ and / in JSON pointers', () => {
    expect(toJsonPointer(['a/b', 0, 'c~d'])).toBe('/a~1b/0/c~0d');
  });

  it('looks inside the union branch whose type matched', () => {
    const schema = z.object({ data: z.union([z.array(z.object({ n: z.number() })), z.string()]) });
    const parsed = schema.safeParse({ data: [{ n: 1 }, { n: 'x' }] });
    if (parsed.success) throw new Error('expected failure');
    const violations = issuesToViolations(parsed.error.issues, z.toJSONSchema(schema) as Record<string, unknown>);
    expect(violations[0]?.field).toBe('/data/1/n');
  });
});

describe('errors from handlers', () => {
  it('pass a ToolHubError through unchanged', async () => {
    const tool = defineTool({
      name: 'demo_fail',
      path: 'demo',
      description: 'x',
      input: z.object({}),
      run: async () => {
        throw ToolHubError.notFound('nothing here', ['there']);
      },
    });
    const err = await callError(tool, {});
    expect(err).toMatchObject({ code: 'not_found', suggestions: ['there'] });
  });

  it('turn an unexpected exception into internal, never the caller’s fault', async () => {
    const tool = defineTool({
      name: 'demo_crash',
      path: 'demo',
      description: 'x',
      input: z.object({}),
      run: async () => {
        throw new TypeError('boom');
      },
    });
    const err = await callError(tool, {});
    expect(err.code).toBe('internal');
    expect(err.message).toContain('demo_crash failed unexpectedly: boom');
  });

  it('refuse to start once the deadline has passed', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await callError(greet, { name: 'Ada' }, ctx(0, controller.signal));
    expect(err.code).toBe('timeout');
  });
});
