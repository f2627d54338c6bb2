/** The time category: time_now and time_convert. */
import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import { describeInstant, resolveTimeZone, wallClockToEpoch, type ZonedTime } from './zones';

/** Options of {@link createTimeTools}. */
export interface TimeToolsOptions {
  /** The clock. @default () => new Date() */
  now?: () => Date;
}

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const TIMESTAMP_EXAMPLE = '"2025-03-30T09:00:00"';
/** Numbers below this are Unix seconds, above it milliseconds (10^11 s is the year 5138). */
const SECONDS_LIMIT = 1e11;
const MAX_EPOCH_MS = 8.64e15;

function summary(t: ZonedTime): string {
  return `${t.iso} (${t.weekday}, ${t.timeZone}${t.isDst ? ', daylight saving time' : ''})`;
}

function badTimestamp(input: unknown, why: string): ToolHubError {
  return ToolHubError.invalidArgument(
    `timestamp ${JSON.stringify(input)} ${why}. Use ISO 8601 like ${TIMESTAMP_EXAMPLE} (local time in 'from'), "2025-03-30T09:00:00Z" or "2025-03-30T09:00:00+02:00", Unix time as a number, or "now".`,
    [{ field: '/timestamp', message: why, expected: 'ISO 8601 date-time, Unix seconds or milliseconds, or "now"', example: TIMESTAMP_EXAMPLE }],
  );
}

/** The instant a timestamp names; local times are read in `fromZone`. */
function parseTimestamp(input: string | number, fromZone: string, now: () => Date): { epochMs: number; hadOffset: boolean; note?: string } {
  let value: string | number = typeof input === 'string' ? input.trim() : input;
  if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) value = Number(value);
  if (typeof value === 'number') {
    const ms = Math.abs(value) < SECONDS_LIMIT ? value * 1000 : value;
    if (!Number.isFinite(ms) || Math.abs(ms) > MAX_EPOCH_MS) throw badTimestamp(input, 'is out of range');
    return { epochMs: Math.round(ms), hadOffset: true };
  }
  if (value.toLowerCase() === 'now') return { epochMs: now().getTime(), hadOffset: true };
  const m = ISO_PATTERN.exec(value);
  if (!m) throw badTimestamp(input, 'is not in a format time_convert reads');
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const millisecond = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const check = new Date(0);
  check.setUTCFullYear(year as number, (month as number) - 1, day);
  check.setUTCHours(hour, minute, second, millisecond);
  const wall = check.getTime();
  if (check.getUTCMonth() !== (month as number) - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw badTimestamp(input, 'is not a real date or time');
  }
  const zone = m[8];
  if (zone === undefined) return { ...wallClockToEpoch(wall, fromZone), hadOffset: false };
  if (zone.toUpperCase() === 'Z') return { epochMs: wall, hadOffset: true };
  const digits = zone.replace(':', '');
  const offset = (zone.startsWith('-') ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || 0));
  if (Math.abs(offset) > 18 * 60) throw badTimestamp(input, 'has a UTC offset beyond ±18:00');
  return { epochMs: wall - offset * 60_000, hadOffset: true };
}

/** The time tools: time_now and time_convert. */
export function createTimeTools(options: TimeToolsOptions = {}): ToolDefinition[] {
  const now = options.now ?? ((): Date => new Date());
  const zone = (what: string) =>
    z.string().min(1).max(64).describe(`${what} IANA time zone, e.g. "Europe/Paris", "America/New_York", "Asia/Shanghai" or "UTC".`);

  const timeNow = defineTool({
    name: 'time_now',
    path: 'time',
    description:
      'Get the current date and time in an IANA time zone (default UTC). Use it whenever you need today\'s date, the time of day or the weekday somewhere, since you cannot know them otherwise. ' +
      'Returns an ISO 8601 timestamp with the UTC offset, the weekday and whether daylight saving time applies. ' +
      'Do not use it to convert a given timestamp between zones (time_convert). An unknown zone is answered with close matches.',
    input: z.strictObject({ timeZone: zone('The').default('UTC') }),
    outputDescription: 'One line like "2025-03-30T11:00:00.000+02:00 (Sunday, Europe/Paris, daylight saving time)"; structured: {iso, timeZone, offset, weekday, date, time, epochMs, unixSeconds, isDst}.',
    examples: [{ description: 'Current time in Tokyo', arguments: { timeZone: 'Asia/Tokyo' }, result: '2025-03-30T18:00:00.000+09:00 (Sunday, Asia/Tokyo)' }],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['time', 'date', 'now', 'clock', 'timezone', 'today'],
    async run(args) {
      const timeZone = resolveTimeZone(args.timeZone, '/timeZone');
      const t = describeInstant(now().getTime(), timeZone);
      return textResult(summary(t), { ...t, unixSeconds: Math.floor(t.epochMs / 1000) });
    },
  });

  const timeConvert = defineTool({
    name: 'time_convert',
    path: 'time',
    description:
      'Convert a date-time from one time zone to another (e.g. a meeting at 09:00 in New York → Paris time), handling daylight saving time. ' +
      'Accepts ISO 8601 ("2025-03-30T09:00", read in `from`; or with Z / +02:00), Unix seconds or milliseconds, or "now". ' +
      'Returns both sides as ISO 8601 with offsets and weekdays. Do not use it for the current time alone (time_now) or for date arithmetic (use math_calculate on Unix seconds).',
    input: z.strictObject({
      timestamp: z.union([z.string().min(1).max(64), z.number()]).describe('The date-time: ISO 8601 ("2025-03-30T09:00:00", "…Z", "…+02:00"), Unix seconds or milliseconds, or "now".'),
      from: zone('Zone of a timestamp without offset;').default('UTC'),
      to: zone('Target'),
    }),
    outputDescription: 'One line "<from> = <to>"; structured: {epochMs, utc, from: {iso, timeZone, offset, weekday, …}, to: {…}, note?}.',
    examples: [
      {
        description: 'A New York meeting in Paris time',
        arguments: { timestamp: '2025-03-30T09:00:00', from: 'America/New_York', to: 'Europe/Paris' },
        result: '2025-03-30T09:00:00.000-04:00 (Sunday, America/New_York, daylight saving time) = 2025-03-30T15:00:00.000+02:00 (Sunday, Europe/Paris, daylight saving time)',
      },
    ],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['time', 'date', 'timezone', 'convert', 'utc', 'dst'],
    async run(args) {
      const fromZone = resolveTimeZone(args.from, '/from');
      const toZone = resolveTimeZone(args.to, '/to');
      const parsed = parseTimestamp(args.timestamp, fromZone, now);
      const from = describeInstant(parsed.epochMs, fromZone);
      const to = describeInstant(parsed.epochMs, toZone);
      const structured: Record<string, unknown> = { epochMs: parsed.epochMs, utc: new Date(parsed.epochMs).toISOString(), from, to };
      if (parsed.note) structured['note'] = parsed.note;
      return textResult(`${summary(from)} = ${summary(to)}${parsed.note ? `\n${parsed.note}` : ''}`, structured);
    },
  });

  return [timeNow, timeConvert];
}
