/** file_list: the entries of a folder inside the root, optionally recursive, breadth first. */
import type { Dirent } from 'node:fs';
import { lstat, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import type { FileToolsOptions } from './options';
import { display, fsError, isInside, MAX_PATH_LENGTH, type Sandbox } from './sandbox';

/** One entry of a listing. `path` is relative to the root, ready for file_read. */
export interface ListEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  /** Files only. */
  sizeBytes?: number;
  /** Symbolic links only: the target relative to the root, or null when it is outside or missing. */
  target?: string | null;
}

function typeOf(d: Dirent): ListEntry['type'] {
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isDirectory()) return 'directory';
  if (d.isFile()) return 'file';
  return 'other';
}

function toRel(root: string, real: string): string {
  return relative(root, real).split(sep).join('/');
}

function line(e: ListEntry): string {
  if (e.type === 'directory') return `${e.path}/`;
  if (e.type === 'file') return `${e.path}  ${e.sizeBytes ?? 0} B`;
  if (e.type === 'symlink') return `${e.path} -> ${e.target ?? '(outside the root or missing)'}`;
  return `${e.path}  (special file)`;
}

/** Builds file_list. */
export function fileListTool(sandbox: Sandbox, options: Required<FileToolsOptions>): ToolDefinition {
  const cap = options.maxListEntries;
  return defineTool({
    name: 'file_list',
    path: 'file',
    importance: 'core',
    description:
      `List the files and folders inside a folder of the tool's root (like ls), optionally with all sub-folders (breadth first). ` +
      `Use it to find out which files exist before file_read or file_write. Returns one entry per line with its type and size; paths are relative to the root. ` +
      `Do not use it to read file contents. Hidden entries (names starting with '.') are skipped unless includeHidden is true; ` +
      `at most ${cap} entries per call, and symbolic links are shown but never followed.`,
    input: z.strictObject({
      path: z.string().max(MAX_PATH_LENGTH).default('').describe("Folder relative to the tool root; '' or '.' for the root itself."),
      recursive: z.boolean().default(false).describe('Also list every sub-folder, breadth first.'),
      includeHidden: z.boolean().default(false).describe("Include entries whose name starts with '.'."),
      maxEntries: z.number().int().min(1).max(cap).default(Math.min(200, cap)).describe(`Stop after this many entries (at most ${cap}).`),
    }),
    outputDescription:
      "One line per entry: 'dir/' for folders, 'path  123 B' for files, 'link -> target' for symbolic links; structured: {path, entries[{path, type, sizeBytes?, target?}], truncated}.",
    examples: [{ description: 'List the notes folder', arguments: { path: 'notes' }, result: 'notes/archive/\nnotes/todo.txt  22 B' }],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['file', 'list', 'ls', 'folder', 'directory', 'find'],
    async run(args, ctx) {
      const res = await sandbox.resolve(args.path);
      if (res.stat === undefined) throw await sandbox.notFound(res, 'folder');
      if (!res.stat.isDirectory()) {
        throw ToolHubError.invalidArgument(`'${res.rel}' is a file, not a folder; use file_read to read it or file_stat for its size.`, [
          { field: '/path', message: 'is a file', expected: 'the path of a folder', example: '"notes"' },
        ]);
      }
      const entries: ListEntry[] = [];
      let truncated = false;
      const queue: Array<{ real: string; rel: string }> = [{ real: res.real, rel: res.rel }];
      outer: while (queue.length > 0) {
        if (ctx.signal.aborted) throw ToolHubError.timeout('file_list ran out of time; list a smaller folder or turn recursive off.');
        const dir = queue.shift() as { real: string; rel: string };
        let dirents: Dirent[];
        try {
          dirents = await readdir(dir.real, { withFileTypes: true });
        } catch (err) {
          // The start folder must be readable; a sub-folder that is not is simply skipped.
          if (dir.rel === res.rel) throw fsError(err, res.rel);
          continue;
        }
        dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const d of dirents) {
          if (!args.includeHidden && d.name.startsWith('.')) continue;
          if (entries.length >= args.maxEntries) {
            truncated = true;
            break outer;
          }
          const entry: ListEntry = { path: dir.rel ? `${dir.rel}/${d.name}` : d.name, type: typeOf(d) };
          const full = join(dir.real, d.name);
          if (entry.type === 'file') entry.sizeBytes = await lstat(full).then((s) => s.size, () => 0);
          if (entry.type === 'symlink') {
            const target = await realpath(full).catch(() => undefined);
            entry.target = target !== undefined && isInside(res.root, target) ? toRel(res.root, target) : null;
          }
          entries.push(entry);
          if (args.recursive && entry.type === 'directory') queue.push({ real: full, rel: entry.path });
        }
      }
      const lines = entries.map(line);
      if (entries.length === 0) lines.push(`(folder '${display(res.rel)}' is empty${args.includeHidden ? '' : ' or has only hidden entries'})`);
      if (truncated) lines.push(`[Stopped at ${entries.length} entries. List a sub-folder, or raise maxEntries (up to ${cap}).]`);
      return textResult(lines.join('\n'), { path: res.rel, entries, truncated });
    },
  });
}
