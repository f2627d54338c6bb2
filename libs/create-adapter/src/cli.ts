/**
 * `create-adapter <dir> [--provider <name>] [--json]`, run by `npm create @toolhub/adapter <dir>`
 * (npm maps `@toolhub/adapter` to this package) or `npx @toolhub/create-adapter <dir>`.
 */
import { parseArgs } from 'node:util';

import { createAdapter } from './create';
import { CreateAdapterError } from './errors';

export interface CreateAdapterIo {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
}

const USAGE = `Usage: npm create @toolhub/adapter <dir> -- [--provider <name>] [--json]
       npx @toolhub/create-adapter <dir> [--provider <name>] [--json]
Writes a ToolHub adapter project into <dir> (new or empty): the @toolhub SDK packages, one tool,
a unit test, a Dockerfile and a CI workflow running the conformance kit.
`;

/** Exit codes: 0 written, 2 a usage error (nothing written). */
export async function createAdapterMain(argv: string[], io: CreateAdapterIo): Promise<number> {
  let values: { provider?: string; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { provider: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    io.err(`create-adapter: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    io.err(`create-adapter: give exactly one directory to create, e.g. my-adapter (got ${positionals.length}).\n${USAGE}`);
    return 2;
  }
  const dir = positionals[0]!;
  try {
    const created = createAdapter(dir, { cwd: io.cwd, ...(values.provider !== undefined ? { provider: values.provider } : {}) });
    if (values.json) {
      io.out(`${JSON.stringify(created)}\n`);
    } else {
      io.out(`Created adapter ${created.provider} in ${created.directory} (${created.files.length} files).\n`);
      io.out(`Next: cd ${dir} && npm install && npm test; then NATS_URL=… npm start and npm run conformance.\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof CreateAdapterError) {
      io.err(`create-adapter: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
