#!/usr/bin/env node
/** The `create-adapter` executable (see cli.ts). */
import { createAdapterMain } from './cli';

createAdapterMain(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), cwd: process.cwd() }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`create-adapter: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
