import { constants } from 'node:fs';
import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { ToolDefinition } from '@toolhub/adapter-sdk';

import { createFileTools } from '../src';
import { Sandbox } from '../src/file/sandbox';
import { call, callError, data, pick, tempDir, textOf } from './helpers';

let root: string;
let outside: string;
let tools: ToolDefinition[];
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  const r = await tempDir('toolhub-root-');
  const o = await tempDir('toolhub-outside-');
  cleanups.push(r.cleanup, o.cleanup);
  root = r.dir;
  outside = o.dir;
  await mkdir(join(root, 'notes'));
  await writeFile(join(root, 'notes', 'todo.txt'), '- buy milk\n- call Ada\n');
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  tools = createFileTools({ root });
});

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

const read = (): ToolDefinition => pick(tools, 'file_read');
const write = (): ToolDefinition => pick(tools, 'file_write');
const list = (): ToolDefinition => pick(tools, 'file_list');
const statTool = (): ToolDefinition => pick(tools, 'file_stat');

describe('file tools refuse paths that leave the root', () => {
  it('refuses .. segments with permission_denied and an example of a good path', async () => {
    const err = await callError(read(), { path: '../etc/passwd' });
    expect(err.code).toBe('permission_denied');
    expect(err.message).toBe("path '../etc/passwd' escapes the tool root ('..' segments are not allowed); use a path relative to the root such as 'notes/todo.txt'.");
    expect(err.violations[0]?.field).toBe('/path');
  });

  it('refuses .. even when it would come back inside the root', async () => {
    const err = await callError(read(), { path: 'notes/../notes/todo.txt' });
    expect(err.code).toBe('permission_denied');
  });

  it('refuses absolute paths', async () => {
    const err = await callError(read(), { path: '/etc/passwd' });
    expect(err.code).toBe('permission_denied');
    expect(err.message).toContain('is absolute');
  });

  it('refuses an absolute path inside the root and names the relative spelling', async () => {
    const err = await callError(read(), { path: join(root, 'notes', 'todo.txt') });
    expect(err.code).toBe('permission_denied');
    expect(err.message).toContain("such as 'notes/todo.txt'");
  });

  it('refuses Windows drive paths and backslashes', async () => {
    expect((await callError(read(), { path: 'C:\\Windows\\win.ini' })).code).toBe('permission_denied');
    const err = await callError(read(), { path: 'notes\\todo.txt' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain("'notes/todo.txt'");
  });

  it('refuses NUL bytes', async () => {
    const err = await callError(read(), { path: 'notes/todo.txt\0.png' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain('NUL byte');
  });

  it('refuses to read through a symbolic link that points outside the root', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'notes', 'leak.txt'));
    const err = await callError(read(), { path: 'notes/leak.txt' });
    expect(err.code).toBe('permission_denied');
    expect(err.message).toContain("through the symbolic link 'notes/leak.txt'");
  });

  it('refuses to list or write through a linked folder that points outside the root', async () => {
    await symlink(outside, join(root, 'elsewhere'));
    expect((await callError(list(), { path: 'elsewhere' })).code).toBe('permission_denied');
    expect((await callError(write(), { path: 'elsewhere/new.txt', content: 'x' })).code).toBe('permission_denied');
    await expect(stat(join(outside, 'new.txt'))).rejects.toThrow();
  });

  it('refuses to overwrite a file outside through a symbolic link', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'innocent.txt'));
    expect((await callError(write(), { path: 'innocent.txt', content: 'pwned' })).code).toBe('permission_denied');
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('refuses a dangling link whose target would be outside the root', async () => {
    await symlink(join(outside, 'not-yet.txt'), join(root, 'trap.txt'));
    expect((await callError(write(), { path: 'trap.txt', content: 'x' })).code).toBe('permission_denied');
    await expect(stat(join(outside, 'not-yet.txt'))).rejects.toThrow();
  });

  it('does not follow symbolic links while listing recursively', async () => {
    await symlink(outside, join(root, 'elsewhere'));
    const result = await call(list(), { recursive: true });
    const entries = data(result)['entries'] as Array<{ path: string; type: string; target?: string | null }>;
    expect(entries).toContainEqual({ path: 'elsewhere', type: 'symlink', target: null });
    expect(entries.some((e) => e.path.startsWith('elsewhere/'))).toBe(false);
    expect(textOf(result)).not.toContain('secret');
  });

  it('refuses file_stat on a path outside too', async () => {
    expect((await callError(statTool(), { path: '../' })).code).toBe('permission_denied');
  });
});

