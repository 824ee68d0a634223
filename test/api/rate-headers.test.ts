import { describe, expect, it } from 'vitest';
import { readRateLimitHeaders } from '../../src/api/rate/rate-headers.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');

describe('readRateLimitHeaders', () => {
  it('reads nothing from an answer without rate-limit headers', () => {
    expect(readRateLimitHeaders({ 'content-type': 'application/json' }, NOW)).toEqual({ problems: [] });
  });

  it('reads the IETF draft 07 pair: RateLimit-Policy and RateLimit', () => {
    expect(
      readRateLimitHeaders({ 'ratelimit-policy': '20;w=1', ratelimit: 'limit=20, remaining=5, reset=1' }, NOW),
    ).toEqual({
      policyPerSecond: 20,
      policyBy: 'RateLimit-Policy',
      limit: 20,
      limitBy: 'RateLimit',
      remaining: 5,
      resetMs: 1000,
      resetRoundingMs: 1000,
      problems: [],
    });
  });

  it('reads the draft 08+ structured form and keeps the most restrictive policy and the fewest remaining', () => {
    const signals = readRateLimitHeaders(
      {
        'ratelimit-policy': '"burst";q=100;w=1, "minute";q=3000;w=60, "bytes";q=1000;w=1;qu="content-bytes"',
        ratelimit: '"burst";r=40;t=1, "minute";r=3;t=50',
      },
      NOW,
    );
    expect(signals).toEqual({
      policyPerSecond: 50,
      policyBy: 'RateLimit-Policy',
      remaining: 3,
      resetMs: 50_000,
      resetRoundingMs: 1000,
      problems: [],
    });
  });

  it('paces by policies of an hour at most: a daily quota bounds the volume, its spent window blocks through remaining', () => {
    // The day's 50,000 had paced every request at 0.58/s beside a burst of 20/s.
    const both = readRateLimitHeaders({ 'ratelimit-policy': '"burst";q=20;w=1, "day";q=50000;w=86400' }, NOW);
    expect(both).toEqual({ policyPerSecond: 20, policyBy: 'RateLimit-Policy', problems: [] });
    const dayOnly = readRateLimitHeaders(
      { 'ratelimit-policy': '"day";q=50000;w=86400', ratelimit: '"day";r=0;t=600' },
      NOW,
    );
    expect(dayOnly).toEqual({ remaining: 0, resetMs: 600_000, resetRoundingMs: 1000, problems: [] });
  });

  it('reads the older RateLimit-Limit/-Remaining/-Reset, with policies after the limit', () => {
    expect(
      readRateLimitHeaders(
        { 'ratelimit-limit': '10, 10;w=1, 300;w=60', 'ratelimit-remaining': '0', 'ratelimit-reset': '2' },
        NOW,
      ),
    ).toEqual({
      policyPerSecond: 5,
      policyBy: 'RateLimit-Limit',
      limit: 10,
      limitBy: 'RateLimit-Limit',
      remaining: 0,
      resetMs: 2000,
      resetRoundingMs: 1000,
      problems: [],
    });
  });

  it('reads X-RateLimit-* with a reset in seconds from now, in Unix seconds, in Unix milliseconds, or as an HTTP date', () => {
    const base = { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0' };
    expect(readRateLimitHeaders({ ...base, 'x-ratelimit-reset': '3' }, NOW)).toEqual({
      limit: 20,
      limitBy: 'X-RateLimit-Limit',
      remaining: 0,
      resetMs: 3000,
      resetRoundingMs: 1000,
      problems: [],
    });
    expect(readRateLimitHeaders({ ...base, 'x-ratelimit-reset': String(NOW / 1000 + 7) }, NOW)).toMatchObject({
      resetMs: 7000,
      resetRoundingMs: 1000,
    });
    expect(readRateLimitHeaders({ ...base, 'x-ratelimit-reset': String(NOW + 1500) }, NOW)).toMatchObject({
      resetMs: 1500,
      resetRoundingMs: 0,
    });
    expect(
      readRateLimitHeaders({ ...base, 'x-ratelimit-reset': new Date(NOW + 2000).toUTCString() }, NOW),
    ).toMatchObject({ resetMs: 2000, resetRoundingMs: 1000 });
    expect(readRateLimitHeaders({ ...base, 'ratelimit-reset': '0.25' }, NOW)).toMatchObject({
      resetMs: 250,
      resetRoundingMs: 0,
    });
    // A reset in the past is no wait.
    expect(readRateLimitHeaders({ ...base, 'x-ratelimit-reset': String(NOW / 1000 - 5) }, NOW).resetMs).toBe(0);
  });

  it("reads the IETF fields' reset= and t= in any form a reset takes", () => {
    expect(readRateLimitHeaders({ ratelimit: `limit=10, remaining=2, reset=${NOW / 1000 + 1}` }, NOW)).toMatchObject({
      limit: 10,
      resetMs: 1000,
    });
    expect(readRateLimitHeaders({ ratelimit: `"default";r=2;t=${NOW + 400}` }, NOW)).toMatchObject({
      remaining: 2,
      resetMs: 400,
      resetRoundingMs: 0,
    });
  });

  it('prefers the standard headers over X-RateLimit-* when an API sends both', () => {
    const signals = readRateLimitHeaders(
      { ratelimit: 'limit=20, remaining=4, reset=1', 'x-ratelimit-limit': '99', 'x-ratelimit-remaining': '98' },
      NOW,
    );
    expect(signals).toMatchObject({ limit: 20, remaining: 4 });
  });

  it('ignores unreadable values and names each one, keeping what could be read', () => {
    const signals = readRateLimitHeaders(
      {
        'ratelimit-policy': 'lots;w=soon',
        ratelimit: 'limit=20, remaining=-1, reset=1',
        'x-ratelimit-limit': 'unlimited',
        'x-ratelimit-remaining': '',
        'x-ratelimit-reset': String(NOW / 1000 + 86_400),
      },
      NOW,
    );
    expect(signals.policyPerSecond).toBeUndefined();
    expect(signals).toMatchObject({ limit: 20, resetMs: 1000 });
    expect(signals.remaining).toBeUndefined();
    expect(signals.problems.map((p) => p.slice(0, p.indexOf(':')))).toEqual([
      'ratelimit-policy',
      'ratelimit',
      'x-ratelimit-limit',
      'x-ratelimit-reset',
    ]);
  });

  it('never trusts a policy with a zero or missing window', () => {
    const signals = readRateLimitHeaders({ 'ratelimit-policy': '20;w=0, 30' }, NOW);
    expect(signals.policyPerSecond).toBeUndefined();
    expect(signals.problems).toHaveLength(1);
  });

  it('joins repeated header lines like one comma-separated list', () => {
    expect(readRateLimitHeaders({ 'ratelimit-policy': ['50;w=10', '2;w=1'] }, NOW).policyPerSecond).toBe(2);
  });
});
