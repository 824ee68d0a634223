import { describe, expect, it } from 'vitest';
import { dayOf } from '../../src/streams/extra.js';

describe('dayOf', () => {
  it('takes the day of a UTC timestamp as written, fractions or not', () => {
    expect(dayOf('2026-11-18T23:59:52.879Z')).toBe('2026-11-18');
    expect(dayOf('2024-02-29T00:00:00Z')).toBe('2024-02-29');
  });

  it('moves a timestamp with an offset to its UTC day, across midnight either way', () => {
    expect(dayOf('2026-11-18T23:30:00-02:00')).toBe('2026-11-19');
    expect(dayOf('2026-11-19T00:30:00+02:00')).toBe('2026-11-18');
    expect(dayOf('2026-11-18T12:00:00+00:00')).toBe('2026-11-18');
  });
});
