/** Local errors of @toolhub/create-adapter. */

/** Why a scaffold was not written: a provider name that breaks the rule, or a directory in use. */
export type CreateAdapterErrorCode = 'invalid_provider' | 'not_empty';

/** The scaffold was refused before any file was written; `message` says how to fix the call. */
export class CreateAdapterError extends Error {
  override readonly name = 'CreateAdapterError';

  constructor(
    readonly code: CreateAdapterErrorCode,
    message: string,
  ) {
    super(message);
  }
}
