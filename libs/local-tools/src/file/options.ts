/** Options of the file tools, with their defaults filled in one place. */
import { resolve } from 'node:path';

import { LocalToolsError } from '../errors';
import { intOption } from '../options-util';

/** Options of {@link createFileTools}. */
export interface FileToolsOptions {
  /** Folder every file tool is confined to. A relative path resolves against the working directory. */
  root: string;
  /** Most bytes of text one file_read call returns (longer files are read in pages). @default 262144 (256 KiB) */
  maxReadBytes?: number;
  /** Largest `content` file_write accepts, in UTF-8 bytes. @default 1048576 (1 MiB) */
  maxWriteBytes?: number;
  /** Most entries one file_list call may return (the caller's `maxEntries` is capped by this). @default 1000 */
  maxListEntries?: number;
  /** Offer file_write. Set to false for a read-only deployment. @default true */
  allowWrite?: boolean;
  /** Most bytes all regular files below the root may hold; file_write refuses to go past it. @default 268435456 (256 MiB) */
  maxRootBytes?: number;
  /** Most files and folders below the root; file_write refuses to create more. @default 10000 */
  maxRootFiles?: number;
}

/** Default values of {@link FileToolsOptions}. */
export const FILE_TOOLS_DEFAULTS = {
  maxReadBytes: 256 * 1024,
  maxWriteBytes: 1024 * 1024,
  maxListEntries: 1000,
  allowWrite: true,
  maxRootBytes: 256 * 1024 * 1024,
  maxRootFiles: 10_000,
} as const;

/**
 * Fills in defaults and checks values.
 * @throws LocalToolsError invalid_options when `root` is empty or a limit is not a positive integer.
 */
export function withFileDefaults(options: FileToolsOptions): Required<FileToolsOptions> {
  if (typeof options.root !== 'string' || options.root.trim() === '') {
    throw new LocalToolsError('invalid_options', 'root is required: the folder the file tools are confined to, e.g. "/var/lib/toolhub/files".');
  }
  return {
    root: resolve(options.root),
    maxReadBytes: intOption('maxReadBytes', options.maxReadBytes, FILE_TOOLS_DEFAULTS.maxReadBytes, 1024, 64 * 1024 * 1024),
    maxWriteBytes: intOption('maxWriteBytes', options.maxWriteBytes, FILE_TOOLS_DEFAULTS.maxWriteBytes, 1, 256 * 1024 * 1024),
    maxListEntries: intOption('maxListEntries', options.maxListEntries, FILE_TOOLS_DEFAULTS.maxListEntries, 1, 100_000),
    allowWrite: options.allowWrite ?? FILE_TOOLS_DEFAULTS.allowWrite,
    maxRootBytes: intOption('maxRootBytes', options.maxRootBytes, FILE_TOOLS_DEFAULTS.maxRootBytes, 1, Number.MAX_SAFE_INTEGER),
    maxRootFiles: intOption('maxRootFiles', options.maxRootFiles, FILE_TOOLS_DEFAULTS.maxRootFiles, 1, 100_000_000),
  };
}
