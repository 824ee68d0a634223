import { describe, expect, it } from 'vitest';
import { formatCount, formatDecimal, formatDuration, formatInteger, formatInterval } from '../src/format.js';

describe('formatInteger and formatCount', () => {
  it('groups thousands, also of bigints and numeric text beyond a double', () => {
    expect(formatInteger(83637)).toBe('83,637');
    expect(formatInteger(-1234567)).toBe('-1,234,567');
    expect(formatInteger(12n)).toBe('12');
    expect(formatInteger('123456789012345678901')).toBe('123,456,789,012,345,678,901');
    expect(formatInteger('not a number')).toBe('not a number');
  });

  it('says one row, and any other count in the plural', () => {
    expect(formatCount(1, 'row')).toBe('1 row');
    expect(formatCount(1n, 'row')).toBe('1 row');
    expect(formatCount(0, 'row')).toBe('0 rows');
    expect(formatCount(1749, 'request')).toBe('1,749 requests');
    expect(formatCount(2, 'entry', 'entries')).toBe('2 entries');
  });
});

describe('formatDecimal', () => {
  it('keeps 4 decimals from 1 up and 4 significant digits below', () => {
    expect(formatDecimal(1234.56789)).toBe('1234.5679');
    expect(formatDecimal(0.47329123)).toBe('0.4733');
    expect(formatDecimal(0.0012345678)).toBe('0.001235');
    expect(formatDecimal(-0.1)).toBe('-0.1');
    expect(formatDecimal(2)).toBe('2');
    expect(formatDecimal(0)).toBe('0');
    expect(formatDecimal(Number.NaN)).toBe('NaN');
    expect(formatDecimal(Number.POSITIVE_INFINITY)).toBe('Infinity');
  });
});

describe('formatDuration and formatInterval', () => {
  it('uses the largest units that matter', () => {
    expect(formatDuration(0.13)).toBe('130 ms');
    expect(formatDuration(4.24)).toBe('4.2 s');
    expect(formatDuration(59.97)).toBe('1m 00s');
    expect(formatDuration(184.129854)).toBe('3m 04s');
    expect(formatDuration(3723)).toBe('1h 02m 03s');
    expect(formatDuration(2 * 86_400 + 3 * 3600 + 4 * 60)).toBe('2d 03h 04m');
    expect(formatDuration(-5)).toBe('-5 s');
  });

  it('writes an INTERVAL as DuckDB gives it, calendar parts apart', () => {
    expect(formatInterval({ months: 0, days: 0, micros: '184129854' })).toBe('3m 04s');
    expect(formatInterval({ months: 0, days: 0, micros: 0 })).toBe('0 ms');
    expect(formatInterval({ months: 14, days: 1, micros: 0 })).toBe('1 year 2 months 1 day');
    expect(formatInterval({ months: 0, days: 3, micros: 1_500_000n })).toBe('3 days 1.5 s');
  });
});
