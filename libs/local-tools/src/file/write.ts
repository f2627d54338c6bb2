/** file_write: create, overwrite or append to a text file inside the root. */
import { constants } from 'node:fs';
import { join } from 'node:path';

import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import type { FileToolsOptions } from './options';
import type { RootQuota } from './quota';
import { display, fsError, MAX_PATH_LENGTH, type Sandbox, specialFile } from './sandbox';

const MODES = ['overwrite', 'append', 'create'] as const;

function errno(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** Builds file_write. */
export function fileWriteTool(sandbox: Sandbox, options: Required<FileToolsOptions>, quota: RootQuota): ToolDefinition {
  const limit = options.maxWriteBytes;
  return defineTool({
    name: 'file_write',
    path: 'file',
    description:
      `Write UTF-8 text to a file inside the tool's root folder: overwrite it (default), append to it, or create it only if it is new. ` +
      `Missing parent folders are created inside the root. Returns what was done and the new size. ` +
      `Do not use it to read or list files, or for binary data. It changes files: prefer mode 'create' when you must not replace existing work. ` +
      `Content is limited to ${limit} bytes; paths are relative to the root, which holds at most ${options.maxRootBytes} bytes in ${options.maxRootFiles} files and folders.`,
    input: z.strictObject({
      path: z.string().min(1).max(MAX_PATH_LENGTH).describe("File path relative to the tool root, '/'-separated, e.g. 'notes/todo.txt'."),
      // The limit is in UTF-8 bytes, checked in run(); a maxLength in characters would be wrong for non-ASCII text.
      content: z.string().describe(`The text to write (UTF-8), at most ${limit} bytes.`),
      mode: z.enum(MODES).default('overwrite').describe("'overwrite' replaces the file, 'append' adds to its end, 'create' fails if the file already exists."),
      createParents: z.boolean().default(true).describe('Create missing parent folders (inside the root).'),
    }),
    outputDescription: 'A sentence saying what was written; structured: {path, mode, created, bytesWritten, sizeBytes}.',
    examples: [{ description: 'Append a line to a to-do list', arguments: { path: 'notes/todo.txt', content: '- call Ada\n', mode: 'append' }, result: "Appended 11 bytes to 'notes/todo.txt' (now 33 bytes)." }],
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
    tags: ['file', 'write', 'save', 'create', 'append'],
    async run(args) {
      const bytes = Buffer.byteLength(args.content);
      if (bytes > limit) {
        throw ToolHubError.invalidArgument(`content is ${bytes} bytes in UTF-8; file_write accepts at most ${limit}. Write it in parts with mode 'append'.`, [
          { field: '/content', message: 'too large', expected: `at most ${limit} UTF-8 bytes`, example: '"- call Ada\\n"' },
        ]);
      }
      const res = await sandbox.resolve(args.path);
      if (res.stat?.isDirectory() || res.rel === '') {
        throw ToolHubError.invalidArgument(`'${display(res.rel)}' is a folder; give the path of a file inside it, e.g. '${res.rel ? `${res.rel}/` : ''}notes.txt'.`, [
          { field: '/path', message: 'is a folder', expected: 'the path of a file', example: JSON.stringify(`${res.rel ? `${res.rel}/` : ''}notes.txt`) },
        ]);
      }
      if (res.stat !== undefined && args.mode === 'create') throw alreadyExists(res.rel);
      if (res.stat !== undefined && !res.stat.isFile()) throw specialFile(res.rel);
      if (res.stat === undefined && res.missingIndex < res.segments.length - 1 && !args.createParents) throw await sandbox.notFound(res, 'file');
      const oldSize = res.stat?.size ?? 0;
      // What the write will add, checked against the root's quota before anything is touched.
      const expected = {
        bytes: args.mode === 'append' ? bytes : bytes - oldSize,
        entries: res.stat === undefined ? res.segments.length - res.missingIndex : 0,
      };
      return quota.guard(res.root, expected, res.rel, async () => {
        let target = res.real;
        if (res.stat === undefined && res.missingIndex < res.segments.length - 1) {
          target = join(await sandbox.ensureParents(res), res.segments[res.segments.length - 1] as string);
        }
        let flags = constants.O_WRONLY | constants.O_CREAT | (constants.O_NONBLOCK ?? 0);
        if (args.mode === 'create') flags |= constants.O_EXCL;
        if (args.mode === 'append') flags |= constants.O_APPEND;
        // No O_TRUNC: the descriptor is checked to be inside the root before anything is changed.
        let handle;
        try {
          handle = await sandbox.openChecked(target, res.root, flags, res.rel, '/path', 0o666);
        } catch (err) {
          if (errno(err) === 'EEXIST' || (err instanceof ToolHubError && errno(err.cause) === 'EEXIST')) throw alreadyExists(res.rel);
          throw err;
        }
        try {
          const before = await handle.stat();
          if (!before.isFile()) throw specialFile(res.rel);
          if (args.mode === 'overwrite') await handle.truncate(0);
          if (bytes > 0) await handle.write(args.content, args.mode === 'append' ? null : 0, 'utf8');
          const sizeBytes = (await handle.stat()).size;
          const created = res.stat === undefined;
          const verb = created ? 'Created' : args.mode === 'append' ? 'Appended to' : 'Overwrote';
          const text =
            args.mode === 'append' && !created
              ? `Appended ${bytes} bytes to '${res.rel}' (now ${sizeBytes} bytes).`
              : `${verb} '${res.rel}' (${sizeBytes} bytes${created ? '' : `; was ${before.size} bytes`}).`;
          return {
            value: textResult(text, { path: res.rel, mode: args.mode, created, bytesWritten: bytes, sizeBytes }),
            change: { bytes: sizeBytes - (created ? 0 : before.size), entries: expected.entries },
          };
        } catch (err) {
          throw err instanceof ToolHubError ? err : fsError(err, res.rel);
        } finally {
          await handle.close();
        }
      });
    },
  });
}

function alreadyExists(rel: string): ToolHubError {
  return new ToolHubError('already_exists', `'${rel}' already exists and mode is 'create'; use mode 'overwrite' to replace it or 'append' to add to it, or choose another path.`, {
    violations: [{ field: '/mode', message: 'file exists', expected: "'overwrite' or 'append', or a new path", example: '"append"' }],
  });
}
