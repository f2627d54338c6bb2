/**
 * The adapter against the real `server-filesystem` over stdio, confined to a scratch directory:
 * camelCase parameters in nested objects (`edits[].oldText`, `dryRun`) are snake_case for agents.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createMcpAdapter, type McpAdapter, parseMcpConfig } from '../src';
import { runContext, textOf } from './support';

jest.setTimeout(60_000);

describe('MCP adapter with server-filesystem', () => {
  let dir: string;
  let adapter: McpAdapter;

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-fs-')));
    writeFileSync(join(dir, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    const config = parseMcpConfig(`servers: [{ alias: fs, transport: stdio, package: "@modelcontextprotocol/server-filesystem", args: ["${dir}"], mount: file/mcp, exclude: [read_file] }]`, {
      baseDir: __dirname,
    });
    adapter = createMcpAdapter(config);
  });

  afterAll(async () => {
    await adapter.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mounts the tools under their category with the server alias as prefix, minus excluded ones', async () => {
    const names = (await adapter.listTools('file/mcp', false)).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['fs_read_text_file', 'fs_write_file', 'fs_edit_file', 'fs_list_directory', 'fs_directory_tree']));
    expect(names).not.toContain('fs_read_file');
  });

  it('shows nested parameters in snake_case', async () => {
    const info = await adapter.getToolInfo('fs_edit_file');
    const props = info.inputSchema?.properties as Record<string, { items?: { properties?: object; required?: string[] } }>;
    expect(Object.keys(props)).toEqual(['path', 'edits', 'dry_run']);
    expect(Object.keys(props.edits?.items?.properties ?? {})).toEqual(['old_text', 'new_text']);
    expect(props.edits?.items?.required).toEqual(['old_text', 'new_text']);
    expect(info.annotations).toMatchObject({ readOnly: false, destructive: true });
  });

  it('runs tools with snake_case arguments mapped back to the native ones', async () => {
    const file = join(dir, 'notes.txt');
    const preview = await adapter.runTool('fs_edit_file', { path: file, edits: [{ old_text: 'beta', new_text: 'BETA' }], dry_run: true }, runContext(10_000));
    expect(preview.isError).toBeUndefined();
    expect(textOf(preview)).toMatch(/-beta\n\+BETA/);
    expect(readFileSync(file, 'utf8')).toBe('alpha\nbeta\ngamma\n');
    await adapter.runTool('fs_edit_file', { path: file, edits: [{ old_text: 'beta', new_text: 'BETA' }] }, runContext(10_000));
    expect(readFileSync(file, 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(textOf(await adapter.runTool('fs_read_text_file', { path: file, head: 1 }, runContext(10_000)))).toBe('alpha');
    const tree = await adapter.runTool('fs_directory_tree', { path: dir, exclude_patterns: ['*.md'] }, runContext(10_000));
    expect(textOf(tree)).toContain('notes.txt');
  });

  it("returns the server's refusal as a failed run", async () => {
    const res = await adapter.runTool('fs_read_text_file', { path: '/etc/hostname' }, runContext(10_000));
    expect(res.isError).toBe(true);
    expect(res.errorMessage).toMatch(/Access denied - path outside allowed directories/);
  });
});
