/**
 * Confines file access to one root directory. Paths from callers are relative, `/`-separated and
 * checked twice: syntactically (no `..`, no absolute paths, no NUL bytes) and on disk (every
 * symbolic link on the way must resolve inside the root). Files are opened with O_NOFOLLOW and,
 * where the OS allows it, the opened descriptor's real path is checked again, so a link swapped in
 * between the check and the open is caught.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, sep, win32 } from 'node:path';

import { closestMatches, ToolHubError } from '@toolhub/contracts';

/** Longest relative path accepted, in characters. */
export const MAX_PATH_LENGTH = 4096;
const EXAMPLE_PATH = 'notes/todo.txt';
// Windows has no O_NOFOLLOW; there the descriptor check below is the only guard against a swap.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Where a relative path lands inside the root. */
export interface Resolution {
  /** Normalised relative path, '' for the root itself. */
  rel: string;
  segments: string[];
  /** Real path of the root. */
  root: string;
  /** Real path of the target, or where it would be created when it does not exist. */
  real: string;
  /** stat of the target (symbolic links inside the root followed); undefined when it does not exist. */
  stat?: Stats;
  /** The last segment is a symbolic link (whose target lies inside the root). */
  isLink: boolean;
  /** Real path of the deepest folder on the way that exists. */
  existingDir: string;
  /** Index of the first segment that does not exist (segments.length when the target exists). */
  missingIndex: number;
}

/** How a caller wrote the path, for messages ('.' for the root). */
export function display(rel: string): string {
  return rel === '' ? '.' : rel;
}

function escapeError(input: string, field: string, why: string, hint = EXAMPLE_PATH): ToolHubError {
  return new ToolHubError('permission_denied', `path '${input}' ${why}; use a path relative to the root such as '${hint}'.`, {
    violations: [{ field, message: why, expected: 'a path relative to the tool root, without ".." segments', example: JSON.stringify(hint) }],
  });
}

function errno(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
}

/** True when `candidate` is `root` or lies below it (both real, absolute paths). */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Splits a caller's relative path into segments; `''` and `'.'` mean the root.
 * @throws ToolHubError permission_denied for `..` segments and absolute paths; invalid_argument
 *   for NUL bytes, backslashes and paths longer than {@link MAX_PATH_LENGTH}.
 */
export function parseRelativePath(input: string, field = '/path', root?: string): string[] {
  if (input.includes('\0')) {
    throw ToolHubError.invalidArgument(`path ${JSON.stringify(input)} contains a NUL byte (\\0); remove it.`, [
      { field, message: 'contains a NUL byte', expected: 'a relative path without control characters', example: JSON.stringify(EXAMPLE_PATH) },
    ]);
  }
  if (input.length > MAX_PATH_LENGTH) {
    throw ToolHubError.invalidArgument(`path is ${input.length} characters long; at most ${MAX_PATH_LENGTH} are allowed.`, [
      { field, message: 'too long', expected: `at most ${MAX_PATH_LENGTH} characters`, example: JSON.stringify(EXAMPLE_PATH) },
    ]);
  }
  if (isAbsolute(input) || win32.isAbsolute(input) || /^[A-Za-z]:/.test(input)) {
    // Point at the relative spelling when the absolute path happens to lie inside the root.
    const inside = root !== undefined && isInside(root, input) ? input.slice(root.length).replace(/^\/+/, '') : '';
    throw escapeError(input, field, inside ? 'is absolute (only paths relative to the tool root are accepted)' : 'is absolute and escapes the tool root', inside || EXAMPLE_PATH);
  }
  if (input.includes('\\')) {
    const fixed = input.replace(/\\/g, '/');
    throw ToolHubError.invalidArgument(`path '${input}' contains a backslash; separate folders with '/', e.g. '${fixed}'.`, [
      { field, message: 'contains a backslash', expected: "a path with '/' separators", example: JSON.stringify(fixed) },
    ]);
  }
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw escapeError(input, field, "escapes the tool root ('..' segments are not allowed)");
  return segments;
}

/** The file-system side of the sandbox: resolution, folder creation and verified opens. */
export class Sandbox {
  constructor(private readonly rootDir: string) {}

