import { describe, expect, it } from 'vitest';
import type { DuckDBDateValue, DuckDBListValue, DuckDBTimestampTZValue } from '@duckdb/node-api';
import { converterFor } from '../../src/warehouse/load/cell-converters.js';
import { workingPathFor } from '../../src/warehouse/paths.js';

describe('cell converters', () => {
  it('reads days as YYYY-MM-DD only, and refuses days that do not exist', () => {
    const toDate = converterFor('DATE');
    expect((toDate('2026-11-20') as DuckDBDateValue).days).toBe(Date.UTC(2026, 10, 20) / 86_400_000);
    expect((toDate(new Date('2026-11-20T23:59:00Z')) as DuckDBDateValue).days).toBe(
      Date.UTC(2026, 10, 20) / 86_400_000,
    );
    expect(() => toDate('2026-02-30')).toThrow(/YYYY-MM-DD/);
    expect(() => toDate('2026-11-20T10:00:00Z')).toThrow(/YYYY-MM-DD/);
    expect(() => toDate(20261120)).toThrow(/YYYY-MM-DD/);
  });

  it('reads ISO timestamps with any offset as instants', () => {
    const toTimestamp = converterFor('TIMESTAMP WITH TIME ZONE');
    expect((toTimestamp('2026-11-20T12:00:00+02:00') as DuckDBTimestampTZValue).micros).toBe(
      BigInt(Date.UTC(2026, 10, 20, 10)) * 1000n,
    );
    expect(() => toTimestamp('yesterday')).toThrow(/ISO 8601/);
  });

  it('keeps the microseconds a timestamp states, cutting what lies below them as DuckDB does', () => {
    const micros = (text: string) => (converterFor('TIMESTAMP WITH TIME ZONE')(text) as DuckDBTimestampTZValue).micros;
    const at = BigInt(Date.UTC(2026, 10, 20, 10)) * 1000n;
    expect(micros('2026-11-20T10:00:00.123456Z')).toBe(at + 123_456n);
    expect(micros('2026-11-20T15:30:00.000001+05:30')).toBe(at + 1n);
    expect(micros('2026-11-20T10:00:00.1234Z')).toBe(at + 123_400n);
    expect(micros('2026-11-20T10:00:00.123456789Z')).toBe(at + 123_456n);
    expect(micros('2026-11-20T10:00:00.5Z')).toBe(at + 500_000n);
    expect(micros('2026-11-20T10:00:00Z')).toBe(at);
    expect(micros('1969-12-31T23:59:59.9995Z')).toBe(-500n);
    // Fewer than three digits, then an offset: its digits are no microseconds.
    expect(micros('2026-11-20T15:30:00.03+05:30')).toBe(at + 30_000n);
    expect(micros('2026-11-20T15:30:00.5+0530')).toBe(at + 500_000n);
  });

  it('keeps integers exact and in range', () => {
    expect(converterFor('BIGINT')(12)).toBe(12n);
    expect(converterFor('INTEGER')(12)).toBe(12);
    expect(() => converterFor('INTEGER')(2 ** 31)).toThrow(/32-bit/);
    expect(() => converterFor('BIGINT')(1.5)).toThrow(/integer/);
    expect(() => converterFor('BIGINT')('12')).toThrow(/integer/);
  });

  it('keeps text the API sends as another type, and stores JSON as its text', () => {
    expect(converterFor('VARCHAR')(19.99)).toBe('19.99');
    expect(converterFor('JSON')({ a: 1n, b: [true] })).toBe('{"a":"1","b":[true]}');
    expect(() => converterFor('BOOLEAN')('true')).toThrow(/boolean/);
  });

  it('converts lists item by item, naming the bad item', () => {
    const toList = converterFor('INTEGER[]');
    expect((toList([1, 2]) as DuckDBListValue).items).toEqual([1, 2]);
    expect(() => toList([1, 'x'])).toThrow(/item 1: expected an integer/);
    expect(() => converterFor('UUID')).toThrow(/no loader conversion for column type UUID/);
  });
});

describe('workingPathFor', () => {
  it('puts the working file beside the published one', () => {
    expect(workingPathFor('data/bv.duckdb')).toBe('data/bv.work.duckdb');
    expect(workingPathFor('bvsync.duckdb')).toBe('bvsync.work.duckdb');
  });
});
