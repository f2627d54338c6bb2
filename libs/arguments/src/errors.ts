/**
 * Local errors of @toolhub/arguments. Problems with a tool's *schema* are the tool's fault, not the
 * caller's, so they never become a wire error: the tool runs unvalidated and the problem is
 * reported to the operator through `onSchemaProblem`. Problems with the *arguments* are wire errors
 * (`ToolHubError` invalid_argument from @toolhub/contracts).
 */

import { findCause } from '@toolhub/contracts';

/** Why a schema was not used, or was slow to compile. */
export type SchemaProblemCode = 'schema_invalid' | 'schema_too_large' | 'schema_too_deep' | 'slow_compile';

/** A tool's schema could not be compiled, or was refused before compiling. */
export class SchemaCompileError extends Error {
  override readonly name = 'SchemaCompileError';

  constructor(
    readonly code: Exclude<SchemaProblemCode, 'slow_compile'>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What `onSchemaProblem` receives, once per compile of one tool version. */
export interface SchemaProblem {
  toolId: string;
  version: string;
  code: SchemaProblemCode;
  /** For people: what went wrong and what happens now. */
  message: string;
  /** True when the tool now runs without argument validation. */
  validationDisabled: boolean;
  /** How long compiling took (0 when refused before compiling). */
  compileMs: number;
  /** The underlying error, if any. */
  error?: SchemaCompileError;
}

/** Finds a SchemaCompileError in `err` or its `cause` chain. */
export function findSchemaCompileError(err: unknown): SchemaCompileError | undefined {
  return findCause(err, (e): e is SchemaCompileError => e instanceof SchemaCompileError);
}
