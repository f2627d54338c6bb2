import { contentHash } from '@toolhub/contracts';
import { createHash } from 'node:crypto';

import { type ExposedTool, META_TOOLS, normalizeInputSchema, renderTools, TOOL_FORMATS, toolsFingerprint } from '../src';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

const discovered: ExposedTool = {
  name: 'local__file_read',
  description: '  Read a text file under the root folder.  ',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { path: { type: 'string', description: 'relative path' }, max_bytes: { type: 'integer', minimum: 1 } },
    required: ['path'],
  },
};

/** The same tool with every object's keys in reverse order. */
function reversedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reversedKeys) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)])) as T;
}

describe('renderTools', () => {
  it('renders the OpenAI Chat Completions shape', () => {
    const [first] = renderTools(META_TOOLS, 'openai-chat').tools;
    expect(first).toEqual({ type: 'function', function: { name: 'tool_list', description: META_TOOLS[0]!.description, parameters: META_TOOLS[0]!.inputSchema } });
  });

  it('renders the OpenAI Responses, Anthropic and MCP shapes', () => {
    const t = META_TOOLS[1]!;
    expect(renderTools([t], 'openai-responses').tools[0]).toEqual({ type: 'function', name: t.name, description: t.description, parameters: t.inputSchema, strict: false });
    expect(renderTools([t], 'anthropic').tools[0]).toEqual({ name: t.name, description: t.description, input_schema: t.inputSchema });
    expect(renderTools([t], 'mcp').tools[0]).toEqual({ name: t.name, description: t.description, inputSchema: t.inputSchema });
  });

  it('keeps the given order: meta-tools first, then the rest', () => {
    const names = renderTools([...META_TOOLS, discovered], 'mcp').tools.map((t) => t.name);
    expect(names).toEqual(['tool_list', 'tool_info', 'tool_run', 'tool_search', 'local__file_read']);
  });

  it.each(TOOL_FORMATS)('gives identical bytes and hash for %s when rendered twice or from shuffled keys', (format) => {
    const a = renderTools([...META_TOOLS, discovered], format);
    const b = renderTools([...META_TOOLS, discovered], format);
    const shuffled = renderTools(reversedKeys([...META_TOOLS, discovered]), format);
    expect(sha256(b.json)).toBe(sha256(a.json));
    expect(sha256(shuffled.json)).toBe(sha256(a.json));
    expect(shuffled.fingerprint).toBe(a.fingerprint);
    // What an SDK sends (JSON.stringify of the returned objects) is byte-identical too.
    expect(sha256(JSON.stringify(shuffled.tools))).toBe(sha256(JSON.stringify(a.tools)));
    expect(JSON.stringify(a.tools)).toBe(a.json);
    expect(a.fingerprint).toBe(contentHash(a.tools));
  });

  it('pins the meta-tool bytes, so an accidental edit shows up in review', () => {
    expect(toolsFingerprint(META_TOOLS, 'openai-chat')).toBe('fd21729fa091d60c');
  });

  it('changes the fingerprint when a description changes', () => {
    const changed = { ...discovered, description: 'Read a file.' };
    expect(toolsFingerprint([changed], 'anthropic')).not.toBe(toolsFingerprint([discovered], 'anthropic'));
  });

  it('trims descriptions and drops $schema, keeping other keywords', () => {
    const [t] = renderTools([discovered], 'mcp').tools;
    expect(t?.description).toBe('Read a text file under the root folder.');
    expect(t?.inputSchema).toEqual({ type: 'object', properties: discovered.inputSchema.properties, required: ['path'] });
  });

  it('turns a missing or property-less schema into an empty object schema', () => {
    expect(normalizeInputSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(normalizeInputSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} });
  });

  it('refuses names LLM APIs reject and names listed twice', () => {
    expect(() => renderTools([{ ...discovered, name: 'local:file_read' }], 'openai-chat')).toThrow(/not accepted by LLM APIs/);
    expect(() => renderTools([discovered, discovered], 'openai-chat')).toThrow(/appears twice/);
    expect(() => renderTools([discovered], 'gemini' as never)).toThrow(/Unknown tool format/);
  });
});
