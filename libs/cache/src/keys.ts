/**
 * Cache key layout of the dispatcher. Every key of a provider starts with {@link providerKeyPrefix},
 * so `deleteByPrefix(providerKeyPrefix(p))` drops all of that provider's entries at once.
 *
 * ```
 * v1:<provider>:info:<name>@<version>     tool info (version empty when unknown)
 * v1:<provider>:list:<path>:<r|1>         ListTools result, recursive or one level
 * ```
 * Segments are escaped (`%`, `:`, `@`, whitespace and control characters as `%XX`), so a segment can
 * never run into the next one: `providerKeyPrefix('a')` is not a prefix of any key of provider `a:b`.
 * `v1` is the layout version; bump it when the key layout or the stored encoding changes, so old
 * entries are simply never read again.
 */

const LAYOUT_VERSION = 'v1';
const encoder = new TextEncoder();

/** Prefix shared by every key of `provider`; evict it when the provider's catalog changes. */
export function providerKeyPrefix(provider: string): string {
  return `${LAYOUT_VERSION}:${escapeSegment(provider)}:`;
}

/** Prefix of every cached version of one tool's info; evict it on `tool.invalidated`. */
export function toolInfoKeyPrefix(provider: string, name: string): string {
  return `${providerKeyPrefix(provider)}info:${escapeSegment(name)}@`;
}

/** Key of one tool's info; `version` (the content hash) is optional. */
export function toolInfoKey(provider: string, name: string, version = ''): string {
  return toolInfoKeyPrefix(provider, name) + escapeSegment(version);
}

/** Prefix of every cached `ListTools` result of `provider`. */
export function toolListKeyPrefix(provider: string): string {
  return `${providerKeyPrefix(provider)}list:`;
}

/**
 * Key of one `ListTools(provider, path, recursive)` result. Leading, trailing and doubled slashes
 * of `path` are ignored (`/file/read/` and `file/read` share an entry; `''` is the root).
 */
export function toolListKey(provider: string, path: string, recursive: boolean): string {
  const normalized = path.split('/').filter((part) => part !== '').join('/');
  return `${toolListKeyPrefix(provider)}${escapeSegment(normalized)}:${recursive ? 'r' : '1'}`;
}

const NEEDS_ESCAPE = /[%:@\s\p{Cc}]/u;
const ESCAPED = new RegExp(NEEDS_ESCAPE.source, 'gu');

// Escapes only what would make keys ambiguous or awkward in redis-cli; `/` stays readable. Nearly
// every segment has nothing to escape: a test without a replacement callback settles that (the
// dispatcher builds a key per RunTool for its cache lookup).
function escapeSegment(segment: string): string {
  if (segment === '' || !NEEDS_ESCAPE.test(segment)) return segment;
  return segment.replace(ESCAPED, (ch) => {
    const bytes = encoder.encode(ch);
    return Array.from(bytes, (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  });
}
