import { describe, expect, it } from 'vitest';
import { afterRateLimited, afterStatedLimit, initialRateState } from '../../src/api/rate/adaptive-rate.js';
import { keyRateOf, rateLine } from '../../src/cli/status/key-rate.js';

const NOW = 1_800_000_000_000;
const SETTINGS = { apiKey: 'k', requestsPerSecond: 40, redisPrefix: 'p' } as const;
const BARE = { perSecond: 10, by: 'X-RateLimit-Limit', windowKnown: false, windowSeconds: 1 } as const;
const POLICY = { perSecond: 20, by: 'RateLimit-Policy', windowKnown: true } as const;

/** The line of the run summary and `bvsync status` for a stored state. */
function lineOf(state: ReturnType<typeof initialRateState>, requestsPerSecond: number | 'auto' = 40): string {
  return rateLine(keyRateOf({ ...SETTINGS, requestsPerSecond }, { state, expiresInMs: 86_400_000 }, 0, NOW));
}

describe('the rate line of the run summary and bvsync status: the rate, the stated limit, and their sources', () => {
  it('a bare limit: the rate it implies, stated by its header, with the window read from the resets', () => {
    const state = afterStatedLimit(initialRateState(38, false, NOW), NOW, BARE, 38, 0.95)!;
    expect(lineOf(state)).toBe(
      'rate of the API key: 9.5/s, stated by X-RateLimit-Limit; limit the API states: 10/s, stated by X-RateLimit-Limit (10 per 1 s, the window read from its resets)',
    );
  });

  it('a quota policy: the ceiling, stated by RateLimit-Policy', () => {
    const state = afterStatedLimit(initialRateState(38, false, NOW), NOW, POLICY, 38, 0.95)!;
    expect(lineOf(state)).toBe(
      'rate of the API key: 19/s, stated by RateLimit-Policy; limit the API states: 20/s, stated by RateLimit-Policy',
    );
  });

  it('after a 429 above the stated rate: learned from 429s', () => {
    const stated = afterStatedLimit(initialRateState(38, false, NOW), NOW, BARE, 38, 0.95)!;
    const cut = afterRateLimited({ ...stated, rate: 12 }, { now: NOW, sentAt: NOW - 10, goodRate: 6, ceiling: 38 })!;
    expect(lineOf(cut)).toMatch(
      /^rate of the API key: 5\.7\/s, learned from 429s; limit the API states: 10\/s, stated by X-RateLimit-Limit/,
    );
  });

  it('a configured rate under what the API states: configured', () => {
    const state = afterStatedLimit(initialRateState(4.75, false, NOW), NOW, BARE, 4.75, 0.95)!;
    expect(lineOf(state, 5)).toMatch(
      /^rate of the API key: 4\.75\/s, configured \(api\.requestsPerSecond\); limit the API states: 10\/s/,
    );
    expect(lineOf(initialRateState(9.5, false, NOW), 10)).toBe(
      'rate of the API key: 9.5/s, configured (api.requestsPerSecond); limit the API states: none in its headers',
    );
  });
});
