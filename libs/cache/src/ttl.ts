import type { ImportanceName } from '@toolhub/contracts';
import { CacheError } from './errors';

const HOUR_MS = 60 * 60 * 1000;

/** TTL per importance, in milliseconds. */
export type TtlPolicy = Readonly<Record<ImportanceName, number>>;

/** Default TTLs: core 12 h, normal 4 h, low 1 h. */
export const DEFAULT_TTL_POLICY: TtlPolicy = Object.freeze({
  core: 12 * HOUR_MS,
  normal: 4 * HOUR_MS,
  low: 1 * HOUR_MS,
});

/**
 * The TTL policy with `overrides` applied over {@link DEFAULT_TTL_POLICY}. Call it once at start-up
 * so a bad configuration fails there and not on the first cached call.
 * @throws CacheError `invalid_argument` naming the field when an override is not a positive finite number.
 */
export function ttlPolicy(overrides?: Partial<Record<ImportanceName, number>>): TtlPolicy {
  const policy = { ...DEFAULT_TTL_POLICY };
  for (const name of Object.keys(DEFAULT_TTL_POLICY) as ImportanceName[]) {
    const value = overrides?.[name];
    if (value === undefined) continue;
    assertTtlMs(value, `ttl.${name}`);
    policy[name] = value;
  }
  return Object.freeze(policy);
}

/**
 * How long to cache tool info or a list entry of the given importance.
 * An unknown importance (e.g. an unspecified proto enum mapped to a string) counts as `normal`.
 * @throws CacheError `invalid_argument` when an override is not a positive finite number.
 */
export function ttlForImportance(
  importance: ImportanceName,
  overrides?: Partial<Record<ImportanceName, number>> | TtlPolicy,
): number {
  const policy = overrides ? ttlPolicy(overrides) : DEFAULT_TTL_POLICY;
  return policy[importance] ?? policy.normal;
}

/** @internal Rejects TTLs a cache cannot honour; every implementation calls it so they agree. */
export function assertTtlMs(ttlMs: number, field = 'ttlMs'): void {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new CacheError('invalid_argument', `${field} must be a positive finite number of milliseconds, got ${String(ttlMs)}`);
  }
}
