/** file_read: text of one file inside the root, paged by lines. */
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

import type { ToolDefinition, ToolResult } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { z } from 'zod';

import { defineTool } from '../define';
import type { FileToolsOptions } from './options';
import { display, MAX_PATH_LENGTH, type Sandbox } from './sandbox';

const CHUNK_BYTES = 64 * 1024;

interface Page {
  lines: string[];
  startLine: number;
  /** Lines seen so far (all of them when `eof`). */
  linesSeen: number;
  eof: boolean;
  hasMore: boolean;
  nextOffset: number | null;
  /** The last returned line was cut at the byte limit. */
  cutLine: boolean;
  crlf: boolean;
}

class BinaryFile extends Error {}

/** Reads lines [offset, offset+limit) of a UTF-8 file, stopping once `maxBytes` of text are collected. */
async function readPage(handle: FileHandle, offset: number, limit: number, maxBytes: number, signal: AbortSignal): Promise<Page> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const page: Page = { lines: [], startLine: offset, linesSeen: 0, eof: false, hasMore: false, nextOffset: null, cutLine: false, crlf: false };
  let bytes = 0;
  let pending = '';
  let position = 0;

  /** Takes one complete line; returns false once the page is full. */
  const take = (raw: string): boolean => {
    page.linesSeen++;
    if (page.linesSeen < offset) return true;
    if (page.lines.length >= limit) {
      page.hasMore = true;
      page.nextOffset = page.linesSeen;
      return false;
    }
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line !== raw) page.crlf = true;
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes) {
      page.hasMore = true;
      if (page.lines.length > 0) {
        page.nextOffset = page.linesSeen;
        return false;
      }
      // A single line longer than the budget: return its start rather than nothing.
      page.lines.push(Buffer.from(line).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, ''));
      page.cutLine = true;
      page.nextOffset = page.linesSeen + 1;
      return false;
    }
    bytes += size;
    page.lines.push(line);
    return true;
  };

  for (;;) {
    if (signal.aborted) throw ToolHubError.timeout('file_read ran out of time; read a smaller range with offset and limit.');
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    const chunk = buffer.subarray(0, bytesRead);
    if (chunk.includes(0)) throw new BinaryFile();
    position += bytesRead;
    let text: string;
    try {
      text = bytesRead > 0 ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new BinaryFile();
    }
    pending += text;
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) if (!take(part)) return page;
    if (bytesRead === 0) {
      page.eof = true;
      if (pending !== '' && !take(pending)) return page;
      return page;
    }
    if (pending.length > maxBytes) {
      // An unterminated line longer than the page: skip it cheaply, or return its start.
      if (page.linesSeen + 1 < offset) pending = '';
      else if (!take(pending)) return page;
    }
  }
}

function render(page: Page, rel: string, lineNumbers: boolean): ToolResult {
  const endLine = page.startLine + page.lines.length - 1;
  const body = lineNumbers ? page.lines.map((l, i) => `${page.startLine + i}\t${l}`).join('\n') : page.lines.join('\n');
  const totalLines = page.eof && !page.hasMore ? page.linesSeen : null;
  const structured = {
    path: rel,
    content: body,
    startLine: page.startLine,
    endLine,
    totalLines,
    hasMore: page.hasMore,
    nextOffset: page.nextOffset,
    cutLine: page.cutLine,
    lineEnding: page.crlf ? 'crlf' : 'lf',
  };
  const content: ToolResult['content'] = [{ text: body }];
  if (page.hasMore) {
    const cut = page.cutLine ? ` Line ${endLine} was cut at the size limit.` : '';
    content.push({ text: `[Showing lines ${page.startLine}-${endLine} of '${rel}'; more follow.${cut} Call file_read with offset=${page.nextOffset} to continue.]` });
  }
  return { content, structured };
}

/** Builds file_read. */
export function fileReadTool(sandbox: Sandbox, options: Required<FileToolsOptions>): ToolDefinition {
  const kib = Math.floor(options.maxReadBytes / 1024);
  return defineTool({
    name: 'file_read',
    path: 'file',
    importance: 'core',
    description:
      `Read a UTF-8 text file inside the tool's root folder. Use it to look at notes, code, logs, CSV or JSON files. ` +
      `Returns the lines as text, at most ${kib} KiB per call; for longer files it says which offset to pass next. ` +
      `Do not use it for binary files (images, archives: refused), for folders (use file_list) or to check existence (use file_stat). ` +
      `Paths are relative to the root; '..' and absolute paths are refused.`,
    input: z.strictObject({
      path: z.string().min(1).max(MAX_PATH_LENGTH).describe("File path relative to the tool root, '/'-separated, e.g. 'notes/todo.txt'."),
      offset: z.number().int().min(1).default(1).describe('First line to return, counting from 1. Pass the nextOffset of a previous call to continue.'),
      limit: z.number().int().min(1).max(100_000).optional().describe(`Most lines to return; by default as many as fit in ${kib} KiB.`),
      lineNumbers: z.boolean().default(false).describe('Prefix every line with its line number and a tab.'),
    }),
    outputDescription:
      'The text of the requested lines (line endings normalised to \\n); structured: {path, content, startLine, endLine, totalLines|null, hasMore, nextOffset|null, cutLine, lineEnding}.',
    examples: [{ description: 'Read the first 20 lines of a notes file', arguments: { path: 'notes/todo.txt', limit: 20 }, result: '- buy milk\n- call Ada' }],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['file', 'read', 'text', 'cat', 'open'],
    async run(args, ctx) {
      const res = await sandbox.resolve(args.path);
      if (res.stat === undefined) throw await sandbox.notFound(res);
      if (res.stat.isDirectory()) {
        throw ToolHubError.invalidArgument(`'${display(res.rel)}' is a folder; call file_list with path '${display(res.rel)}' to see its files, then file_read one of them.`, [
          { field: '/path', message: 'is a folder', expected: 'the path of a file', example: '"notes/todo.txt"' },
        ]);
      }
      // O_NONBLOCK keeps a FIFO swapped in after the check from blocking the open.
      const handle = await sandbox.openChecked(res.real, res.root, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0), res.rel);
      try {
        const info = await handle.stat();
        if (!info.isFile()) {
          throw ToolHubError.invalidArgument(`'${res.rel}' is not a regular file (it is a device, socket or pipe); file_read only reads regular text files.`, [
            { field: '/path', message: 'not a regular file', expected: 'the path of a text file', example: '"notes/todo.txt"' },
          ]);
        }
        const page = await readPage(handle, args.offset, args.limit ?? Number.MAX_SAFE_INTEGER, options.maxReadBytes, ctx.signal);
        if (page.eof && args.offset > Math.max(page.linesSeen, 1)) {
          throw ToolHubError.invalidArgument(`'${res.rel}' has ${page.linesSeen} lines, so offset ${args.offset} is past its end; use an offset between 1 and ${Math.max(page.linesSeen, 1)}.`, [
            { field: '/offset', message: 'past the end of the file', expected: `integer from 1 to ${Math.max(page.linesSeen, 1)}`, example: '1' },
          ]);
        }
        return render(page, res.rel, args.lineNumbers);
      } catch (err) {
        if (err instanceof BinaryFile) {
          throw ToolHubError.invalidArgument(
            `'${res.rel}' is not UTF-8 text (it looks binary, or uses another encoding such as UTF-16); file_read only returns text. Use file_stat to see its size and type.`,
            [{ field: '/path', message: 'binary or non-UTF-8 file', expected: 'the path of a UTF-8 text file', example: '"notes/todo.txt"' }],
          );
        }
        throw err;
      } finally {
        await handle.close();
      }
    },
  });
}
