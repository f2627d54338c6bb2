/**
 * Caller-supplied regular expressions for the text tools, compiled for RE2 (linear-time matching,
 * `@toolhub/linear-regex`): no pattern — `(a|a)*$`, `(a+)+$` — can hang the adapter. Flags keep
 * their JavaScript letters (`i`, `m`, `s`, `u`); matching is always by code point.
 */
import { ToolHubError } from '@toolhub/contracts';
import { compileLinear, LinearRegexError, type LinearRegex } from '@toolhub/linear-regex';

/** Flags a caller may pass; `g` is implied where needed. */
export const REGEX_FLAGS_PATTERN = /^[imsu]{0,4}$/;

/**
 * Compiles `pattern` with `flags`.
 * @throws ToolHubError invalid_argument for syntax errors and for features RE2 does not have.
 */
export function compileRegex(pattern: string, flags: string, field = '/pattern'): LinearRegex {
  try {
    return compileLinear(pattern, flags);
  } catch (err) {
    if (!(err instanceof LinearRegexError)) throw err;
    throw ToolHubError.invalidArgument(err.message, [
      { field, message: 'invalid regular expression', expected: 'RE2 syntax (JavaScript syntax without look-around or back-references)', example: '"\\\\d{4}-\\\\d{2}-\\\\d{2}"' },
    ]);
  }
}
