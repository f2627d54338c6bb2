/** Errors of @toolhub/auth. Credential failures cross the wire as ToolHubError `unauthenticated`. */
import { ToolHubError } from '@toolhub/contracts';

/** Local configuration problems (a bad key file, grants file or JWT setting), raised at load time. */
export class AuthConfigError extends Error {
  override readonly name = 'AuthConfigError';
  constructor(
    readonly code: 'bad_key_file' | 'bad_grants_file' | 'bad_jwt_config' | 'bad_tls_config',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The wire error for missing or bad credentials. The message says what to send, never which part
 * of a presented secret was wrong.
 */
export function unauthenticated(message: string, cause?: unknown): ToolHubError {
  return new ToolHubError('unauthenticated', message, { cause });
}
