/**
 * Parameter-name aliases: adapters rename source parameters to snake_case (`oldText` →
 * `old_text`), while a model may still send the source's names — from a description, from memory
 * of the upstream API, or from an MCP client that knew the server. A top-level argument that the
 * schema does not declare, whose snake_case form is a declared property the call did not set, is
 * renamed to it and reported as an applied fix, instead of failing with "missing required property".
 */
import { type AppliedFix, snakeCase } from '@toolhub/contracts';

import { childPointer, isPlainObject, type JsonObject } from './json';

/** Most undeclared arguments a call may have for the alias pass to run. */
const MAX_ALIAS_CANDIDATES = 64;

/** Declared top-level property names of a schema, by snake_case form (only forms that map to one name). */
export type AliasTargets = ReadonlyMap<string, string>;

/**
 * The declared top-level properties an alias may be renamed to; empty when the schema has none
 * whose name is its own snake_case form (then no call pays for the alias pass).
 */
export function findAliasTargets(root: JsonObject): AliasTargets {
  const props = isPlainObject(root['properties']) ? Object.keys(root['properties']) : [];
  const targets = new Map<string, string>();
  for (const name of props) if (snakeCase(name) === name) targets.set(name, name);
  return targets;
}

/**
 * Renames aliased top-level arguments (`holder.root` becomes a new object); returns old → new names. Only names made of letters, digits and `_`, `-`,
 * `.` or spaces are taken as aliases: `StartTime<` and `StartTime` are different parameters, so a
 * name with other symbols is never folded onto a plain one.
 */
export function applyNameAliases(holder: { root: unknown }, targets: AliasTargets, fixes: AppliedFix[]): ReadonlyMap<string, string> | undefined {
  const args = holder.root;
  if (targets.size === 0 || !isPlainObject(args)) return undefined;
  const keys = Object.keys(args);
  // Bounded work: a call with far more arguments than the schema has names is not a naming slip
  // (snakeCase of 10,000 unknown keys cost ~17 ms); it fails validation as it is.
  if (keys.length > targets.size + MAX_ALIAS_CANDIDATES) return undefined;
  let renamed: Array<[string, string]> | undefined;
  for (const key of keys) {
    if (targets.has(key) || !/^[\p{L}\p{N}_. -]+$/u.test(key)) continue;
    const target = targets.get(snakeCase(key));
    if (target === undefined || Object.hasOwn(args, target)) continue;
    (renamed ??= []).push([key, target]);
  }
  if (!renamed) return undefined;
  // Rebuilt in the original key order, so a renamed argument keeps its place.
  const map = new Map(renamed);
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(args)) {
    const to = map.get(k);
    if (to !== undefined && Object.hasOwn(out, to)) continue; // two aliases of one name: the first wins, the rest fail validation as unknown
    out[to ?? k] = v;
  }
  for (const [from, to] of renamed) {
    if (out[to] !== args[from]) continue;
    fixes.push({ field: childPointer('', to), description: `renamed the argument ${JSON.stringify(from)} to ${JSON.stringify(to)}, the parameter's name in the tool's schema` });
  }
  holder.root = out;
  return map;
}

/** `args` with the renamed keys (for comparing before and after validation filled defaults). */
export function renameKeys(args: unknown, renamed: ReadonlyMap<string, string>): unknown {
  if (!isPlainObject(args)) return args;
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [renamed.get(k) ?? k, v]));
}
