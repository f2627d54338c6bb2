/** Parsers and zod schemas for values that environment variables carry as text. */
import { z } from 'zod';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
const DURATION_HINT = 'a duration such as "250ms", "5s", "1m30s", "12h" or a number of milliseconds';

/**
 * Parses a duration into whole milliseconds: `"250ms"`, `"5s"`, `"1.5m"`, `"1h30m"`, `"2d"`, or a
 * plain number of milliseconds (`"5000"` or `5000`). Units: ms, s, m, h, d.
 * @throws TypeError for anything else, negative numbers included.
 */
export function parseDuration(value: string | number): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`expected ${DURATION_HINT}, got ${value}`);
    return Math.round(value);
  }
  const text = value.trim().toLowerCase().replace(/\s+/g, '');
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text));
  if (!DURATION.test(text)) throw new TypeError(`expected ${DURATION_HINT}`);
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(DURATION_PART)) ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return Math.round(ms);
}

const TRUE = new Set(['true', '1', 'yes', 'y', 'on']);
const FALSE = new Set(['false', '0', 'no', 'n', 'off']);

/**
 * Parses a flag: `true/false`, `1/0`, `yes/no`, `y/n`, `on/off`, any case. Use it instead of
 * `z.coerce.boolean()`, which turns the string `"false"` into `true`.
 * @throws TypeError for anything else.
 */
export function parseBoolean(value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  const text = value.trim().toLowerCase();
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw new TypeError('expected true/false, 1/0, yes/no or on/off');
}

/** Bounds of {@link zDuration}, as durations. */
export interface DurationBounds {
  /** Smallest accepted duration. @default 0 */
  min?: string | number;
  /** Largest accepted duration. @default unbounded */
  max?: string | number;
}

/**
 * Zod schema for a duration (see {@link parseDuration}); the output is milliseconds. Chain
 * `.default(5000)` for a default (in milliseconds).
 * @example timeoutMs: { env: 'TOOLHUB_RUN_TIMEOUT', schema: zDuration({ min: '1ms' }).default(30_000), description: '...' }
 */
export function zDuration(bounds: DurationBounds = {}) {
  const min = bounds.min === undefined ? 0 : parseDuration(bounds.min);
  const max = bounds.max === undefined ? Infinity : parseDuration(bounds.max);
  return z.union([z.string(), z.number()]).transform((value, ctx): number => {
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
    if (ms < min || ms > max) {
      const range = max === Infinity ? `at least ${min}ms` : `between ${min}ms and ${max}ms`;
      ctx.addIssue({ code: 'custom', message: `expected a duration ${range}, got ${ms}ms` });
      return z.NEVER;
    }
    return ms;
  });
}

/** Zod schema for a flag (see {@link parseBoolean}). */
export function zBoolean() {
  return z.union([z.boolean(), z.string()]).transform((value, ctx): boolean => {
    try {
      return parseBoolean(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });
}

/**
 * Zod schema for a separated list (`"nats://a:4222, nats://b:4222"`): split on `separator`,
 * trimmed, empty items dropped, each item checked by `item`. An array (from an override) is
 * checked as is.
 * @param separator @default ','
 */
export function zList<T extends z.ZodType>(item: T, separator = ',') {
  return z
    .union([z.string().transform((text) => text.split(separator).map((s) => s.trim()).filter((s) => s !== '')), z.array(z.unknown())])
    .pipe(z.array(item));
}
