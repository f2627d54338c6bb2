/**
 * Tool names: each operation becomes `<alias>_<operationId>` (or `<alias>_<method>_<path>` when it
 * has no operationId) under the contract's rule `^[a-z][a-z0-9_]{0,63}$`. Names that come out too
 * long, or the same as another operation's, are cut and given a short hash of the native name, so
 * they stay unique and stable from one start to the next.
 */
import { toToolName, snakeCase } from '@toolhub/contracts';
import { createHash } from 'node:crypto';

const MAX_NAME = 64;
const HASH_LENGTH = 8;

/** The native name of an operation: its operationId, else `METHOD /path`. */
export function nativeOperationName(method: string, path: string, operationId: unknown): string {
  return typeof operationId === 'string' && operationId.trim() !== '' ? operationId.trim() : `${method.toUpperCase()} ${path}`;
}

function hashOf(native: string, salt: number): string {
  return createHash('sha256').update(salt === 0 ? native : `${native}\u0000${salt}`).digest('hex').slice(0, HASH_LENGTH);
}

function withHash(base: string, native: string, salt: number): string {
  const head = base.slice(0, MAX_NAME - HASH_LENGTH - 1).replace(/_+$/, '');
  return `${head}_${hashOf(native, salt)}`;
}

/**
 * Assigns tool names to the operations of one document. Deterministic for a given set of native
 * names: names that fit come first in sorted order, then the rest; whoever comes later on a clash,
 * or would be longer than 64 characters, gets `<cut>_<hash8>`.
 */
export function assignToolNames(alias: string, natives: Iterable<string>): Map<string, string> {
  const toName = new Map<string, string>();
  const used = new Set<string>();
  const unique = [...new Set(natives)].sort();
  const full = new Map(unique.map((n) => [n, fullName(alias, n)] as const));
  const fits = (n: string): boolean => {
    const f = full.get(n);
    return f !== undefined && f.length <= MAX_NAME;
  };
  for (const native of [...unique.filter(fits), ...unique.filter((n) => !fits(n))]) {
    const f = full.get(native);
    const base = f ?? `${alias}_op`;
    let name = f !== undefined && f.length <= MAX_NAME ? f : withHash(base, native, 0);
    for (let salt = 1; used.has(name); salt++) name = withHash(base, native, salt);
    used.add(name);
    toName.set(native, name);
  }
  return toName;
}

/** `<alias>_<snake_case native>` without the 64-character cut; undefined when nothing usable is left. */
function fullName(alias: string, native: string): string | undefined {
  const tail = snakeCase(native.replace(/[{}]/g, ''));
  if (tail === '') return undefined;
  const name = `${alias}_${tail}`;
  // Same rules as toToolName; only the cut at 64 characters is left to assignToolNames (with a hash).
  return name.length <= MAX_NAME ? toToolName(name) : name;
}
