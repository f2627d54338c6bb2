/**
 * Byte-stable serialisation and content hashes. Tool versions and preload fingerprints must not
 * change when only key order changes, or prompt caches and tool caches go cold for nothing.
 */
import { createHash } from 'node:crypto';

import { stringify } from 'safe-stable-stringify';

/** JSON with object keys sorted at every level; `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** First `length` hex characters of the SHA-256 of the canonical JSON of `value`. @default length 16 */
export function contentHash(value: unknown, length = 16): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, length);
}
