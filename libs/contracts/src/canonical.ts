/**
 * Byte-stable serialisation and content hashes. Tool versions and preload fingerprints must not
 * change when only key order changes, or prompt caches and tool caches go cold for nothing.
 */
import { createHash } from 'node:crypto';

import { configure } from 'safe-stable-stringify';

/**
 * Deepest level serialised; deeper values are written as `"[Object]"` / `"[Array]"`. The serializer
 * recurses, and a hostile 2,000-level schema would overflow the stack while a tool's version is
 * hashed (such a schema is quarantined anyway: MAX_SCHEMA_DEPTH is 128).
 */
export const CANONICAL_MAX_DEPTH = 256;

const stringify = configure({ maximumDepth: CANONICAL_MAX_DEPTH });

/** JSON with object keys sorted at every level; `undefined` members dropped; cut at CANONICAL_MAX_DEPTH levels. */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** First `length` hex characters of the SHA-256 of the canonical JSON of `value`. @default length 16 */
export function contentHash(value: unknown, length = 16): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, length);
}
