/**
 * Structural limits on tool arguments, checked at the edge before anything is routed: depth and
 * non-plain values. Schema validation and repair happen against the tool's own schema later.
 */
import { ToolHubError } from '@toolhub/contracts';

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
