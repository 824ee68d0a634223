import { describe, expect, it } from 'vitest';
import { readHeaderTime } from '../../src/api/rate/header-time.js';
import { parseRetryAfter } from '../../src/api/retry-after.js';

const NOW = Date.parse('2026-11-29T03:00:00.400Z');

describe('readHeaderTime: the one reader of resets and Retry-After', () => {
  it('tells the four forms apart by form and magnitude', () => {
    expect(readHeaderTime('2', NOW)).toEqual({ ms: 2000, roundingMs: 1000, form: 'delta-seconds' });
    expect(readHeaderTime('0.5', NOW)).toEqual({ ms: 500, roundingMs: 0, form: 'delta-seconds' });
    expect(readHeaderTime(String(Math.ceil(NOW / 1000)), NOW)).toEqual({
      ms: 600,
      roundingMs: 1000,
      form: 'unix-seconds',
    });
    expect(readHeaderTime(String(NOW + 250), NOW)).toEqual({ ms: 250, roundingMs: 0, form: 'unix-milliseconds' });
    expect(readHeaderTime('Sun, 29 Nov 2026 03:00:02 GMT', NOW)).toEqual({
      ms: 1600,
      roundingMs: 1000,
      form: 'http-date',
    });
    expect(readHeaderTime('Sun Nov 29 03:00:02 2026', NOW)?.ms).toBe(1600);
  });

  it('reads nothing from free text or signed numbers', () => {
    for (const text of ['soon', '-1', '1e3', 'Retry later 5', '']) expect(readHeaderTime(text, NOW)).toBeUndefined();
  });

  it('serves Retry-After: a Unix time there is a wait until it, not a wait of fifty years clamped to ten minutes', () => {
    expect(parseRetryAfter(String(Math.floor(NOW / 1000) + 3), NOW)).toBe(2600);
    expect(parseRetryAfter(String(NOW + 4000), NOW)).toBe(4000);
    expect(parseRetryAfter('3', NOW)).toBe(3000);
  });
});
