import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_AFTER_MS,
  backoffDelay,
  MAX_RETRY_AFTER_MS,
  MIN_RETRY_AFTER_MS,
  parseRetryAfter,
} from '../../src/api/retry-after.js';

const now = Date.parse('2026-11-21T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads the three HTTP date forms relative to now', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Saturday, 21-Nov-26 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Sat Nov 21 12:00:05 2026', now)).toBe(5000);
  });

  it('waits at least a second: 0, a fraction or a date in the past is not "at once"', () => {
    expect(parseRetryAfter(' 0 ', now)).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRetryAfter('0.2', now)).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:59:00 GMT', now)).toBe(MIN_RETRY_AFTER_MS);
  });

  it('takes the first value of a repeated header', () => {
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });

  it('returns undefined for missing or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('12abc', now)).toBeUndefined();
    // Free text Date.parse would take for a date (the year 2001).
    expect(parseRetryAfter('Retry later 5', now)).toBeUndefined();
    expect(parseRetryAfter('Sat, 21 Nov 2026', now)).toBeUndefined();
  });

  it('clamps absurd waits', () => {
    expect(parseRetryAfter('86400', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(DEFAULT_RETRY_AFTER_MS).toBeGreaterThan(0);
  });
});

describe('backoffDelay', () => {
  const options = { baseMs: 100, maxMs: 1000 };
  it('draws in [0, base * 2^(attempt-1)] (full jitter)', () => {
    expect(backoffDelay(1, options, () => 0.999)).toBe(99);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
    expect(backoffDelay(1, options, () => 0)).toBe(0);
  });
  it('never exceeds the maximum', () => {
    expect(backoffDelay(30, options, () => 0.999)).toBe(999);
  });
});
