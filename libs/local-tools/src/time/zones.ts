/** IANA time zones: validation with "did you mean", and the wall-clock view of an instant in a zone. */
import { closestMatches, ToolHubError } from '@toolhub/contracts';

/** Common abbreviations that are not IANA names (or mean something else there), mapped to a representative zone. */
const ABBREVIATIONS: Record<string, string> = {
  PST: 'America/Los_Angeles',
  PDT: 'America/Los_Angeles',
  MST: 'America/Denver',
  MDT: 'America/Denver',
  CST: 'America/Chicago',
  CDT: 'America/Chicago',
  EST: 'America/New_York',
  EDT: 'America/New_York',
  BST: 'Europe/London',
  CET: 'Europe/Paris',
  CEST: 'Europe/Paris',
  IST: 'Asia/Kolkata',
  JST: 'Asia/Tokyo',
  KST: 'Asia/Seoul',
  AEST: 'Australia/Sydney',
  AEDT: 'Australia/Sydney',
  HKT: 'Asia/Hong_Kong',
  SGT: 'Asia/Singapore',
  GMT: 'Etc/GMT',
};

let zoneList: string[] | undefined;

/** Every IANA zone this runtime knows, plus UTC. */
export function knownTimeZones(): string[] {
  zoneList ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return zoneList;
}

/** Up to three zones close to what was typed: by name, by city ("new york" → America/New_York) or by abbreviation. */
export function suggestTimeZones(input: string): string[] {
  const typed = input.trim();
  const abbreviation = ABBREVIATIONS[typed.toUpperCase()];
  const underscored = typed.replace(/\s+/g, '_');
  const byName = closestMatches(underscored, knownTimeZones(), 3);
  const cities = knownTimeZones().map((z) => z.slice(z.lastIndexOf('/') + 1));
  const byCity = closestMatches(underscored, cities, 3).map((city) => knownTimeZones().find((z) => z.endsWith(`/${city}`) || z === city) ?? city);
  return [...new Set([...(abbreviation ? [abbreviation] : []), ...byName, ...byCity])].slice(0, 3);
}

/**
 * Zone names as typed → canonical name. Building an Intl.DateTimeFormat to ask costs ~40 µs, as
 * much as the rest of a time_now call; the names callers type are few. Bounded: the oldest goes first.
 */
const resolved = new Map<string, string>();
const MAX_RESOLVED = 1024;

function remember(typed: string, canonical: string): string {
  if (resolved.size >= MAX_RESOLVED) resolved.delete(resolved.keys().next().value!);
  resolved.set(typed, canonical);
  return canonical;
}

/**
 * The canonical name of an IANA time zone (case-insensitive; aliases such as US/Pacific accepted).
 * @throws ToolHubError invalid_argument with close matches when the zone is unknown.
 */
export function resolveTimeZone(input: string, field: string): string {
  const typed = input.trim();
  const known = resolved.get(typed);
  if (known !== undefined) return known;
  try {
    if (typed !== '') return remember(typed, new Intl.DateTimeFormat('en-US', { timeZone: typed }).resolvedOptions().timeZone);
  } catch {
    // Fall through to the suggestions.
  }
  const suggestions = suggestTimeZones(typed);
  const offsetHint = /^(UTC|GMT)?\s*[+-]\d/i.test(typed) ? ' Fixed offsets are not accepted; use a zone name such as Asia/Kolkata (or Etc/GMT-5 for UTC+5).' : '';
  const didYouMean = suggestions.length > 0 ? ` Did you mean ${suggestions.join(', ')}?` : ' Use an IANA name such as Europe/Paris, America/New_York or UTC.';
  throw new ToolHubError('invalid_argument', `Unknown time zone ${JSON.stringify(input)}.${didYouMean}${offsetHint}`, {
    violations: [{ field, message: 'unknown time zone', expected: 'an IANA time zone name (Area/City) or UTC', example: JSON.stringify(suggestions[0] ?? 'Europe/Paris') }],
    suggestions,
  });
}

/** Wall-clock fields of an instant in a zone. */
export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  weekday: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'long',
      era: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of `epochMs` in `timeZone`. */
export function zonedParts(epochMs: number, timeZone: string): ZonedParts {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(new Date(epochMs)).map((p) => [p.type, p.value]));
  const yearOfEra = Number(parts['year']);
  return {
    year: parts['era'] === 'BC' ? 1 - yearOfEra : yearOfEra,
    month: Number(parts['month']),
    day: Number(parts['day']),
    hour: Number(parts['hour']),
    minute: Number(parts['minute']),
    second: Number(parts['second']),
    millisecond: ((epochMs % 1000) + 1000) % 1000,
    weekday: parts['weekday'] ?? '',
  };
}

/** Offset of `timeZone` from UTC at `epochMs`, in minutes (east positive). */
export function offsetMinutes(epochMs: number, timeZone: string): number {
  const p = zonedParts(epochMs, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.millisecond);
  // Date.UTC maps years 0-99 to 1900-1999; fix that up for the (rare) ancient instants.
  const wall = p.year >= 0 && p.year < 100 ? new Date(asUtc).setUTCFullYear(p.year) : asUtc;
  return Math.round((wall - epochMs) / 60_000);
}

/** `+02:00`, `-05:30`, `+00:00`. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Everything time tools report about one instant in one zone. */
export interface ZonedTime {
  iso: string;
  timeZone: string;
  offset: string;
  weekday: string;
  date: string;
  time: string;
  epochMs: number;
  isDst: boolean;
}

/** The description of `epochMs` in `timeZone`, with an ISO 8601 timestamp carrying the zone's offset. */
export function describeInstant(epochMs: number, timeZone: string): ZonedTime {
  const p = zonedParts(epochMs, timeZone);
  const offset = offsetMinutes(epochMs, timeZone);
  const year = p.year >= 0 && p.year <= 9999 ? pad(p.year, 4) : `${p.year < 0 ? '-' : '+'}${pad(Math.abs(p.year), 6)}`;
  const date = `${year}-${pad(p.month)}-${pad(p.day)}`;
  const time = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  // DST: the offset is above the smaller of the January and July offsets of that year.
  const jan = offsetMinutes(Date.UTC(p.year, 0, 1), timeZone);
  const jul = offsetMinutes(Date.UTC(p.year, 6, 1), timeZone);
  return {
    iso: `${date}T${time}.${pad(p.millisecond, 3)}${formatOffset(offset)}`,
    timeZone,
    offset: formatOffset(offset),
    weekday: p.weekday,
    date,
    time,
    epochMs,
    isDst: jan !== jul && offset > Math.min(jan, jul),
  };
}

/**
 * The instant at which the wall clock in `timeZone` shows `wallMs` (wall-clock fields encoded as
 * if UTC). In a DST overlap the earlier instant is chosen; in a gap the time is moved forward.
 */
export function wallClockToEpoch(wallMs: number, timeZone: string): { epochMs: number; note?: string } {
  const day = 86_400_000;
  const before = offsetMinutes(wallMs - day, timeZone);
  const after = offsetMinutes(wallMs + day, timeZone);
  const candidates = [...new Set([wallMs - before * 60_000, wallMs - after * 60_000])];
  const valid = candidates.filter((t) => t + offsetMinutes(t, timeZone) * 60_000 === wallMs).sort((a, b) => a - b);
  if (valid.length === 2) return { epochMs: valid[0] as number, note: 'This local time occurs twice (clocks go back); the earlier one was used.' };
  if (valid.length === 1) return { epochMs: valid[0] as number };
  return { epochMs: wallMs - before * 60_000, note: 'This local time does not exist (clocks go forward); it was moved forward by the gap.' };
}
