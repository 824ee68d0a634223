import { describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitHeaders } from '../../src/simulator/rate-limit.js';

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

describe('rate-limit headers (the rateLimitHeaders knob)', () => {
  it('states the window as the IETF draft or the X-RateLimit headers do, and nothing by default', () => {
    const limiter = new RateLimiter();
    limiter.take('k', 20, 10_250);
    limiter.take('k', 20, 10_300);
    const status = limiter.status('k', 20, 10_300);
    expect(status).toEqual({ limit: 20, windowSeconds: 1, remaining: 18, resetSeconds: 1 });
    expect(rateLimitHeaders('ietf', status)).toEqual({ 'ratelimit-policy': '20;w=1', ratelimit: 'limit=20, remaining=18, reset=1' });
    expect(rateLimitHeaders('x-ratelimit', status)).toEqual({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '18', 'x-ratelimit-reset': '1' });
    expect(rateLimitHeaders('none', status)).toEqual({});
    expect(limiter.status('k', 0, 10_300)).toBeUndefined();
    expect(limiter.status('k', 0.5, 1_000)).toEqual({ limit: 1, windowSeconds: 2, remaining: 1, resetSeconds: 1 });
  });
});
