/**
 * Tool names from the wild: any source name (camelCase, kebab-case, dotted, spaced, control
 * characters, another script, empty, 300 characters) becomes a legal ToolHub name
 * (`^[a-z][a-z0-9_]{0,63}$`), unique within its set and stable from one start to the next. Never
 * throws: the MCP and cloud adapters — and any team with real tool names — share this one mapping.
 */
import { snakeCase } from '@toolhub/contracts';
import { createHash } from 'node:crypto';

const MAX_NAME = 64;
const HASH_LENGTH = 8;

/** Both directions of one set's name mapping. */
export interface ToolNameMap {
  /** source name → ToolHub name */
  readonly toName: ReadonlyMap<string, string>;
  /** ToolHub name → source name */
  readonly toNative: ReadonlyMap<string, string>;
}

/**
 * The full (uncut) `<prefix>_<snake_case source name>`; undefined when the source name has no
 * usable character (a name in another script, only symbols, empty), which then gets a hash.
 * Without a prefix, a name that starts with a digit gets `t_`.
 */
export function namespacedName(prefix: string, native: string): string | undefined {
  const tail = snakeCase(native);
  if (tail === '') return undefined;
  if (prefix) return `${prefix}_${tail}`;
  return /^[a-z]/.test(tail) ? tail : `t_${tail}`;
}

function hashOf(native: string, salt: number): string {
  return createHash('sha256').update(salt === 0 ? native : `${native}\u0000${salt}`).digest('hex').slice(0, HASH_LENGTH);
}

function withHash(base: string, native: string, salt: number): string {
  const head = base.slice(0, MAX_NAME - HASH_LENGTH - 1).replace(/_+$/, '');
  return `${head}_${hashOf(native, salt)}`;
}

/** A prefix under the name rule (an alias): snake_case, a letter first, at most 32 characters; '' stays ''. */
function cleanPrefix(prefix: string): string {
  const s = snakeCase(prefix);
  if (s === '') return '';
  return (/^[a-z]/.test(s) ? s : `t_${s}`).slice(0, 32).replace(/_+$/, '');
}

/**
 * Assigns ToolHub names to one set of source names (the tools of one server or document), each
 * prefixed `<prefix>_` when a prefix is given. Deterministic for a given set, whatever its order:
 * source names already in normal form keep their plain name first, then names that fit in 64
 * characters, then the rest, each group in sorted order; a later name that clashes, one longer than
 * 64 characters, or one without usable characters gets `<cut>_<hash8>` of its source name
 * (`<prefix>_tool_<hash8>` for the last kind). Duplicate source names map to one name.
 */
export function assignToolNames(prefix: string, natives: Iterable<string>): ToolNameMap {
  const p = cleanPrefix(prefix);
  const toName = new Map<string, string>();
  const toNative = new Map<string, string>();
  const unique = [...new Set(natives)].sort();
  const full = new Map(unique.map((n) => [n, namespacedName(p, n)] as const));
  const exact = (n: string): boolean => full.get(n) === (p ? `${p}_${n}` : n);
  const fits = (n: string): boolean => (full.get(n)?.length ?? MAX_NAME + 1) <= MAX_NAME;
  const ordered = [...unique.filter(exact), ...unique.filter((n) => !exact(n) && fits(n)), ...unique.filter((n) => !exact(n) && !fits(n))];
  for (const native of ordered) {
    const f = full.get(native);
    const base = f ?? (p ? `${p}_tool` : 'tool');
    let name = f !== undefined && f.length <= MAX_NAME ? f : withHash(base, native, 0);
    for (let salt = 1; toNative.has(name); salt++) name = withHash(base, native, salt);
    toName.set(native, name);
    toNative.set(name, native);
  }
  return { toName, toNative };
}

/**
 * Rewrites a description so it names parameters as the schema does: each renamed parameter's
 * source name (`oldText`), where it stands as a whole word or in backticks/quotes, becomes its
 * schema name (`old_text`). Names of one character or common words are left alone.
 */
export function renameParamsInText(text: string, renames: ReadonlyArray<{ readonly native: string; readonly name: string }>): string {
  let out = text;
  const seen = new Set<string>();
  // Longest first, so `pageSize` is not rewritten inside `pageSizeMax`'s match.
  for (const { native, name } of [...renames].sort((a, b) => b.native.length - a.native.length)) {
    if (native === name || seen.has(native) || native.length < 2 || !/[A-Z\-. ]|[^\x20-\x7e]/.test(native) || /\s/.test(native)) continue;
    seen.add(native);
    const escaped = native.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\w.{/-])${escaped}(?![\\w}-])`, 'g'), name);
  }
  return out;
}
