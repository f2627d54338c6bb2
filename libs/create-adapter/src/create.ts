/** Writes a new adapter project (see adapter-files.ts) into a new or empty directory. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

import { adapterFiles } from './adapter-files';
import { CreateAdapterError } from './errors';
import { PROVIDER_PATTERN } from './versions';

export interface CreateAdapterOptions {
  /** The provider name. @default from the directory name (`billing-adapter` → `billing`) */
  provider?: string;
  /** Resolves a relative `dir`. @default process.cwd() */
  cwd?: string;
}

export interface CreatedAdapter {
  /** Absolute path of the project. */
  directory: string;
  provider: string;
  /** Relative paths written, sorted. */
  files: string[];
}

/** The provider a directory name suggests: `weather-toolhub-adapter` → `weather`. */
export function providerFromDirectory(dir: string): string {
  return basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .replace(/[-_]toolhub[-_]adapter$|[-_]adapter$/, '');
}

/**
 * Writes the scaffold into `dir` (created; it must be empty if it exists).
 * @throws CreateAdapterError `invalid_provider` or `not_empty`, before writing anything
 */
export function createAdapter(dir: string, options: CreateAdapterOptions = {}): CreatedAdapter {
  const target = resolve(options.cwd ?? process.cwd(), dir);
  const provider = options.provider ?? providerFromDirectory(target);
  if (!PROVIDER_PATTERN.test(provider)) {
    throw new CreateAdapterError('invalid_provider', `Provider name ${JSON.stringify(provider)} must match ${PROVIDER_PATTERN.source}; pass one with --provider, e.g. --provider weather.`);
  }
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new CreateAdapterError('not_empty', `${target} exists and is not empty; choose a new directory.`);
  }
  const files = adapterFiles(provider);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(target, rel)), { recursive: true });
    writeFileSync(join(target, rel), text);
  }
  return { directory: target, provider, files: Object.keys(files).sort() };
}
