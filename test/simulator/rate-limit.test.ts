import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/simulator/rate-limit.js';

describe('rate limiter', () => {
  it('lets N requests a second pass per key, then refuses until the next second', () => {
    const limiter = new RateLimiter();
    const passed = Array.from({ length: 5 }, () => limiter.take('k', 3, 10_000));
    expect(passed).toEqual([true, true, true, false, false]);
    expect(limiter.take('other', 3, 10_000)).toBe(true);
    expect(limiter.take('k', 3, 11_000)).toBe(true);
  });

  it('handles rates under one a second with longer windows, and 0 as no limit', () => {
    const limiter = new RateLimiter();
    expect(limiter.take('k', 0.5, 0)).toBe(true);
    expect(limiter.take('k', 0.5, 1_500)).toBe(false);
    expect(limiter.take('k', 0.5, 2_000)).toBe(true);
    expect(Array.from({ length: 100 }, () => limiter.take('k', 0, 0)).every(Boolean)).toBe(true);
  });
});
