/**
 * Tool names: each MCP tool becomes `<alias>_<tool>` under the contract's name rule
 * (`^[a-z][a-z0-9_]{0,63}$`) by the SDK's `assignToolNames` (unique, stable, never throws), plus
 * the alias rule and the include/exclude filters of this adapter.
 */
export { assignToolNames, namespacedName, type ToolNameMap } from '@toolhub/adapter-sdk';

/** Server aliases: a tool-name prefix, so the same alphabet, and short enough to leave room. */
export const ALIAS_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** A matcher for `include`/`exclude` globs (`*` any run of characters, `?` one character). */
export function globMatcher(patterns: readonly string[]): (name: string) => boolean {
  const regexes = patterns.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`));
  return (name) => regexes.some((r) => r.test(name));
}

/** True when a native tool name passes a server's include and exclude lists. */
export function toolFilter(include: readonly string[], exclude: readonly string[]): (native: string) => boolean {
  const inc = globMatcher(include);
  const exc = globMatcher(exclude);
  return (native) => (include.length === 0 || inc(native)) && !exc(native);
}
