/**
 * Where the CLI reads and writes. `main()` takes it as a parameter, so tests run the CLI in-process
 * and capture its output; the bin passes the real process streams.
 */

/** Something text can be written to (a process stream, or a test buffer). */
export interface TextSink {
  write(chunk: string): unknown;
}

/** The CLI's environment. Every field has a default taken from the current process. */
export interface CliIo {
  /** Command results (tables, tool output, the one JSON document of `--json`). @default process.stdout */
  stdout: TextSink;
  /** Errors, notes and hints. @default process.stderr */
  stderr: TextSink;
  /** Environment variables (TOOLHUB_ADDRESS, TOOLHUB_ADMIN_ADDRESS, USER). @default process.env */
  env: Readonly<Record<string, string | undefined>>;
  /** Reads all of standard input (for `--args -`). @default reads process.stdin */
  readStdin: () => Promise<string>;
  /** Terminal width: the widest column of a table is cut to fit it; undefined never cuts (pipes, files). @default process.stdout.columns when it is a TTY */
  columns: number | undefined;
  /** The clock, for "2 min ago". @default Date.now */
  now: () => number;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Fills the missing fields of `io` from the current process. */
export function withIoDefaults(io: Partial<CliIo> = {}): CliIo {
  return {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    readStdin: io.readStdin ?? readProcessStdin,
    columns: 'columns' in io ? io.columns : process.stdout.isTTY ? process.stdout.columns : undefined,
    now: io.now ?? Date.now,
  };
}