  /** Real path of the root. @throws ToolHubError failed_precondition when the root is missing. */
  async realRoot(): Promise<string> {
    try {
      const real = await realpath(this.rootDir);
      if (!(await stat(real)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
      return real;
    } catch (err) {
      throw new ToolHubError('failed_precondition', `The file tools' root folder is not available (${errno(err) || String(err)}); an operator must create it or fix the configuration. Retrying will not help.`, { cause: err });
    }
  }

  /**
   * Resolves a caller's path inside the root, following symbolic links only while they stay inside.
   * @throws ToolHubError permission_denied for escapes (syntactic or through links),
   *   invalid_argument when a middle segment is a file, failed_precondition for broken links.
   */
  async resolve(input: string, field = '/path'): Promise<Resolution> {
    const root = await this.realRoot();
    const segments = parseRelativePath(input, field, root);
    const rel = segments.join('/');
    let current = root;
    let isLink = false;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      const candidate = join(current, segment);
      let info: Stats;
      try {
        info = await lstat(candidate);
      } catch (err) {
        if (errno(err) === 'ENOENT') return { rel, segments, root, real: join(current, ...segments.slice(i)), isLink: false, existingDir: current, missingIndex: i };
        if (errno(err) === 'ENOTDIR') throw notAFolder(segments.slice(0, i).join('/'), rel, field);
        throw fsError(err, rel, field);
      }
      isLink = info.isSymbolicLink();
      if (isLink) {
        const shown = segments.slice(0, i + 1).join('/');
        let target: string;
        try {
          target = await realpath(candidate);
        } catch (err) {
          throw await brokenLink(candidate, root, shown, input, field, err);
        }
        if (!isInside(root, target)) throw escapeError(input, field, `escapes the tool root through the symbolic link '${shown}'`);
        current = target;
      } else {
        current = candidate;
      }
      if (i < segments.length - 1 && !(isLink ? (await stat(current)).isDirectory() : info.isDirectory())) {
        throw notAFolder(segments.slice(0, i + 1).join('/'), rel, field);
      }
    }
    return { rel, segments, root, real: current, stat: await stat(current), isLink, existingDir: current, missingIndex: segments.length };
  }

  /** Creates the missing parent folders of a resolved path, one at a time, each checked. Returns the real parent folder. */
  async ensureParents(res: Resolution, field = '/path'): Promise<string> {
    let dir = res.existingDir;
    for (const segment of res.segments.slice(res.missingIndex, -1)) {
      const next = join(dir, segment);
      try {
        await mkdir(next);
      } catch (err) {
        if (errno(err) !== 'EEXIST') throw fsError(err, res.rel, field);
      }
      const real = await realpath(next);
      if (!isInside(res.root, real)) throw escapeError(res.rel, field, 'escapes the tool root (a folder on the way was replaced by a link)');
      dir = real;
    }
    return dir;
  }

  /**
   * Opens a real path with O_NOFOLLOW and checks, where the OS allows it, that the descriptor
   * really is inside the root. The caller closes the handle.
   */
  async openChecked(real: string, root: string, flags: number, rel: string, field = '/path', mode?: number): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = flags & constants.O_CREAT ? await this.createIn(real, root, flags | O_NOFOLLOW, rel, field, mode) : await open(real, flags | O_NOFOLLOW, mode);
    } catch (err) {
      if (err instanceof ToolHubError) throw err;
      // ELOOP with O_NOFOLLOW: the target became a symbolic link after it was checked.
      if (errno(err) === 'ELOOP') throw escapeError(rel, field, 'changed into a symbolic link while it was being opened');
      throw fsError(err, rel, field);
    }
    try {
      const opened = await openedPath(handle);
      if (opened !== undefined && !isInside(root, opened)) throw escapeError(rel, field, 'was moved outside the tool root while it was being opened');
      // A hard link is indistinguishable from the file it shares with, which may lie outside the root.
      const info = await handle.stat();
      if (info.isFile() && info.nlink > 1) {
        throw new ToolHubError(
          'permission_denied',
          `'${display(rel)}' has ${info.nlink} hard links; a hard link may share its content with a file outside the tool root, so the file tools do not read or write it. Use another file, or ask an operator to replace it with a copy.`,
        );
      }
      return handle;
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /**
   * Opens `real` with O_CREAT so that the file cannot be created outside the root: O_NOFOLLOW
   * guards only the last component, and a folder on the way swapped for a link after the check
   * would take the creation elsewhere (the after-open check then comes too late: the empty file
   * exists). So the parent folder is opened first and its descriptor checked to be inside the root,
   * and the file is created through that descriptor (`/proc/self/fd/<n>/<name>` names the opened
   * folder itself, whatever its path points to by then). Where /proc is missing (not Linux), the
   * plain open and the after-open check remain.
   */
  private async createIn(real: string, root: string, flags: number, rel: string, field: string, mode?: number): Promise<FileHandle> {
    const parent = await open(dirname(real), constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    try {
      const parentReal = await openedPath(parent);
      if (parentReal === undefined) return await open(real, flags, mode);
      if (!isInside(root, parentReal)) throw escapeError(rel, field, 'was moved outside the tool root while it was being opened');
      return await open(`/proc/self/fd/${parent.fd}/${basename(real)}`, flags, mode);
    } finally {
      await parent.close();
    }
  }

  /** The not_found error for a resolution whose target is missing, with close names from the nearest folder. */
  async notFound(res: Resolution, what = 'file'): Promise<ToolHubError> {
    const missing = res.segments[res.missingIndex] ?? '';
    const parent = res.segments.slice(0, res.missingIndex).join('/');
    let names: string[] = [];
    try {
      names = await readdir(res.existingDir);
    } catch {
      // No suggestions is still a useful answer.
    }
    const suggestions = closestMatches(missing, names, 3).map((n) => (parent ? `${parent}/${n}` : n));
    const folderMissing = res.missingIndex < res.segments.length - 1;
    const subject = folderMissing ? `folder '${parent ? `${parent}/` : ''}${missing}'` : `${what} '${res.rel}'`;
    const didYouMean = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `'${s}'`).join(' or ')}?` : '';
    return ToolHubError.notFound(`${subject} does not exist.${didYouMean} Call file_list with path '${display(parent)}' to see what is there.`, suggestions, parent);
  }
}

async function openedPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return (await readlink(`/proc/self/fd/${handle.fd}`)).replace(/ \(deleted\)$/, '');
  } catch {
    return undefined; // Not Linux: O_NOFOLLOW and the resolution walk are the guards.
  }
}

function notAFolder(fileRel: string, rel: string, field: string): ToolHubError {
  return ToolHubError.invalidArgument(`'${fileRel}' is a file, not a folder, so '${rel}' cannot exist. Call file_list on its folder to see the entries.`, [
    { field, message: `'${fileRel}' is a file`, expected: 'a path whose parent segments are folders', example: JSON.stringify(EXAMPLE_PATH) },
  ]);
}

async function brokenLink(candidate: string, root: string, shown: string, input: string, field: string, err: unknown): Promise<ToolHubError> {
  // Report a link that would point outside as an escape even when its target is missing.
  try {
    const target = await readlink(candidate);
    const absolute = isAbsolute(target) ? target : join(candidate, '..', target);
    if (!isInside(root, absolute)) return escapeError(input, field, `escapes the tool root through the symbolic link '${shown}'`);
  } catch {
    // Fall through to the generic message.
  }
  const why = errno(err) === 'ELOOP' ? 'is part of a symbolic link loop' : 'points to a target that does not exist';
  return new ToolHubError('failed_precondition', `'${shown}' is a symbolic link that ${why}; use another path or ask an operator to fix the link.`, { cause: err });
}

/** The error for a path that is a pipe, socket or device: file tools handle regular files only. */
export function specialFile(rel: string, field = '/path'): ToolHubError {
  return ToolHubError.invalidArgument(`'${display(rel)}' is not a regular file (a pipe, socket or device); the file tools only read and write regular files.`, [
    { field, message: 'not a regular file', expected: 'the path of a regular file', example: JSON.stringify(EXAMPLE_PATH) },
  ]);
}

/** Maps an unexpected fs error to a wire error with a message an LLM can act on (never a server path). */
export function fsError(err: unknown, rel: string, field = '/path'): ToolHubError {
  const code = errno(err);
  const shown = display(rel);
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return new ToolHubError('permission_denied', `The tool process is not allowed to access '${shown}' (${code}); choose another file.`, { cause: err });
    case 'EISDIR':
      return ToolHubError.invalidArgument(`'${shown}' is a folder; use file_list to see its entries.`, [{ field, message: 'is a folder', expected: 'a file path', example: JSON.stringify(EXAMPLE_PATH) }]);
    case 'ENAMETOOLONG':
      return ToolHubError.invalidArgument(`path '${shown}' has a name that is too long for the file system.`, [{ field, message: 'name too long', expected: 'shorter file names', example: JSON.stringify(EXAMPLE_PATH) }]);
    case 'ENOSPC':
    case 'EDQUOT':
      return ToolHubError.failed(`No space left to write '${shown}' (${code}).`, err);
    case 'EROFS':
      return ToolHubError.failed(`'${shown}' is on a read-only file system.`, err);
    case 'ENXIO':
    case 'ENODEV':
    case 'ETXTBSY':
      return specialFile(rel, field);
    default:
      // Node's message names the server's absolute path; the caller sees only its relative one.
      return ToolHubError.internal(`File system error${code ? ` ${code}` : ''} on '${shown}'. This is a ToolHub fault, not a problem with the call.`, err);
  }
}
