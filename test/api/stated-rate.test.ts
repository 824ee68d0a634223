import { describe, expect, it } from 'vitest';
import { readRateLimitHeaders } from '../../src/api/rate/rate-headers.js';
import { StatedRateReader } from '../../src/api/rate/stated-rate.js';

const NOW = Date.parse('2026-11-29T03:00:00.000Z');

/** The stated rate after each answer's headers, read at the times given (ms after NOW). */
function statedAfter(answers: Array<[number, Record<string, string>]>): number | undefined {
  const reader = new StatedRateReader();
  let last: number | undefined;
  for (const [at, headers] of answers) last = reader.read(readRateLimitHeaders(headers, NOW + at))?.perSecond;
  return last;
}

describe('the rate a bare limit states, its window read from the resets', () => {
  it('a token bucket of 10/s whose full-refill reset is sent as Unix seconds reads as 10/s, not 5/s', () => {
    // Reset rounded up to the next whole second reads up to ~2 s away: the rounding is taken off.
    const answers: Array<[number, Record<string, string>]> = [0, 150, 600, 950].map((at) => [
      at,
      {
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '9',
        'x-ratelimit-reset': String(Math.ceil((NOW + at + 1000) / 1000)),
      },
    ]);
    expect(statedAfter(answers)).toBe(10);
  });

  it('reads the same 10/s from delta seconds, Unix milliseconds and HTTP dates', () => {
    const limit = { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '3' };
    expect(statedAfter([[0, { ...limit, 'x-ratelimit-reset': '1' }]])).toBe(10);
    expect(statedAfter([[300, { ...limit, 'x-ratelimit-reset': String(NOW + 1000) }]])).toBe(10);
    expect(statedAfter([[300, { ...limit, 'x-ratelimit-reset': new Date(NOW + 2000).toUTCString() }]])).toBe(10);
  });

  it('still reads a longer window as longer: 600 a minute is 10/s', () => {
    expect(statedAfter([[0, { 'x-ratelimit-limit': '600', 'x-ratelimit-reset': '60' }]])).toBe(600 / 59);
    expect(statedAfter([[0, { 'ratelimit-limit': '600', 'ratelimit-reset': '59.5' }]])).toBe(10);
  });

  it('names the header that stated it, and a quota policy with its window as known', () => {
    const reader = new StatedRateReader();
    expect(reader.read(readRateLimitHeaders({ 'x-ratelimit-limit': '20', 'x-ratelimit-reset': '1' }, NOW))).toEqual({
      perSecond: 20,
      by: 'X-RateLimit-Limit',
      windowKnown: false,
      windowSeconds: 1,
    });
    expect(
      reader.read(
        readRateLimitHeaders({ 'ratelimit-policy': '"default";q=20;w=1', ratelimit: '"default";r=3;t=1' }, NOW),
      ),
    ).toEqual({
      perSecond: 20,
      by: 'RateLimit-Policy',
      windowKnown: true,
    });
  });
});
