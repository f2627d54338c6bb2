/** Runs the CLI's main() in this process against a test hub and captures what it prints. */
import { type CliIo, main } from '@toolhub/cli';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON document of --json. */
  json<T = Record<string, unknown>>(): T;
}

export function cliRunner(env: Record<string, string>, extra: Partial<CliIo> = {}) {
  return async (args: string[], io: Partial<CliIo> = {}): Promise<CliResult> => {
    let stdout = '';
    let stderr = '';
    const code = await main(args, {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env,
      columns: undefined,
      readStdin: async () => '',
      ...extra,
      ...io,
    });
    return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T };
  };
}
