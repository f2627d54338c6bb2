import { z } from 'zod';
import { parseBoolean, parseDuration, zBoolean, zDuration, zList } from '@toolhub/config';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['5s', 5000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['1m 30s', 90_000],
    ['12H', 43_200_000],
    ['1d', 86_400_000],
    ['5000', 5000],
    [' 42 ', 42],
    [0, 0],
    [1500, 1500],
  ])('reads %p as %p ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each(['', 'soon', '5 seconds', '-5s', '5x', 's', '1.2.3s'])('rejects %p', (input) => {
    expect(() => parseDuration(input)).toThrow(TypeError);
  });

  it('rejects negative and non-finite numbers', () => {
    expect(() => parseDuration(-1)).toThrow(TypeError);
    expect(() => parseDuration(Number.NaN)).toThrow(TypeError);
  });
});

describe('parseBoolean', () => {
  it.each(['true', 'TRUE', '1', 'yes', 'Y', 'on'])('reads %p as true', (v) => expect(parseBoolean(v)).toBe(true));
  it.each(['false', 'False', '0', 'no', 'n', 'off'])('reads %p as false', (v) => expect(parseBoolean(v)).toBe(false));
  it('passes booleans through', () => expect(parseBoolean(false)).toBe(false));
  it.each(['', 'maybe', '2'])('rejects %p', (v) => expect(() => parseBoolean(v)).toThrow(TypeError));
});

describe('zod helpers', () => {
  it('zDuration enforces its bounds with a readable message', () => {
    const schema = zDuration({ min: '10ms', max: '1m' });
    expect(schema.parse('30s')).toBe(30_000);
    expect(schema.safeParse('2m').error?.issues[0]?.message).toBe('expected a duration between 10ms and 60000ms, got 120000ms');
    expect(schema.safeParse('1ms').success).toBe(false);
  });

  it('zBoolean does not turn "false" into true', () => {
    expect(zBoolean().parse('false')).toBe(false);
    expect(z.coerce.boolean().parse('false')).toBe(true);
  });

  it('zList splits, trims and checks each item', () => {
    const schema = zList(z.coerce.number().int());
    expect(schema.parse('1, 2,3,')).toEqual([1, 2, 3]);
    expect(schema.parse([4])).toEqual([4]);
    expect(schema.safeParse('1,x').success).toBe(false);
    expect(zList(z.string(), ';').parse('a;b')).toEqual(['a', 'b']);
  });
});
