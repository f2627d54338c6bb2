import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { ToolDefinition } from '@toolhub/adapter-sdk';

import { createFileTools } from '../src';
import { call, callError, data, pick, tempDir, textOf } from './helpers';

let root: string;
let cleanup: () => Promise<void>;
let tools: ToolDefinition[];

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir());
  await mkdir(join(root, 'notes', 'archive'), { recursive: true });
  await writeFile(join(root, 'notes', 'todo.txt'), '- buy milk\n- call Ada\n');
  await writeFile(join(root, 'notes', 'archive', 'old.txt'), 'old\n');
  await writeFile(join(root, 'readme.md'), '# Hi\n');
  await writeFile(join(root, '.env'), 'SECRET=1\n');
  tools = createFileTools({ root });
});

afterEach(() => cleanup());

const tool = (name: string): ToolDefinition => pick(tools, name);
const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('file_read', () => {
  it('returns the whole text of a small file with its line range', async () => {
    const result = await call(tool('file_read'), { path: 'notes/todo.txt' });
    expect(textOf(result)).toBe('- buy milk\n- call Ada');
    expect(data(result)).toMatchObject({ path: 'notes/todo.txt', startLine: 1, endLine: 2, totalLines: 2, hasMore: false, nextOffset: null });
  });

  it('pages with offset and limit and says where to continue', async () => {
    await writeFile(join(root, 'long.txt'), numbered(10));
    const first = await call(tool('file_read'), { path: 'long.txt', limit: 4 });
    expect(first.content[0]?.text).toBe('line 1\nline 2\nline 3\nline 4');
    expect(data(first)).toMatchObject({ hasMore: true, nextOffset: 5, totalLines: null });
    expect(first.content[1]?.text).toContain('offset=5');
    const last = await call(tool('file_read'), { path: 'long.txt', offset: 9 });
    expect(textOf(last)).toBe('line 9\nline 10');
    expect(data(last)).toMatchObject({ startLine: 9, endLine: 10, hasMore: false });
  });

  it('numbers lines on request', async () => {
    const result = await call(tool('file_read'), { path: 'notes/todo.txt', offset: 2, lineNumbers: true });
    expect(textOf(result)).toBe('2\t- call Ada');
  });

  it('stops at maxReadBytes and continues from nextOffset', async () => {
    const small = createFileTools({ root, maxReadBytes: 1024 });
    await writeFile(join(root, 'big.txt'), numbered(500));
    const page = await call(pick(small, 'file_read'), { path: 'big.txt' });
    const next = data(page)['nextOffset'] as number;
    expect(Buffer.byteLength(page.content[0]?.text ?? '')).toBeLessThanOrEqual(1024);
    expect(data(page)['hasMore']).toBe(true);
    const following = await call(pick(small, 'file_read'), { path: 'big.txt', offset: next, limit: 1 });
    expect(textOf(following).split('\n')[0]).toBe(`line ${next}`);
  });

  it('cuts a single line longer than maxReadBytes instead of returning nothing', async () => {
    const small = createFileTools({ root, maxReadBytes: 1024 });
    await writeFile(join(root, 'wide.txt'), `${'x'.repeat(5000)}\nshort\n`);
    const page = await call(pick(small, 'file_read'), { path: 'wide.txt' });
    expect(page.content[0]?.text).toBe('x'.repeat(1024));
    expect(data(page)).toMatchObject({ cutLine: true, nextOffset: 2 });
    expect(textOf(await call(pick(small, 'file_read'), { path: 'wide.txt', offset: 2 }))).toBe('short');
  });

  it('normalises CRLF and reports the line ending', async () => {
    await writeFile(join(root, 'win.txt'), 'a\r\nb\r\n');
    const result = await call(tool('file_read'), { path: 'win.txt' });
    expect(textOf(result)).toBe('a\nb');
    expect(data(result)['lineEnding']).toBe('crlf');
  });

  it('reads an empty file as empty text', async () => {
    await writeFile(join(root, 'empty.txt'), '');
    expect(data(await call(tool('file_read'), { path: 'empty.txt' }))).toMatchObject({ content: '', totalLines: 0, hasMore: false });
  });

  it('refuses binary files with a clear message', async () => {
    await writeFile(join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
    const err = await callError(tool('file_read'), { path: 'logo.png' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain("'logo.png' is not UTF-8 text");
  });

  it('refuses text in another encoding than UTF-8', async () => {
    await writeFile(join(root, 'latin1.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    expect((await callError(tool('file_read'), { path: 'latin1.txt' })).message).toContain('not UTF-8');
  });

  it('sends folders to file_list', async () => {
    const err = await callError(tool('file_read'), { path: 'notes' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain('call file_list');
  });

  it('answers a missing file with close names from the same folder', async () => {
    const err = await callError(tool('file_read'), { path: 'notes/todo.tx' });
    expect(err.code).toBe('not_found');
    expect(err.suggestions).toEqual(['notes/todo.txt']);
    expect(err.parentPath).toBe('notes');
    expect(err.message).toBe("file 'notes/todo.tx' does not exist. Did you mean 'notes/todo.txt'? Call file_list with path 'notes' to see what is there.");
  });

  it('answers a missing folder on the way with close folder names', async () => {
    const err = await callError(tool('file_read'), { path: 'note/todo.txt' });
    expect(err.suggestions).toEqual(['notes']);
    expect(err.message).toContain("folder 'note' does not exist");
  });

  it('refuses an offset past the end and gives the valid range', async () => {
    const err = await callError(tool('file_read'), { path: 'notes/todo.txt', offset: 7 });
    expect(err.violations[0]).toMatchObject({ field: '/offset', expected: 'integer from 1 to 2' });
  });
});

describe('file_write', () => {
  it('creates a file and its missing parent folders', async () => {
    const result = await call(tool('file_write'), { path: 'reports/2025/q1.md', content: '# Q1\n' });
    expect(await readFile(join(root, 'reports', '2025', 'q1.md'), 'utf8')).toBe('# Q1\n');
    expect(data(result)).toEqual({ path: 'reports/2025/q1.md', mode: 'overwrite', created: true, bytesWritten: 5, sizeBytes: 5 });
    expect(textOf(result)).toBe("Created 'reports/2025/q1.md' (5 bytes).");
  });

  it('overwrites by default and says how big the file was', async () => {
    const result = await call(tool('file_write'), { path: 'notes/todo.txt', content: 'done\n' });
    expect(await readFile(join(root, 'notes', 'todo.txt'), 'utf8')).toBe('done\n');
    expect(textOf(result)).toBe("Overwrote 'notes/todo.txt' (5 bytes; was 22 bytes).");
  });

  it('appends to the end', async () => {
    const result = await call(tool('file_write'), { path: 'notes/todo.txt', content: '- rest\n', mode: 'append' });
    expect(await readFile(join(root, 'notes', 'todo.txt'), 'utf8')).toBe('- buy milk\n- call Ada\n- rest\n');
    expect(textOf(result)).toBe("Appended 7 bytes to 'notes/todo.txt' (now 29 bytes).");
  });

  it('refuses to replace an existing file in create mode', async () => {
    const err = await callError(tool('file_write'), { path: 'notes/todo.txt', content: 'x', mode: 'create' });
    expect(err.code).toBe('already_exists');
    expect(err.message).toContain("use mode 'overwrite'");
    expect(await readFile(join(root, 'notes', 'todo.txt'), 'utf8')).toBe('- buy milk\n- call Ada\n');
  });

  it('does not create parent folders when told not to', async () => {
    const err = await callError(tool('file_write'), { path: 'nowhere/x.txt', content: 'x', createParents: false });
    expect(err.code).toBe('not_found');
  });

  it('refuses content larger than maxWriteBytes, counting UTF-8 bytes', async () => {
    const small = createFileTools({ root, maxWriteBytes: 10 });
    const err = await callError(pick(small, 'file_write'), { path: 'x.txt', content: 'ééééééé' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain('14 bytes');
  });

  it('refuses to write over a folder', async () => {
    expect((await callError(tool('file_write'), { path: 'notes', content: 'x' })).message).toContain('is a folder');
  });

  it('is absent when the tools are read-only', () => {
    expect(createFileTools({ root, allowWrite: false }).map((t) => t.name)).toEqual(['file_read', 'file_list', 'file_stat']);
  });

  it('is annotated as destructive and not idempotent', () => {
    expect(tool('file_write').annotations).toEqual({ readOnly: false, destructive: true, idempotent: false, openWorld: false });
  });
});

describe('file_list', () => {
  it('lists the root sorted, folders with a slash, files with sizes, hidden entries skipped', async () => {
    const result = await call(tool('file_list'), {});
    expect(textOf(result)).toBe('notes/\nreadme.md  5 B');
    expect(data(result)['truncated']).toBe(false);
  });

  it('includes hidden entries on request', async () => {
    const entries = data(await call(tool('file_list'), { includeHidden: true }))['entries'] as Array<{ path: string }>;
    expect(entries.map((e) => e.path)).toEqual(['.env', 'notes', 'readme.md']);
  });

  it('lists sub-folders breadth first when recursive, with paths relative to the root', async () => {
    const entries = data(await call(tool('file_list'), { recursive: true }))['entries'] as Array<{ path: string; type: string }>;
    expect(entries.map((e) => e.path)).toEqual(['notes', 'readme.md', 'notes/archive', 'notes/todo.txt', 'notes/archive/old.txt']);
  });

  it('stops at maxEntries and says so', async () => {
    const result = await call(tool('file_list'), { recursive: true, maxEntries: 2 });
    expect(data(result)['truncated']).toBe(true);
    expect(textOf(result)).toContain('[Stopped at 2 entries');
  });

  it('refuses maxEntries above the configured cap', async () => {
    const capped = createFileTools({ root, maxListEntries: 5 });
    expect((await callError(pick(capped, 'file_list'), { maxEntries: 6 })).violations[0]?.field).toBe('/maxEntries');
  });

  it('sends files to file_read', async () => {
    expect((await callError(tool('file_list'), { path: 'readme.md' })).message).toContain('use file_read');
  });

  it('answers a missing folder with close names', async () => {
    const err = await callError(tool('file_list'), { path: 'note' });
    expect(err).toMatchObject({ code: 'not_found', suggestions: ['notes'] });
  });

  it('says when a folder is empty', async () => {
    await mkdir(join(root, 'empty'));
    expect(textOf(await call(tool('file_list'), { path: 'empty' }))).toContain("folder 'empty' is empty");
  });
});

describe('file_stat', () => {
  it('describes a file', async () => {
    const result = await call(tool('file_stat'), { path: 'notes/todo.txt' });
    expect(data(result)).toMatchObject({ path: 'notes/todo.txt', exists: true, type: 'file', sizeBytes: 22, isSymlink: false, linkTarget: null });
    expect(data(result)['permissions']).toMatch(/^0[0-7]{3}$/);
    expect(textOf(result)).toMatch(/^'notes\/todo.txt' is a file of 22 bytes, modified \d{4}-/);
  });

  it('describes the root as a folder', async () => {
    expect(data(await call(tool('file_stat'), { path: '.' }))).toMatchObject({ path: '', type: 'directory' });
  });

  it('answers a missing path as a normal result with suggestions', async () => {
    const result = await call(tool('file_stat'), { path: 'readme.txt' });
    expect(data(result)).toEqual({ path: 'readme.txt', exists: false, suggestions: ['readme.md'] });
  });
});
