/**
 * Compiling caller-supplied regular expressions with guards. JavaScript regexes backtrack, so a
 * pattern like `(a+)+$` can take exponential time; evaluation is synchronous and cannot be
 * interrupted. The guards: inputs are size-capped by the tools, and patterns that quantify a group
 * which itself contains a quantifier (the classic catastrophic shape) are refused. Overlapping
 * alternations such as `(a|a)*` are not detected.
 */
import { ToolHubError } from '@toolhub/contracts';

/** Flags a caller may pass; `g` is implied where needed. */
export const REGEX_FLAGS_PATTERN = /^[imsu]{0,4}$/;

function quantifierAt(p: string, i: number): boolean {
  const c = p[i];
  return c === '+' || c === '*' || (c === '{' && /^\{\d+(,\d*)?\}/.test(p.slice(i)));
}

/** True when a quantified group contains another quantifier, e.g. `(a+)+`, `(\w*\s?){2,}`, `((ab)*c)*`. */
export function hasNestedQuantifier(pattern: string): boolean {
  const groups: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') groups.push(false);
    else if (c === ')') {
      const quantifiedInside = groups.pop() ?? false;
      if (quantifiedInside && quantifierAt(pattern, i + 1)) return true;
      if (quantifiedInside && groups.length > 0) groups[groups.length - 1] = true;
    } else if (groups.length > 0 && (quantifierAt(pattern, i) || (c === '?' && pattern[i - 1] !== '('))) {
      groups[groups.length - 1] = true;
    }
  }
  return false;
}

/**
 * Compiles `pattern` with `flags` plus `g`.
 * @throws ToolHubError invalid_argument for syntax errors and for patterns with nested quantifiers.
 */
export function compileRegex(pattern: string, flags: string, field = '/pattern'): RegExp {
  if (hasNestedQuantifier(pattern)) {
    throw ToolHubError.invalidArgument(
      `pattern ${JSON.stringify(pattern)} repeats a group that already contains a repetition (like (a+)+), which can take exponential time; rewrite it without the nesting, e.g. (a+)+ → a+.`,
      [{ field, message: 'nested quantifier', expected: 'a regular expression without quantified groups that contain quantifiers', example: '"[\\\\w.+-]+@[\\\\w-]+\\\\.[\\\\w.]+"' }],
    );
  }
  try {
    return new RegExp(pattern, `${flags}g`);
  } catch (err) {
    throw ToolHubError.invalidArgument(`pattern is not a valid JavaScript regular expression: ${err instanceof Error ? err.message : String(err)}.`, [
      { field, message: 'invalid regular expression', expected: 'JavaScript RegExp syntax', example: '"\\\\d{4}-\\\\d{2}-\\\\d{2}"' },
    ]);
  }
}
