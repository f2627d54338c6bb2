/** `toolhub adapter init <dir>`: scaffolds an adapter repository (see scaffold/adapter-files.ts). */
import { PROVIDER_NAME_PATTERN } from '@toolhub/contracts';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { adapterFiles } from '../scaffold/adapter-files';

export interface AdapterInitOptions {
  provider?: string;
}

/** Writes the files into `dir` (created; it must be empty if it exists) and says what to do next. */
export async function adapterInitCommand(ctx: CommandContext, dir: string, options: AdapterInitOptions): Promise<ExitCode> {
  const target = resolve(process.cwd(), dir);
  const provider = options.provider ?? basename(target).toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^[^a-z]+/, '').replace(/_toolhub_adapter$|_adapter$/, '');
  if (!PROVIDER_NAME_PATTERN.test(provider)) {
    throw new CliUsageError(`Provider name ${JSON.stringify(provider)} must match ${PROVIDER_NAME_PATTERN.source}; pass one with --provider, e.g. --provider weather.`);
  }
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new CliUsageError(`${target} exists and is not empty; choose a new directory (toolhub adapter init <dir>).`);
  }
  const files = adapterFiles(provider);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(target, rel)), { recursive: true });
    writeFileSync(join(target, rel), text);
  }
  if (ctx.out.json) {
    ctx.out.document({ directory: target, provider, files: Object.keys(files).sort() });
    return EXIT_CODES.ok;
  }
  ctx.out.line(`Created adapter ${provider} in ${target} (${Object.keys(files).length} files).`);
  ctx.out.line(`Next: cd ${dir} && npm install && npm test; then NATS_URL=… npm start and npm run conformance.`);
  return EXIT_CODES.ok;
}
