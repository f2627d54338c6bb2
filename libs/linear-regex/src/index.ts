/**
 * @toolhub/linear-regex: regular expressions from callers and tool schemas, matched in time linear
 * in the input (RE2). Any new export added here becomes public API.
 */
export { compileLinear, LinearRegexError, re2Flags, toRe2Syntax, type LinearRegex } from './compile';
export { expandReplacement, matchAll, replaceMatches, type RegexMatch } from './match';
