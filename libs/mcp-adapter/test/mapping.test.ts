import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { SecretRedactor } from '@toolhub/config';
import { Importance } from '@toolhub/contracts';

import type { McpServerConfig } from '../src';
import { type McpToolEntry, toToolEntry as mapTool, toToolResult } from '../src/mapping';

/** The entry of a tool that must map (not be quarantined). */
function toToolEntry(...args: Parameters<typeof mapTool>): { entry: McpToolEntry; problem?: string } {
  const result = mapTool(...args);
  if (result.entry === undefined) throw new Error(`quarantined: ${result.quarantined.reason}`);
  return result;
}

const server: McpServerConfig = {
  alias: 'fs',
  mount: 'file/system',
  transport: { type: 'stdio', command: 'node', args: [], env: { TOKEN: 'never-shown-secret' } },
  include: [],
  exclude: [],
  timeoutMs: 15_000,
  connectTimeoutMs: 5000,
  connect: 'lazy',
  normalizeParams: true,
  importance: 'core',
  maxTools: 1000,
};

const editFile: Tool = {
  name: 'edit_file',
  title: 'Edit File',
  description: 'Make line-based edits to a text file. Returns a git-style diff.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      path: { type: 'string' },
      edits: { type: 'array', items: { type: 'object', properties: { oldText: { type: 'string' }, newText: { type: 'string' } }, required: ['oldText', 'newText'] } },
      dryRun: { type: 'boolean', default: false },
    },
    required: ['path', 'edits'],
  },
  outputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { diff: { type: 'string' } } },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

describe('toToolEntry', () => {
  it('maps an MCP tool to ToolInfo: schema with snake_case names, annotations, output schema, mount path', () => {
    const { entry, problem } = toToolEntry('mcp', server, editFile, 'fs_edit_file');
    expect(problem).toBeUndefined();
    const info = entry.info;
    expect(info).toMatchObject({
      id: 'mcp:fs_edit_file',
      provider: 'mcp',
      name: 'fs_edit_file',
      path: 'file/system',
      description: 'Make line-based edits to a text file. Returns a git-style diff.',
      importance: Importance.IMPORTANCE_CORE,
      annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
      tags: ['mcp', 'fs'],
      defaultTimeoutMs: 15_000,
      examples: [],
    });
    expect(info.inputSchema).not.toHaveProperty('$schema');
    expect(Object.keys(info.inputSchema?.properties as object)).toEqual(['path', 'edits', 'dry_run']);
    expect(info.outputDescription).toBe('Returns structured JSON matching this schema: {"type":"object","properties":{"diff":{"type":"string"}}}');
    expect(info.outputSchemaJson).toBe('{"type":"object","properties":{"diff":{"type":"string"}}}');
    expect(entry.native).toBe('edit_file');
    expect(entry.retrySafe).toBe(false);
    expect(entry.params.toNative({ path: 'a', edits: [{ old_text: 'x', new_text: 'y' }], dry_run: true })).toEqual({ path: 'a', edits: [{ oldText: 'x', newText: 'y' }], dryRun: true });
  });

  it('never puts configuration secrets into ToolInfo', () => {
    const { entry } = toToolEntry('mcp', server, editFile, 'fs_edit_file');
    expect(JSON.stringify(entry.info)).not.toContain('never-shown-secret');
  });

  it('changes the version when anything an agent sees changes', () => {
    const a = toToolEntry('mcp', server, editFile, 'fs_edit_file').entry.info.version;
    const b = toToolEntry('mcp', server, { ...editFile, description: 'Edits a file.' }, 'fs_edit_file').entry.info.version;
    const c = toToolEntry('mcp', { ...server, mount: 'file' }, editFile, 'fs_edit_file').entry.info.version;
    expect(new Set([a, b, c]).size).toBe(3);
    expect(toToolEntry('mcp', server, structuredClone(editFile), 'fs_edit_file').entry.info.version).toBe(a);
  });

  it('keeps native parameter names when normalisation is off for the server', () => {
    const { entry } = toToolEntry('mcp', { ...server, normalizeParams: false }, editFile, 'fs_edit_file');
    expect(Object.keys(entry.info.inputSchema?.properties as object)).toEqual(['path', 'edits', 'dryRun']);
    expect(entry.params.identity).toBe(true);
  });

  it('reports a parameter collision at once and keeps the tool usable with native names', () => {
    const tool: Tool = { name: 'search', inputSchema: { type: 'object', properties: { pageSize: {}, page_size: {} } } };
    const { entry, problem } = toToolEntry('mcp', server, tool, 'fs_search');
    expect(problem).toMatch(/"pageSize" and "page_size" at the top level all become "page_size".*keep their native names/);
    expect(Object.keys(entry.info.inputSchema?.properties as object)).toEqual(['pageSize', 'page_size']);
  });

  it('falls back to the title, then a generic description, and marks read-only or idempotent tools retry-safe', () => {
    const bare: Tool = { name: 'ping', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } };
    expect(toToolEntry('mcp', server, bare, 'fs_ping').entry.info.description).toBe('Tool ping of the MCP server fs.');
    expect(toToolEntry('mcp', server, { ...bare, title: 'Ping the server' }, 'fs_ping').entry.info.description).toBe('Ping the server');
    expect(toToolEntry('mcp', server, bare, 'fs_ping').entry.retrySafe).toBe(true);
    expect(toToolEntry('mcp', server, bare, 'fs_ping').entry.info.annotations).toEqual({ readOnly: undefined, destructive: undefined, idempotent: true, openWorld: undefined });
  });
});

