/**
 * Compiling regular expressions for linear-time matching with RE2 (`re2js`, a pure-JavaScript port:
 * no native build, no download). Patterns arrive in JavaScript/JSON Schema syntax; the few escapes
 * RE2 spells differently are translated, and what RE2 cannot run in linear time (look-around,
 * back-references) is refused with a reason.
 */
import { RE2JS } from 're2js';

/** A compiled pattern (an RE2JS instance). */
export type LinearRegex = RE2JS;

/** Why a pattern could not be compiled, with a hint an LLM or a person can act on. */
export class LinearRegexError extends Error {
  override readonly name = 'LinearRegexError';
  readonly code = 'invalid_pattern';

  constructor(
    readonly pattern: string,
    readonly detail: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(`pattern ${JSON.stringify(pattern)} is not a valid RE2 regular expression: ${detail}.${hint ? ` ${hint}` : ''}`, options);
  }
}

/**
 * Rewrites JavaScript escapes RE2 spells differently: `\uXXXX` and `\u{X…}` become `\x{…}`,
 * `\cX` becomes `\x{…}`, and `\/` (common in patterns copied from JS literals) becomes `/`.
 */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== '\\' || i + 1 >= pattern.length) {
      out += c;
      continue;
    }
    const next = pattern[i + 1] as string;
    const rest = pattern.slice(i + 2);
    let m: RegExpExecArray | null;
    if (next === 'u' && (m = /^\{([0-9a-fA-F]{1,6})\}/.exec(rest))) {
      out += `\\x{${m[1]}}`;
      i += 1 + m[0].length;
    } else if (next === 'u' && (m = /^[0-9a-fA-F]{4}/.exec(rest))) {
      out += `\\x{${m[0]}}`;
      i += 5;
    } else if (next === 'c' && /^[A-Za-z]/.test(rest)) {
      out += `\\x{${(rest.charCodeAt(0) % 32).toString(16)}}`;
      i += 2;
    } else if (next === '/') {
      out += '/';
      i += 1;
    } else {
      out += c + next;
      i += 1;
    }
  }
  return out;
}

/** The JavaScript flags RE2 understands (`i`, `m`, `s`; `u` is implied, `g`/`y` are the caller's business). */
export function re2Flags(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

function unsupportedHint(pattern: string): string {
  if (/\(\?<?[=!]/.test(pattern)) return 'Look-ahead and look-behind ((?=…), (?!…), (?<=…), (?<!…)) are not supported: match more and pick a capture group instead.';
  if (/\\[1-9]|\\k</.test(pattern)) return 'Back-references (\\1, \\k<name>) are not supported: capture both parts and compare them afterwards.';
  return '';
}

/**
 * Compiles `pattern` (JavaScript syntax) with JavaScript-style `flags` for linear-time matching.
 * @throws LinearRegexError for syntax errors and for features RE2 does not have.
 */
export function compileLinear(pattern: string, flags = ''): LinearRegex {
  try {
    return RE2JS.compile(toRe2Syntax(pattern), re2Flags(flags));
  } catch (err) {
    const detail = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '');
    throw new LinearRegexError(pattern, detail, unsupportedHint(pattern), { cause: err });
  }
}