describe('file tools follow symbolic links that stay inside the root', () => {
  it('reads a file through a link to another file in the root', async () => {
    await symlink(join(root, 'notes', 'todo.txt'), join(root, 'today.txt'));
    const result = await call(read(), { path: 'today.txt' });
    expect(textOf(result)).toBe('- buy milk\n- call Ada');
  });

  it('reads and writes through a relative link to a folder in the root', async () => {
    await symlink('notes', join(root, 'n'));
    expect(textOf(await call(read(), { path: 'n/todo.txt', limit: 1 }))).toContain('- buy milk');
    await call(write(), { path: 'n/more.txt', content: 'hi' });
    expect(await readFile(join(root, 'notes', 'more.txt'), 'utf8')).toBe('hi');
  });

  it('reports a link inside the root in file_stat with its target', async () => {
    await symlink(join(root, 'notes', 'todo.txt'), join(root, 'today.txt'));
    const result = await call(statTool(), { path: 'today.txt' });
    expect(data(result)).toMatchObject({ exists: true, type: 'file', isSymlink: true, linkTarget: 'notes/todo.txt' });
  });

  it('lists a link inside the root with its target relative to the root', async () => {
    await symlink(join(root, 'notes', 'todo.txt'), join(root, 'today.txt'));
    const entries = data(await call(list(), {}))['entries'];
    expect(entries).toContainEqual({ path: 'today.txt', type: 'symlink', target: 'notes/todo.txt' });
  });
});

describe('the root itself', () => {
  it('may be reached through a symbolic link', async () => {
    const link = join(outside, 'root-link');
    await symlink(root, link);
    const viaLink = createFileTools({ root: link });
    expect(textOf(await call(pick(viaLink, 'file_read'), { path: 'notes/todo.txt' }))).toContain('buy milk');
  });

  it('gives failed_precondition, not the caller’s fault, when it is missing', async () => {
    const missing = createFileTools({ root: join(outside, 'nope') });
    const err = await callError(pick(missing, 'file_list'), {});
    expect(err.code).toBe('failed_precondition');
    expect(err.message).toContain('operator');
  });
});

describe('the descriptor check after open', () => {
  it('refuses a real path outside the root even if the walk were bypassed', async () => {
    const sandbox = new Sandbox(root);
    await expect(sandbox.openChecked(join(outside, 'secret.txt'), root, constants.O_RDONLY, 'secret.txt')).rejects.toMatchObject({ code: 'permission_denied' });
  });

  it('refuses to open a path whose last component is a symbolic link (O_NOFOLLOW)', async () => {
    await symlink(join(root, 'notes', 'todo.txt'), join(root, 'swapped.txt'));
    await expect(new Sandbox(root).openChecked(join(root, 'swapped.txt'), root, constants.O_RDONLY, 'swapped.txt')).rejects.toMatchObject({ code: 'permission_denied' });
  });
});

describe('hard links, special files and the root quota', () => {
  it('refuses to read or write a file with more than one hard link (it may be a file outside)', async () => {
    const { link } = await import('node:fs/promises');
    await link(join(outside, 'secret.txt'), join(root, 'alias.txt'));
    for (const err of [await callError(read(), { path: 'alias.txt' }), await callError(write(), { path: 'alias.txt', content: 'owned' })]) {
      expect(err.code).toBe('permission_denied');
      expect(err.message).toContain('2 hard links');
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('answers a clear error, without a server path, when writing to or reading a FIFO', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(root, 'pipe')]);
    for (const err of [await callError(write(), { path: 'pipe', content: 'x' }), await callError(read(), { path: 'pipe' })]) {
      expect(err.code).toBe('invalid_argument');
      expect(err.message).toContain("'pipe' is not a regular file");
      expect(err.message).not.toContain(root);
    }
  });

  it('refuses a write that would take the root over its byte quota, and leaves the files as they were', async () => {
    const small = createFileTools({ root, maxRootBytes: 100 });
    const used = (await stat(join(root, 'notes', 'todo.txt'))).size;
    await call(pick(small, 'file_write'), { path: 'a.txt', content: 'x'.repeat(100 - used) });
    const err = await callError(pick(small, 'file_write'), { path: 'b.txt', content: 'y' });
    expect(err.code).toBe('failed_precondition');
    expect(err.message).toMatch(/over its quota of 100 bytes \(100 used\)/);
    await expect(stat(join(root, 'b.txt'))).rejects.toThrow();
    // Shrinking a file frees room again.
    await call(pick(small, 'file_write'), { path: 'a.txt', content: '' });
    await call(pick(small, 'file_write'), { path: 'b.txt', content: 'y' });
  });

  it('refuses to create more files and folders than the quota allows', async () => {
    const few = createFileTools({ root, maxRootFiles: 4 }); // notes/ and notes/todo.txt exist
    await call(pick(few, 'file_write'), { path: 'x/one.txt', content: '1' });
    const err = await callError(pick(few, 'file_write'), { path: 'two.txt', content: '2' });
    expect(err.code).toBe('failed_precondition');
    expect(err.message).toContain('over its quota of 4');
    // Writing into an existing file is still allowed.
    await call(pick(few, 'file_write'), { path: 'x/one.txt', content: '11', mode: 'append' });
  });

  it('does not let concurrent writes squeeze past the quota together', async () => {
    const small = createFileTools({ root, maxRootBytes: 1000 });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => call(pick(small, 'file_write'), { path: `f${i}.txt`, content: 'z'.repeat(100) })));
    const written = results.filter((r) => r.status === 'fulfilled').length;
    const used = (await stat(join(root, 'notes', 'todo.txt'))).size;
    expect(written).toBe(Math.floor((1000 - used) / 100));
  });
});
