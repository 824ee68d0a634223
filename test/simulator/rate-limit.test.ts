import { describe, expect, it } from 'vitest';
import { RateLimiter, rateLimitHeaders } from '../../src/simulator/faults/rate-limit.js';

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

describe('rate-limit headers (the rateLimitHeaders and rateLimitReset knobs)', () => {
  it('states the window as the IETF drafts or the X-RateLimit headers do, and nothing by default', () => {
    const limiter = new RateLimiter();
    limiter.take('k', 20, 10_250);
    limiter.take('k', 20, 10_300);
    const status = limiter.status('k', 20, 10_300);
    expect(status).toEqual({ limit: 20, windowSeconds: 1, remaining: 18, resetAtMs: 11_000 });
    expect(rateLimitHeaders('ietf', status, 10_300)).toEqual({
      'ratelimit-policy': '20;w=1',
      ratelimit: 'limit=20, remaining=18, reset=1',
    });
    expect(rateLimitHeaders('ietf-structured', status, 10_300)).toEqual({
      'ratelimit-policy': '"default";q=20;w=1',
      ratelimit: '"default";r=18;t=1',
    });
    expect(rateLimitHeaders('x-ratelimit', status, 10_300)).toEqual({
      'x-ratelimit-limit': '20',
      'x-ratelimit-remaining': '18',
      'x-ratelimit-reset': '1',
    });
    expect(rateLimitHeaders('none', status, 10_300)).toEqual({});
    expect(limiter.status('k', 0, 10_300)).toBeUndefined();
    expect(limiter.status('k', 0.5, 1_000)).toEqual({ limit: 1, windowSeconds: 2, remaining: 1, resetAtMs: 2_000 });
  });

  it('writes X-RateLimit-Reset as seconds from now, a Unix time in seconds or milliseconds, or an HTTP date', () => {
    const now = Date.parse('2026-11-29T03:00:00.300Z');
    const status = { limit: 10, windowSeconds: 1, remaining: 4, resetAtMs: now + 700 };
    const reset = (form: Parameters<typeof rateLimitHeaders>[3]) =>
      rateLimitHeaders('x-ratelimit', status, now, form)['x-ratelimit-reset'];
    expect(reset('delta-seconds')).toBe('1');
    expect(reset('unix-seconds')).toBe(String(Date.parse('2026-11-29T03:00:01Z') / 1000));
    expect(reset('unix-milliseconds')).toBe(String(now + 700));
    expect(reset('http-date')).toBe('Sun, 29 Nov 2026 03:00:01 GMT');
  });
});

describe('token bucket (the rateLimitAlgorithm knob)', () => {
  it('lets a burst of one second pass, refills continuously, and resets when full again', () => {
    const limiter = new RateLimiter();
    const burst = Array.from({ length: 11 }, () => limiter.take('k', 10, 5_000, 'token-bucket'));
    expect(burst.filter(Boolean)).toHaveLength(10);
    expect(limiter.take('k', 10, 5_050, 'token-bucket')).toBe(false);
    expect(limiter.take('k', 10, 5_100, 'token-bucket')).toBe(true);
    expect(limiter.status('k', 10, 5_100, 'token-bucket')).toEqual({
      limit: 10,
      windowSeconds: 1,
      remaining: 0,
      resetAtMs: 6_100,
    });
    expect(limiter.status('k', 10, 7_000, 'token-bucket')).toMatchObject({ remaining: 10, resetAtMs: 7_000 });
  });
});
