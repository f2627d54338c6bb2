/**
 * Local (non-wire) errors of @toolhub/mcp-adapter: mistakes in the configuration, reported when it
 * is loaded, never while an agent calls a tool. Failures of a call are always a `ToolHubError`
 * from '@toolhub/contracts'.
 */

import { findCause } from '@toolhub/contracts';

/** One problem in a configuration document, located by its path (`servers[1].url`). */
export interface McpConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** What went wrong while loading a configuration. */
export type McpConfigErrorCode =
  /** The file could not be read or is not valid YAML/JSON. */
  | 'unreadable'
  /** The document parsed but breaks the schema or a cross-field rule. */
  | 'invalid';

/**
 * Thrown by {@link parseMcpConfig} and {@link loadMcpConfig}. The message lists every issue at once,
 * by path; it never contains the values of `env` or `headers`.
 */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';

  constructor(
    readonly code: McpConfigErrorCode,
    message: string,
    readonly issues: readonly McpConfigIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The McpConfigError in `err` or its `cause` chain, if any. */
export function findMcpConfigError(err: unknown): McpConfigError | undefined {
  return findCause(err, (e): e is McpConfigError => e instanceof McpConfigError);
}