describe('toToolResult', () => {
  const redact = new SecretRedactor(['hunter2']);
  const png = Buffer.from([137, 80, 78, 71]);

  it('carries text, image, audio, embedded resources and resource links through', () => {
    const result = toToolResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
          { type: 'audio', data: png.toString('base64'), mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'demo://text/1', mimeType: 'text/plain', text: 'contents' } },
          { type: 'resource', resource: { uri: 'demo://blob/1', blob: png.toString('base64') } },
          { type: 'resource_link', uri: 'demo://link/1', name: 'Link', mimeType: 'text/plain' },
        ],
        structuredContent: { temperature: 21 },
      },
      redact,
    );
    expect(result.isError).toBeUndefined();
    expect(result.structured).toEqual({ temperature: 21 });
    expect(result.content).toEqual([
      { text: 'hello' },
      { image: { mimeType: 'image/png', data: png } },
      { audio: { mimeType: 'audio/wav', data: png } },
      { resource: { uri: 'demo://text/1', mimeType: 'text/plain', text: 'contents', blob: Buffer.alloc(0) } },
      { resource: { uri: 'demo://blob/1', mimeType: '', text: '', blob: png } },
      { resource: { uri: 'demo://link/1', mimeType: 'text/plain', text: '', blob: Buffer.alloc(0) } },
    ]);
  });

  it('turns isError into a failed result with the server message, redacted', () => {
    const result = toToolResult({ content: [{ type: 'text', text: 'login failed for hunter2' }, { type: 'text', text: 'try again' }], isError: true }, redact);
    expect(result).toEqual({ content: [{ text: 'login failed for [REDACTED]' }, { text: 'try again' }], isError: true, errorMessage: 'login failed for [REDACTED]\ntry again' });
  });

  it('redacts a secret from a successful result too: text, resource text, JSON blocks and structured content', () => {
    const result = toToolResult(
      {
        content: [
          { type: 'text', text: 'SERVICE_TOKEN=hunter2' },
          { type: 'resource', resource: { uri: 'env://hunter2', mimeType: 'text/plain', text: 'token hunter2 and aHVudGVyMg==' } },
        ],
        structuredContent: { env: { SERVICE_TOKEN: 'hunter2', note: ['x hunter2%20'] } },
      },
      redact,
    );
    expect(JSON.stringify(result)).not.toMatch(/hunter2|aHVudGVyMg==/);
    expect(result.content[0]).toEqual({ text: 'SERVICE_TOKEN=[REDACTED]' });
    expect(result.structured).toEqual({ env: { SERVICE_TOKEN: '[REDACTED]', note: ['x [REDACTED]%20'] } });
  });

  it('gives an error without text a message the LLM can still read', () => {
    expect(toToolResult({ content: [], isError: true }, redact).errorMessage).toBe('The MCP tool reported an error without a message.');
  });
});

describe('tools from the wild', () => {
  it('tells the model the parameter names the schema uses, and keeps the source name', () => {
    const tool: Tool = {
      name: 'Edit-File',
      description: 'Replaces `oldText` with newText in the file at filePath; set dryRun to preview.',
      inputSchema: { type: 'object', properties: { filePath: { type: 'string' }, oldText: { type: 'string' }, newText: { type: 'string' }, dryRun: { type: 'boolean' } } },
    };
    const { entry } = toToolEntry('mcp', server, tool, 'fs_edit_file');
    expect(entry.info.description).toBe('Replaces `old_text` with new_text in the file at file_path; set dry_run to preview.');
    expect(entry.info.sourceName).toBe('Edit-File');
    expect(toToolEntry('mcp', server, editFile, 'fs_edit_file').entry.info.sourceName).toBe('edit_file');
  });

  it('quarantines a tool whose schema nests 2,000 levels, without recursing into it', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 2000; i++) deep = { type: 'object', properties: { child: deep } };
    const result = mapTool('mcp', server, { name: 'deep', inputSchema: deep as Tool['inputSchema'] }, 'fs_deep');
    expect(result.entry).toBeUndefined();
    expect(result.quarantined).toEqual({ rule: 'schema_depth', reason: expect.stringMatching(/nests more than 128 levels/) });
  });

  it('cuts a 1 MB description to the registry limit with a note', () => {
    const { entry } = toToolEntry('mcp', server, { name: 'big', description: 'x'.repeat(1_000_000), inputSchema: { type: 'object' } }, 'fs_big');
    expect(entry.info.description.length).toBeLessThanOrEqual(16_384);
    expect(entry.info.description).toMatch(/\[description cut from 1000000 characters\]$/);
  });
});
