/**
 * The CLI's exit codes: a closed set that scripts can branch on. Every ToolHub wire error code
 * maps to exactly one of them (see {@link exitCodeForError}).
 */
import type { ToolHubErrorCode } from '@toolhub/contracts';

/** Exit codes of `toolhub`. */
export const EXIT_CODES = Object.freeze({
  /** The command did what was asked. */
  ok: 0,
  /** `run`: the tool ran and reported a failure (RUN_STATUS_TOOL_ERROR); its output is printed. */
  toolError: 1,
  /** Bad command line: unknown command or option, missing or malformed argument. Nothing was sent. */
  usage: 2,
  /** A provider, tool, category or statistic does not exist (`not_found`). */
  notFound: 3,
  /** The server refused the input (`invalid_argument`): e.g. arguments that do not match the tool's schema. */
  invalidArgument: 4,
  /** ToolHub (or the provider behind it) could not be reached or did not answer in time: `unavailable`, `timeout`, `rate_limited`. Retrying later may help. */
  unavailable: 5,
  /** Anything else: `failed`, `failed_precondition` (e.g. a stale preload revision), `permission_denied`, `already_exists`, `internal`. */
  other: 6,
});

/** One of the values of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code for a ToolHub wire error code. */
export function exitCodeForError(code: ToolHubErrorCode): ExitCode {
  switch (code) {
    case 'not_found':
      return EXIT_CODES.notFound;
    case 'invalid_argument':
      return EXIT_CODES.invalidArgument;
    case 'unavailable':
    case 'timeout':
    case 'rate_limited':
      return EXIT_CODES.unavailable;
    default:
      return EXIT_CODES.other;
  }
}
