/**
 * Naming rules of the contract: tool names every LLM API accepts, provider names safe inside NATS
 * subjects, category paths, and tool ids (`<provider>:<name>`).
 */
import { distance } from 'fastest-levenshtein';

import { ToolHubError } from './errors';

/** Tool names: what OpenAI, Anthropic and Gemini all accept. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Provider names: appear as one NATS subject token, so no `.`, `*`, `>` or spaces. */
export const PROVIDER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
/** One segment of a category path. */
export const PATH_SEGMENT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Deepest category path accepted. */
export const MAX_PATH_DEPTH = 8;

/** True when `name` obeys {@link TOOL_NAME_PATTERN}. */
export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** @throws ToolHubError invalid_argument naming the rule and a corrected suggestion. */
export function assertToolName(name: string, field = 'name'): void {
  if (isValidToolName(name)) return;
  const suggestion = toToolName(name);
  throw ToolHubError.invalidArgument(
    `Tool name ${JSON.stringify(name)} is invalid: names must match ${TOOL_NAME_PATTERN.source} ` +
      `(lowercase letter first, then lowercase letters, digits or _; at most 64 characters)` +
      (suggestion ? `; try ${JSON.stringify(suggestion)}.` : '.'),
    [{ field, message: 'does not match the tool name rule', expected: TOOL_NAME_PATTERN.source, example: JSON.stringify(suggestion || 'file_read') }],
  );
}

/** @throws ToolHubError invalid_argument when `provider` is empty or breaks {@link PROVIDER_NAME_PATTERN}. */
export function assertProviderName(provider: string, field = 'provider'): void {
  if (PROVIDER_NAME_PATTERN.test(provider)) return;
  const what = provider === '' ? 'is required' : `${JSON.stringify(provider)} is invalid`;
  throw ToolHubError.invalidArgument(
    `Provider ${what}: provider names match ${PROVIDER_NAME_PATTERN.source} (e.g. "local", "mcp", "cloud").`,
    [{ field, message: provider === '' ? 'required' : 'does not match the provider name rule', expected: PROVIDER_NAME_PATTERN.source, example: '"local"' }],
  );
}

/**
 * snake_case words of any identifier or phrase: accents dropped, camelCase and acronyms split,
 * every run of other characters one `_`. `getUserByID` → `get_user_by_id`; '' when nothing is left.
 */
export function snakeCase(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * Normalises a native name (camelCase, kebab-case, dotted, spaced) to the tool name rule:
 * `getUserByID` → `get_user_by_id`, `list-files` → `list_files`. Returns '' when nothing usable is left.
 * A leading digit gets a `t_` prefix; the result is cut to 64 characters.
 */
export function toToolName(native: string): string {
  let s = snakeCase(native);
  if (s === '') return '';
  if (!/^[a-z]/.test(s)) s = `t_${s}`;
  return s.slice(0, 64).replace(/_+$/, '');
}

/**
 * Normalises a category path: trims slashes and whitespace, collapses repeated slashes, lowercases.
 * `"/File//Read/"` → `"file/read"`; `""` and `"/"` → `""` (the root).
 * @throws ToolHubError invalid_argument for `.`/`..` segments, bad characters or too deep a path.
 */
export function normalizePath(path: string, field = 'path'): string {
  const segments = path.trim().toLowerCase().split('/').filter((s) => s !== '');
  const bad = segments.find((s) => !PATH_SEGMENT_PATTERN.test(s));
  if (bad !== undefined) {
    throw ToolHubError.invalidArgument(
      `Category path ${JSON.stringify(path)} is invalid: segment ${JSON.stringify(bad)} must match ${PATH_SEGMENT_PATTERN.source}. ` +
        'Use paths like "file" or "github/issues", as returned by tool_list.',
      [{ field, message: `bad segment ${JSON.stringify(bad)}`, expected: 'segments of a-z, 0-9, _ or -, separated by /', example: '"file"' }],
    );
  }
  if (segments.length > MAX_PATH_DEPTH) {
    throw ToolHubError.invalidArgument(`Category path ${JSON.stringify(path)} is ${segments.length} levels deep; at most ${MAX_PATH_DEPTH} are allowed.`, [
      { field, message: 'too deep', expected: `at most ${MAX_PATH_DEPTH} segments`, example: '"file"' },
    ]);
  }
  return segments.join('/');
}

/** True when `path` equals `ancestor` or lies below it (`""` is everyone's ancestor). */
export function isWithinPath(path: string, ancestor: string): boolean {
  return ancestor === '' || path === ancestor || path.startsWith(`${ancestor}/`);
}

/** The parent of a category path (`"a/b"` → `"a"`, `"a"` → `""`). */
export function parentPath(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** `<provider>:<name>`. */
export function toolId(provider: string, name: string): string {
  return `${provider}:${name}`;
}

/** Splits `<provider>:<name>`; undefined when `id` has no provider part. */
export function parseToolId(id: string): { provider: string; name: string } | undefined {
  const i = id.indexOf(':');
  if (i <= 0 || i === id.length - 1) return undefined;
  return { provider: id.slice(0, i), name: id.slice(i + 1) };
}

/**
 * Up to `limit` candidates closest to `input`, best first: substring matches, then small edit
 * distances (at most about 40% of the longer word). Used for "did you mean" in not_found errors.
 */
export function closestMatches(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = input.toLowerCase();
  if (needle === '') return [];
  const scored: Array<{ c: string; score: number }> = [];
  for (const c of candidates) {
    const hay = c.toLowerCase();
    const d = distance(needle, hay);
    const contains = hay.includes(needle) || needle.includes(hay);
    const maxLen = Math.max(needle.length, hay.length);
    if (!contains && d > Math.max(2, Math.ceil(maxLen * 0.4))) continue;
    scored.push({ c, score: (contains ? 0 : 1) * 1000 + d * 10 + Math.abs(hay.length - needle.length) });
  }
  scored.sort((a, b) => a.score - b.score || a.c.localeCompare(b.c));
  return [...new Set(scored.map((s) => s.c))].slice(0, limit);
}
