#!/usr/bin/env node
/**
 * The `toolhub` executable: `npm run toolhub -- <command>` or `npx tsx libs/cli/src/bin.ts <command>`.
 * Sets the exit code and lets Node exit on its own once the gRPC channels are closed, so output
 * piped to another program is never cut short.
 */
import { main } from './program';

// `toolhub ls -r | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`toolhub: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 6;
  },
);
