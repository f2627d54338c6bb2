/**
 * Path normalisation: which properties hold file-system paths (found once per compiled schema) and
 * the normalisation itself. Purely lexical: `..` is never resolved, nothing touches the disk.
 */
import type { AppliedFix } from '@toolhub/contracts';

import { childPointer, isPlainObject, type JsonObject, preview } from './json';
import { resolveLocalRef } from './schema-walk';

/** A data location: property names, or `null` for "every item of an array". */
export type PathTarget = ReadonlyArray<string | null>;

const PATH_NAME = /(^|[_-])(path|paths|file|files|filepath|filepaths|filename|filenames|dir|dirs|dirname|dirpath|directory|directories|folder|folders)$/;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const NEEDS_WORK = /\\|\/\/|(^|\/)\.(\/|$)|^\s|\s$/;
const MAX_TARGETS = 200;
const MAX_WALK_DEPTH = 12;

/** True for names like `path`, `file`, `output_dir`, `sourceFilePath`, `paths` — not `profile`. */
export function isPathLikeName(name: string): boolean {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return PATH_NAME.test(snake);
}

function allowsString(schema: JsonObject): boolean {
  const type = schema['type'];
  if (type === undefined) return !isPlainObject(schema['properties']) && schema['items'] === undefined;
  return type === 'string' || (Array.isArray(type) && type.includes('string'));
}

/**
 * A path-valued string schema: `format: "path"`, or a path-like property name on a string with no
 * constraint normalisation could break (`pattern`, `enum`, `const`, another `format`).
 */
function isPathSchema(schema: JsonObject, nameHint: string | undefined): boolean {
  if (schema['format'] === 'path') return true;
  if (nameHint === undefined || !isPathLikeName(nameHint) || !allowsString(schema)) return false;
  return !['pattern', 'enum', 'const', 'format', 'contentEncoding', 'contentMediaType'].some((k) => Object.hasOwn(schema, k));
}

/** Every data location in `root` whose value is a path, by walking properties, items and combinators. */
export function findPathTargets(root: JsonObject): PathTarget[] {
  const found = new Map<string, PathTarget>();
  const visit = (schema: unknown, target: Array<string | null>, nameHint: string | undefined, depth: number, refs: ReadonlySet<string>): void => {
    if (!isPlainObject(schema) || depth > MAX_WALK_DEPTH || found.size >= MAX_TARGETS) return;
    const ref = schema['$ref'];
    if (typeof ref === 'string' && !refs.has(ref)) visit(resolveLocalRef(root, ref), target, nameHint, depth + 1, new Set([...refs, ref]));
    if (isPathSchema(schema, nameHint)) found.set(JSON.stringify(target), [...target]);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) for (const branch of branches) visit(branch, target, nameHint, depth + 1, refs);
    }
    const properties = schema['properties'];
    if (isPlainObject(properties)) {
      for (const [name, sub] of Object.entries(properties)) visit(sub, [...target, name], name, depth + 1, refs);
    }
    const items = schema['items'];
    // Items of `paths: string[]` inherit the array's name.
    if (isPlainObject(items)) visit(items, [...target, null], nameHint, depth + 1, refs);
    const tuple = Array.isArray(items) ? items : schema['prefixItems'];
    if (Array.isArray(tuple)) tuple.forEach((sub, i) => visit(sub, [...target, String(i)], nameHint, depth + 1, refs));
  };
  visit(root, [], undefined, 0, new Set());
  return [...found.values()];
}

/**
 * The normalised form of a path: trims whitespace, turns backslashes into slashes, collapses
 * repeated slashes (a leading `//` network path is kept) and drops `.` segments. `..` is never
 * resolved. URLs, multi-line text and very long values are returned unchanged (not paths).
 */
export function normalisePath(raw: string): string {
  // Fast path for the common, already clean path: nothing to trim, no backslash, no `//`, no `.` segment.
  if (!NEEDS_WORK.test(raw)) return raw;
  if (raw.length > 4096 || /[\r\n\0]/.test(raw)) return raw;
  const trimmed = raw.trim();
  if (URL_LIKE.test(trimmed)) return raw;
  const p = trimmed.replace(/\\/g, '/');
  const lead = p.startsWith('//') && !p.startsWith('///') ? '//' : p.startsWith('/') ? '/' : '';
  const rest = p.slice(lead.length);
  const segments = rest.split('/').filter((s) => s !== '' && s !== '.');
  const trailing = rest.length > 0 && p.endsWith('/') && segments.length > 0;
  const out = lead + segments.join('/') + (trailing ? '/' : '');
  return out === '' && trimmed !== '' ? '.' : out;
}

/** Normalises every path found at `targets` inside `holder.root`, in place, and reports each change. */
export function applyPathNormalisation(holder: { root: unknown }, targets: readonly PathTarget[], fixes: AppliedFix[]): void {
  for (const target of targets) walk(holder as unknown as JsonObject, 'root', target, 0, '', fixes);
}

function walk(container: JsonObject | unknown[], key: string | number, target: PathTarget, index: number, pointer: string, fixes: AppliedFix[]): void {
  const value = (container as Record<string | number, unknown>)[key];
  if (index === target.length) {
    if (typeof value !== 'string') return;
    const normalised = normalisePath(value);
    if (normalised === value) return;
    (container as Record<string | number, unknown>)[key] = normalised;
    fixes.push({ field: pointer || '/', description: `normalised path ${preview(value)} to ${preview(normalised)} (slashes, "." segments, whitespace; ".." is kept)` });
    return;
  }
  const token = target[index];
  if (token === null) {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) walk(value, i, target, index + 1, childPointer(pointer, i), fixes);
  } else if (token !== undefined) {
    if (isPlainObject(value) && Object.hasOwn(value, token)) walk(value, token, target, index + 1, childPointer(pointer, token), fixes);
    else if (Array.isArray(value) && /^\d+$/.test(token) && Number(token) < value.length) walk(value, Number(token), target, index + 1, childPointer(pointer, token), fixes);
  }
}
