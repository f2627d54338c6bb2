#!/usr/bin/env node
/** The `toolhub-adapter-conformance` executable (see cli.ts for the options). */
import { conformanceMain } from './cli';

conformanceMain(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`toolhub-adapter-conformance: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
