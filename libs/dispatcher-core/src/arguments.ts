/**
 * Structural limits of a run, checked at the edge before anything is routed: the nesting depth of
 * the arguments and the length of the identifier fields. Schema validation and repair happen
 * against the tool's own schema later.
 */
import { type RunToolRequest, ToolHubError } from '@toolhub/contracts';

/**
 * @throws ToolHubError invalid_argument when `args` nests deeper than `maxDepth`.
 */
export function checkArgumentDepth(args: Record<string, unknown>, maxDepth: number): void {
  // Iterative walk: a hostile, deeply nested value must not blow the stack here.
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: args, depth: 1, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxDepth) {
      throw ToolHubError.invalidArgument(`Arguments nest deeper than the limit of ${maxDepth} levels (at ${path || '/'}); flatten the input.`, [
        { field: path || '/', message: `nesting depth exceeds ${maxDepth}`, expected: `at most ${maxDepth} levels of objects/arrays` },
      ]);
    }
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [k, v] of entries) stack.push({ value: v, depth: depth + 1, path: `${path}/${k}` });
  }
}

/** Longest idempotency key, caller id and expected version: identifiers, not payloads. */
export const MAX_RUN_STRING_CHARS = 256;

/**
 * Bounds the identifier fields of a run. Adapters remember idempotency keys (10,000 of them by
 * default), and callers key the per-caller limit and statistics: a megabyte "key" is never meant.
 * @throws ToolHubError invalid_argument naming the field.
 */
export function checkRunStrings(req: Pick<RunToolRequest, 'idempotencyKey' | 'caller' | 'expectedVersion'>): void {
  const fields = [
    ['idempotency_key', req.idempotencyKey, 'a UUID'],
    ['caller', req.caller, 'an agent id such as "agent-7"'],
    ['expected_version', req.expectedVersion, 'the version from tool_info'],
  ] as const;
  for (const [field, value, what] of fields) {
    if (value.length > MAX_RUN_STRING_CHARS) {
      throw ToolHubError.invalidArgument(`${field} is ${value.length} characters long; the limit is ${MAX_RUN_STRING_CHARS}. Send ${what}.`, [
        { field, message: 'too long', expected: `at most ${MAX_RUN_STRING_CHARS} characters` },
      ]);
    }
  }
}
