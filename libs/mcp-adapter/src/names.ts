/**
 * Tool names: each MCP tool becomes `<alias>_<tool>` under the contract's name rule
 * (`^[a-z][a-z0-9_]{0,63}$`), with the mapping kept both ways. Names that come out too long, or the
 * same as another tool's, are cut and given a short hash of the native name, so they stay unique
 * and stable from one start to the next.
 */
import { toSnakeCase } from '@toolhub/adapter-sdk';
import { createHash } from 'node:crypto';

/** Server aliases: a tool-name prefix, so the same alphabet, and short enough to leave room. */
export const ALIAS_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

const MAX_NAME = 64;
const HASH_LENGTH = 8;

/**
 * The full (uncut) normalised `<alias>_<tool>` name; undefined when the native name has no usable
 * character (a name in another script), which then gets `<alias>_tool_<hash8>`.
 */
export function namespacedName(alias: string, native: string): string | undefined {
  const tool = toSnakeCase(native);
  return /^[a-z0-9_]+$/.test(tool) ? `${alias}_${tool}` : undefined;
}

function hashOf(native: string, salt: number): string {
  return createHash('sha256').update(salt === 0 ? native : `${native}\u0000${salt}`).digest('hex').slice(0, HASH_LENGTH);
}

function withHash(base: string, native: string, salt: number): string {
  const head = base.slice(0, MAX_NAME - HASH_LENGTH - 1).replace(/_+$/, '');
  return `${head}_${hashOf(native, salt)}`;
}

/** Both directions of one server's name mapping. */
export interface ToolNameMap {
  /** native MCP name → ToolHub name */
  readonly toName: ReadonlyMap<string, string>;
  /** ToolHub name → native MCP name */
  readonly toNative: ReadonlyMap<string, string>;
}

/**
 * Assigns ToolHub names to the tools of one server. Deterministic for a given set of native names:
 * a native name that is already in normal form keeps the plain name, then the rest in sorted order;
 * whoever comes later on a clash, or is longer than 64 characters, gets `<cut>_<hash8>`.
 */
export function assignToolNames(alias: string, natives: Iterable<string>): ToolNameMap {
  const toName = new Map<string, string>();
  const toNative = new Map<string, string>();
  const unique = [...new Set(natives)].sort();
  const exact = unique.filter((n) => namespacedName(alias, n) === `${alias}_${n}`);
  const rest = unique.filter((n) => !exact.includes(n));
  for (const native of [...exact, ...rest]) {
    const full = namespacedName(alias, native);
    const base = full ?? `${alias}_tool`;
    let name = full !== undefined && full.length <= MAX_NAME ? full : withHash(base, native, 0);
    for (let salt = 1; toNative.has(name); salt++) name = withHash(base, native, salt);
    toName.set(native, name);
    toNative.set(name, native);
  }
  return { toName, toNative };
}

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
