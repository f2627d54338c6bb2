/**
 * Local (non-wire) errors of @toolhub/local-tools: mistakes made by the code that builds tools,
 * reported when the tools are created, never while an agent calls them. Failures of a call are
 * always a `ToolHubError` from '@toolhub/contracts'.
 */

/** What went wrong while building tools. */
export type LocalToolsErrorCode =
  /** An options object has a bad value or a bad combination of values. */
  | 'invalid_options'
  /** A tool definition breaks a rule (name, path, schema without descriptions, bad example). */
  | 'invalid_definition';

/** Thrown by the factories and by {@link defineTool} for programming or configuration mistakes. */
export class LocalToolsError extends Error {
  override readonly name = 'LocalToolsError';

  constructor(
    readonly code: LocalToolsErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
