/** `toolhub adapter init <dir>`: scaffolds an adapter repository (the files of @toolhub/create-adapter). */
import { createAdapter, CreateAdapterError } from '@toolhub/create-adapter';

import type { CommandContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

export interface AdapterInitOptions {
  provider?: string;
}

/** Writes the files into `dir` (created; it must be empty if it exists) and says what to do next. */
export async function adapterInitCommand(ctx: CommandContext, dir: string, options: AdapterInitOptions): Promise<ExitCode> {
  let created;
  try {
    created = createAdapter(dir, options.provider !== undefined ? { provider: options.provider } : {});
  } catch (err) {
    if (err instanceof CreateAdapterError) throw new CliUsageError(err.code === 'not_empty' ? `${err.message.replace(/\.$/, '')} (toolhub adapter init <dir>).` : err.message);
    throw err;
  }
  if (ctx.out.json) {
    ctx.out.document({ directory: created.directory, provider: created.provider, files: created.files });
    return EXIT_CODES.ok;
  }
  ctx.out.line(`Created adapter ${created.provider} in ${created.directory} (${created.files.length} files).`);
  ctx.out.line(`Next: cd ${dir} && npm install && npm test; then NATS_URL=… npm start and npm run conformance.`);
  return EXIT_CODES.ok;
}
