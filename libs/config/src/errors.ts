/** Local errors of @toolhub/config. */

/** Where the value behind a {@link ConfigIssue} came from. */
export type ConfigSource = 'override' | 'env' | 'default';

/** One problem with one setting (or, when `key` is absent, with a combination of settings). */
export interface ConfigIssue {
  /** Config key, e.g. `grpcPort`. */
  readonly key?: string;
  /** Environment variable the key is read from, e.g. `TOOLHUB_GRPC_PORT`. */
  readonly env?: string;
  /** Other environment variables involved in a cross-field problem. */
  readonly related?: readonly string[];
  /** Where the rejected value came from. */
  readonly source?: ConfigSource;
  /** The rejected value as given (truncated), `[REDACTED]` for secrets, absent when not set. */
  readonly value?: string;
  /** What was expected, in the schema's words. */
  readonly expected: string;
  /** The whole problem in one line, naming the environment variable. */
  readonly message: string;
}

/**
 * The configuration is invalid. Every problem found is in `issues` and in the message (one per
 * line), so an operator fixes them all in one go. Secret values never appear.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_config' as const;

  constructor(
    readonly issues: readonly ConfigIssue[],
    options?: { cause?: unknown },
  ) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super(`Invalid configuration (${count}):\n${issues.map((i) => `  - ${i.message}`).join('\n')}`, options);
  }
}

/** Type guard for {@link ConfigError} that follows `cause` chains. */
export function isConfigError(err: unknown): err is ConfigError {
  let current: unknown = err;
  for (let i = 0; i < 8 && current; i++) {
    if (current instanceof ConfigError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
