/**
 * Identifier fields of a run (idempotency key, caller, expected version) are identifiers, not
 * payloads. Adapters remember idempotency keys (10,000 by default) and callers key the per-caller
 * limit and the statistics: a megabyte "key" is never meant. Checked by the dispatcher at the gRPC
 * edge and by every adapter for requests that reach it over the bus directly.
 */
import { ToolHubError } from './errors';

/** Longest idempotency key, caller id and expected version. */
export const MAX_RUN_IDENTIFIER_CHARS = 256;

/** The identifier fields of a run request; those a request does not have are left out. */
export interface RunIdentifiers {
  idempotencyKey?: string;
  caller?: string;
  expectedVersion?: string;
}

const FIELDS = [
  ['idempotencyKey', 'idempotency_key', 'a UUID'],
  ['caller', 'caller', 'an agent id such as "agent-7"'],
  ['expectedVersion', 'expected_version', 'the version from tool_info'],
] as const;

/** @throws ToolHubError invalid_argument naming the first field longer than {@link MAX_RUN_IDENTIFIER_CHARS}. */
export function assertRunIdentifiers(req: RunIdentifiers): void {
  for (const [key, field, what] of FIELDS) {
    const value = req[key] ?? '';
    if (value.length > MAX_RUN_IDENTIFIER_CHARS) {
      throw ToolHubError.invalidArgument(`${field} is ${value.length} characters long; the limit is ${MAX_RUN_IDENTIFIER_CHARS}. Send ${what}.`, [
        { field, message: 'too long', expected: `at most ${MAX_RUN_IDENTIFIER_CHARS} characters` },
      ]);
    }
  }
}
