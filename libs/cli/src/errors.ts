/**
 * Local errors of the CLI: a mistake on the command line, found before anything is sent (exit
 * code 2). Wire errors from ToolHub arrive as the agent kit's ToolHubCallError and are kept apart.
 */

/** A command-line mistake (a missing or malformed argument); `hint` says how to write it instead. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
  readonly code = 'usage';

  constructor(
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `err` is a {@link CliUsageError}. */
export function isCliUsageError(err: unknown): err is CliUsageError {
  return err instanceof CliUsageError;
}
