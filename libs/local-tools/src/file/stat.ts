/** file_stat: whether a path exists inside the root, and its type, size and times. */
import { relative, sep } from 'node:path';

import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import { display, MAX_PATH_LENGTH, type Sandbox } from './sandbox';

/** Builds file_stat. */
export function fileStatTool(sandbox: Sandbox): ToolDefinition {
  return defineTool({
    name: 'file_stat',
    path: 'file',
    description:
      `Check whether a file or folder exists inside the tool's root folder. Returns its type, size in bytes, permissions and modification time, ` +
      `or exists=false with close names (a missing path is a normal answer, not an error). Use it to test for existence or before reading a file that may be large or binary. ` +
      `Do not use it to list a folder (file_list) or read contents (file_read). Paths are relative to the root.`,
    input: z.strictObject({
      path: z.string().max(MAX_PATH_LENGTH).describe("Path relative to the tool root, e.g. 'notes/todo.txt'; '' or '.' for the root."),
    }),
    outputDescription:
      'A one-line summary; structured: {path, exists, type, sizeBytes, modifiedAt, permissions, isSymlink, linkTarget} or {path, exists: false, suggestions}.',
    examples: [{ description: 'Check a file before reading it', arguments: { path: 'notes/todo.txt' }, result: "'notes/todo.txt' is a file of 22 bytes, modified 2025-01-01T09:00:00.000Z" }],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['file', 'stat', 'exists', 'size', 'metadata'],
    async run(args) {
      const res = await sandbox.resolve(args.path);
      if (res.stat === undefined) {
        const missing = await sandbox.notFound(res);
        return textResult(missing.message, { path: res.rel, exists: false, suggestions: missing.suggestions });
      }
      const s = res.stat;
      const type = s.isDirectory() ? 'directory' : s.isFile() ? 'file' : 'other';
      const linkTarget = res.isLink ? relative(res.root, res.real).split(sep).join('/') : null;
      const structured = {
        path: res.rel,
        exists: true,
        type,
        sizeBytes: s.size,
        modifiedAt: s.mtime.toISOString(),
        permissions: (s.mode & 0o777).toString(8).padStart(4, '0'),
        isSymlink: res.isLink,
        linkTarget,
      };
      const what = type === 'directory' ? 'a folder' : type === 'file' ? `a file of ${s.size} bytes` : 'a special file';
      const link = linkTarget !== null ? ` (a symbolic link to '${display(linkTarget)}')` : '';
      return textResult(`'${display(res.rel)}' is ${what}${link}, modified ${structured.modifiedAt}`, structured);
    },
  });
}
