import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { TOOL_NAME_PATTERN } from '@toolhub/contracts';

import { createLocalTools, LOCAL_TOOL_CATEGORIES, MathEngine } from '../src';
import { call, tempDir, textOf } from './helpers';

const engine = MathEngine.create();
const NOW = new Date('2025-03-30T09:00:00.000Z');
const all = createLocalTools({ root: '/nonexistent-until-a-call', mathEngine: engine, now: () => NOW });

afterAll(() => engine.close());
jest.setTimeout(20_000);

describe('the local tool catalog', () => {
  it('offers these tools, in a stable order', () => {
    expect(all.map((t) => t.name)).toEqual([
      'file_read',
      'file_list',
      'file_stat',
      'file_write',
      'data_json_to_csv',
      'data_csv_to_json',
      'math_calculate',
      'time_now',
      'time_convert',
      'text_stats',
      'text_transform',
      'text_regex_extract',
      'text_replace',
      'text_diff',
    ]);
  });

  it.each(all.map((t) => [t.name, t] as const))('%s has a valid name, a category path and an object input schema', (_name, tool: ToolDefinition) => {
    expect(tool.name).toMatch(TOOL_NAME_PATTERN);
    expect(LOCAL_TOOL_CATEGORIES).toContain(tool.path);
    expect(tool.name.startsWith(`${tool.path}_`)).toBe(true);
    const schema = tool.inputSchema;
    expect(schema['type']).toBe('object');
    expect(schema['$schema']).toBeUndefined();
    expect(typeof schema['properties']).toBe('object');
    for (const [prop, spec] of Object.entries(schema['properties'] as Record<string, Record<string, unknown>>)) {
      expect([prop, typeof spec['description']]).toEqual([prop, 'string']);
    }
  });

  it.each(all.map((t) => [t.name, t] as const))('%s says when to use it, what it returns and when not to', (_name, tool: ToolDefinition) => {
    expect(tool.description.length).toBeGreaterThan(150);
    expect(tool.description.length).toBeLessThan(700);
    expect(tool.description).toMatch(/Do not use it/);
    expect(tool.description).toMatch(/Returns|returns/);
    expect(tool.outputDescription).toBeTruthy();
  });

  it.each(all.map((t) => [t.name, t] as const))('%s has honest annotations, tags and a worked example', (_name, tool: ToolDefinition) => {
    expect(Object.keys(tool.annotations ?? {}).sort()).toEqual(['destructive', 'idempotent', 'openWorld', 'readOnly']);
    expect(tool.annotations?.openWorld).toBe(false);
    expect(tool.annotations?.readOnly === true && tool.annotations.destructive === true).toBe(false);
    expect(tool.tags?.length).toBeGreaterThan(2);
    expect(tool.examples?.[0]?.result).toBeTruthy();
  });

  it('marks file_read, file_list and math_calculate as core and nothing else', () => {
    expect(all.filter((t) => t.importance === 'core').map((t) => t.name)).toEqual(['file_read', 'file_list', 'math_calculate']);
  });

  it('marks only file_write as changing anything', () => {
    expect(all.filter((t) => t.annotations?.readOnly !== true).map((t) => t.name)).toEqual(['file_write']);
  });
});

describe('every documented example', () => {
  const cases = all.flatMap((tool) => (tool.examples ?? []).map((example) => [`${tool.name}: ${example.description}`, tool, example] as const));

  it.each(cases)('%s gives the documented result', async (_title, tool, example) => {
    const { dir, cleanup } = await tempDir();
    try {
      await mkdir(join(dir, 'notes', 'archive'), { recursive: true });
      await writeFile(join(dir, 'notes', 'todo.txt'), '- buy milk\n- call Ada\n');
      const [bound] = createLocalTools({ root: dir, mathEngine: engine, now: () => NOW }).filter((t) => t.name === tool.name);
      const text = textOf(await call(bound as ToolDefinition, example.arguments));
      // file_stat reports the real modification time.
      const normalised = tool.name === 'file_stat' ? text.replace(/modified .*$/, 'modified 2025-01-01T09:00:00.000Z') : text;
      expect(normalised).toBe(example.result);
    } finally {
      await cleanup();
    }
  });
});
