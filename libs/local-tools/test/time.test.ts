import { createTimeTools } from '../src';
import { describeInstant, resolveTimeZone, suggestTimeZones, wallClockToEpoch } from '../src/time/zones';
import { call, callError, data, pick, textOf } from './helpers';

// Sunday 30 March 2025, 09:00 UTC: an hour after Europe moved to summer time, three weeks after the US did.
const NOW = new Date('2025-03-30T09:00:00.000Z');
const tools = createTimeTools({ now: () => NOW });
const now = pick(tools, 'time_now');
const convert = pick(tools, 'time_convert');

describe('time_now', () => {
  it('gives UTC by default', async () => {
    const result = await call(now, {});
    expect(textOf(result)).toBe('2025-03-30T09:00:00.000+00:00 (Sunday, UTC)');
    expect(data(result)).toMatchObject({ timeZone: 'UTC', offset: '+00:00', weekday: 'Sunday', date: '2025-03-30', time: '09:00:00', unixSeconds: 1743325200, isDst: false });
  });

  it('gives the local time, offset, weekday and DST flag of a zone', async () => {
    const result = await call(now, { timeZone: 'Europe/Paris' });
    expect(textOf(result)).toBe('2025-03-30T11:00:00.000+02:00 (Sunday, Europe/Paris, daylight saving time)');
    expect(data(result)).toMatchObject({ offset: '+02:00', isDst: true });
  });

  it('handles half-hour offsets and the other side of the date line', async () => {
    expect(data(await call(now, { timeZone: 'Asia/Kolkata' }))['iso']).toBe('2025-03-30T14:30:00.000+05:30');
    expect(data(await call(now, { timeZone: 'Pacific/Pago_Pago' }))['iso']).toBe('2025-03-29T22:00:00.000-11:00');
  });

  it('accepts zone names in any case and old aliases', async () => {
    expect(data(await call(now, { timeZone: 'europe/paris' }))['timeZone']).toBe('Europe/Paris');
    expect(data(await call(now, { timeZone: 'US/Pacific' }))['offset']).toBe('-07:00');
  });

  it('answers an unknown zone with close matches', async () => {
    const err = await callError(now, { timeZone: 'Europe/Pariss' });
    expect(err.code).toBe('invalid_argument');
    expect(err.suggestions[0]).toBe('Europe/Paris');
    expect(err.message).toContain('Did you mean Europe/Paris');
    expect(err.violations[0]).toMatchObject({ field: '/timeZone', example: '"Europe/Paris"' });
  });

  it('suggests zones for a bare city name and for common abbreviations', () => {
    expect(suggestTimeZones('New York')).toContain('America/New_York');
    expect(suggestTimeZones('tokyo')).toContain('Asia/Tokyo');
    expect(suggestTimeZones('PST')[0]).toBe('America/Los_Angeles');
  });

  it('explains that fixed offsets are not zones', () => {
    expect(() => resolveTimeZone('UTC+5', '/timeZone')).toThrow(/Fixed offsets are not accepted/);
  });
});

describe('time_convert', () => {
  it('converts a local time between zones with different DST rules', async () => {
    const result = await call(convert, { timestamp: '2025-03-30T09:00:00', from: 'America/New_York', to: 'Europe/Paris' });
    expect(textOf(result)).toBe(
      '2025-03-30T09:00:00.000-04:00 (Sunday, America/New_York, daylight saving time) = 2025-03-30T15:00:00.000+02:00 (Sunday, Europe/Paris, daylight saving time)',
    );
    expect(data(result)['utc']).toBe('2025-03-30T13:00:00.000Z');
  });

  it('uses the offset written in the timestamp and ignores from', async () => {
    const result = await call(convert, { timestamp: '2025-01-15T23:30:00+05:30', from: 'Europe/Paris', to: 'UTC' });
    expect((data(result)['to'] as { iso: string }).iso).toBe('2025-01-15T18:00:00.000+00:00');
  });

  it('reads Unix seconds, Unix milliseconds and "now"', async () => {
    const seconds = await call(convert, { timestamp: 1743325200, to: 'Asia/Tokyo' });
    const millis = await call(convert, { timestamp: 1743325200000, to: 'Asia/Tokyo' });
    const current = await call(convert, { timestamp: 'now', to: 'Asia/Tokyo' });
    for (const r of [seconds, millis, current]) expect((data(r)['to'] as { iso: string }).iso).toBe('2025-03-30T18:00:00.000+09:00');
  });

  it('crosses the date line and changes the weekday', async () => {
    const result = await call(convert, { timestamp: '2025-03-30T23:00:00Z', to: 'Pacific/Auckland' });
    expect(data(result)['to']).toMatchObject({ date: '2025-03-31', weekday: 'Monday' });
  });

  it('moves a local time that falls in a DST gap forward and says so', async () => {
    const result = await call(convert, { timestamp: '2025-03-30T02:30', from: 'Europe/Paris', to: 'UTC' });
    expect(data(result)['utc']).toBe('2025-03-30T01:30:00.000Z');
    expect(textOf(result)).toContain('does not exist');
  });

  it('picks the earlier of two identical local times when clocks go back', () => {
    const wall = Date.UTC(2025, 9, 26, 2, 30);
    const { epochMs, note } = wallClockToEpoch(wall, 'Europe/Paris');
    expect(new Date(epochMs).toISOString()).toBe('2025-10-26T00:30:00.000Z');
    expect(note).toContain('occurs twice');
  });

  it('refuses an impossible date with an example of a valid one', async () => {
    const err = await callError(convert, { timestamp: '2025-02-30T10:00', to: 'UTC' });
    expect(err.message).toContain('is not a real date or time');
    expect(err.violations[0]).toMatchObject({ field: '/timestamp', example: '"2025-03-30T09:00:00"' });
  });

  it('refuses formats it does not read', async () => {
    expect((await callError(convert, { timestamp: 'next tuesday', to: 'UTC' })).message).toContain('Use ISO 8601');
  });

  it('reports which zone argument is unknown', async () => {
    const err = await callError(convert, { timestamp: 'now', to: 'Mars/Olympus' });
    expect(err.violations[0]?.field).toBe('/to');
  });

  it('requires a target zone', async () => {
    expect((await callError(convert, { timestamp: 'now' })).violations[0]).toMatchObject({ field: '/to', message: 'is required' });
  });
});

describe('describeInstant', () => {
  it('writes years before 1000 with four digits', () => {
    expect(describeInstant(Date.UTC(800, 11, 25), 'UTC').date).toBe('0800-12-25');
  });
});

describe('resolveTimeZone', () => {
  it('asks the runtime once per zone name typed, then answers from memory', () => {
    const constructed = jest.spyOn(Intl, 'DateTimeFormat');
    try {
      const asked = () => constructed.mock.calls.filter(([, options]) => options?.timeZone === 'america/argentina/ushuaia').length;
      expect(resolveTimeZone('america/argentina/ushuaia', '/timeZone')).toBe('America/Argentina/Ushuaia');
      expect(asked()).toBe(1);
      expect(resolveTimeZone(' america/argentina/ushuaia ', '/timeZone')).toBe('America/Argentina/Ushuaia');
      expect(asked()).toBe(1);
      // An unknown name is never remembered as valid.
      expect(() => resolveTimeZone('Mars/Olympus_Mons', '/timeZone')).toThrow(/Unknown time zone/);
      expect(() => resolveTimeZone('Mars/Olympus_Mons', '/timeZone')).toThrow(/Unknown time zone/);
    } finally {
      constructed.mockRestore();
    }
  });
});
