import { describe, expect, it } from 'vitest';
import { addDays, DAY_MS, eachDay, isDay, parseDay, timestampDay, utcDayOf } from '../src/days.js';

describe('days', () => {
  it('accepts only real calendar days', () => {
    expect(isDay('2026-11-20')).toBe(true);
    expect(isDay('2024-02-29')).toBe(true);
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('2026-13-01')).toBe(false);
    expect(isDay('2026-1-01')).toBe(false);
    expect(isDay('2026-11-20T00:00:00Z')).toBe(false);
    expect(isDay('2026-02-31')).toBe(false);
    expect(isDay('2026-04-31')).toBe(false);
    expect(() => parseDay('2026-02-30', '--from')).toThrow('--from: "2026-02-30" is not a day; expected YYYY-MM-DD');
  });

  it('walks ranges across months and years, both ends included', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(eachDay('2026-12-30', '2027-01-02')).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(eachDay('2026-01-02', '2026-01-01')).toEqual([]);
  });

  it('names the UTC day of an instant, whatever its offset, and refuses an invalid one', () => {
    expect(utcDayOf(new Date('2026-11-20T23:30:00-05:00'))).toBe('2026-11-21');
    expect(utcDayOf(Date.parse('2026-11-20T00:00:00Z') + DAY_MS - 1)).toBe('2026-11-20');
    expect(() => utcDayOf(Number.NaN)).toThrow(RangeError);
  });
});

describe('timestampDay', () => {
  it('takes the day of a UTC timestamp as written, fractions or not', () => {
    expect(timestampDay('2026-11-18T23:59:52.879Z')).toBe('2026-11-18');
    expect(timestampDay('2024-02-29T00:00:00Z')).toBe('2024-02-29');
  });

  it('moves a timestamp with an offset to its UTC day, across midnight either way', () => {
    expect(timestampDay('2026-11-18T23:30:00-02:00')).toBe('2026-11-19');
    expect(timestampDay('2026-11-19T00:30:00+02:00')).toBe('2026-11-18');
    expect(timestampDay('2026-11-18T12:00:00+00:00')).toBe('2026-11-18');
  });
});
