/**
 * Local (non-wire) errors of @toolhub/cloud-adapter: mistakes in the configuration or in an OpenAPI
 * document, reported at start-up, never while an agent calls a tool. Failures of a call are always
 * a `ToolHubError` from '@toolhub/contracts'.
 */

import { findCause } from '@toolhub/contracts';

/** One problem, located by its path in the configuration (`documents[1].auth.tokenEnv`). */
export interface CloudConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** What went wrong while loading a configuration or its documents. */
export type CloudConfigErrorCode =
  /** The configuration file could not be read or is not valid YAML/JSON. */
  | 'unreadable'
  /** The configuration parsed but breaks the schema or a cross-field rule. */
  | 'invalid'
  /** An OpenAPI document could not be read, parsed or resolved, or a credential variable is unset. */
  | 'document';

/**
 * Thrown by {@link parseCloudConfig}, {@link loadCloudConfig} and {@link createCloudAdapter}. The
 * message lists every issue at once, by path; it never contains a credential's value.
 */
export class CloudConfigError extends Error {
  override readonly name = 'CloudConfigError';

  constructor(
    readonly code: CloudConfigErrorCode,
    message: string,
    readonly issues: readonly CloudConfigIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The CloudConfigError in `err` or its `cause` chain, if any. */
export function findCloudConfigError(err: unknown): CloudConfigError | undefined {
  return findCause(err, (e): e is CloudConfigError => e instanceof CloudConfigError);
}

/** Formats a list of issues as the message of a CloudConfigError. */
export function issuesMessage(title: string, issues: readonly CloudConfigIssue[]): string {
  const lines = issues.map((i) => `  - ${i.path ? `${i.path}: ` : ''}${i.message}`);
  return `${title} (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${lines.join('\n')}`;
}
