import type { Knobs } from '../knobs.js';

type Algorithm = Knobs['rateLimitAlgorithm'];

/**
 * The simulator's rate limit per API key, in the two algorithms real APIs use (the `rateLimitAlgorithm` knob): fixed
 * windows of one second (longer under 1/s), or a token bucket holding a second's burst, refilled continuously.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** True when the request may pass. */
  take(key: string, perSecond: number, nowMs: number, algorithm: Algorithm = 'fixed-window'): boolean {
    if (perSecond <= 0) return true;
    if (algorithm === 'token-bucket') {
      const bucket = this.bucket(key, perSecond, nowMs);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    }
    const { allowance, window, used } = this.fixedWindow(key, perSecond, nowMs);
    this.windows.set(key, { window, count: used + 1 });
    return used + 1 <= allowance;
  }

  /** The key's window or bucket at `nowMs`, as rate-limit headers state it; undefined when there is no limit. */
  status(
    key: string,
    perSecond: number,
    nowMs: number,
    algorithm: Algorithm = 'fixed-window',
  ): RateWindowStatus | undefined {
    if (perSecond <= 0) return undefined;
    if (algorithm === 'token-bucket') {
      const capacity = bucketCapacity(perSecond);
      const { tokens } = this.bucket(key, perSecond, nowMs);
      // The reset of a bucket is when it is full again: its full-refill time.
      return {
        limit: capacity,
        windowSeconds: capacity / perSecond,
        remaining: Math.floor(tokens),
        resetAtMs: nowMs + ((capacity - tokens) / perSecond) * 1000,
      };
    }
    const { windowMs, allowance, window, used } = this.fixedWindow(key, perSecond, nowMs);
    return {
      limit: allowance,
      windowSeconds: windowMs / 1000,
      remaining: Math.max(0, allowance - used),
      resetAtMs: (window + 1) * windowMs,
    };
  }

  /** The key's fixed window at `nowMs` (longer than a second under 1/s): the requests it allows and those taken. */
  private fixedWindow(key: string, perSecond: number, nowMs: number) {
    const windowMs = perSecond >= 1 ? 1000 : 1000 / perSecond;
    const window = Math.floor(nowMs / windowMs);
    const current = this.windows.get(key);
    const used = current?.window === window ? current.count : 0;
    return { windowMs, allowance: Math.max(1, Math.floor((perSecond * windowMs) / 1000)), window, used };
  }

  /** The key's bucket refilled up to `nowMs`; a new key's bucket is full. */
  private bucket(key: string, perSecond: number, nowMs: number): { tokens: number; at: number } {
    const capacity = bucketCapacity(perSecond);
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: nowMs };
    bucket.tokens = Math.min(capacity, bucket.tokens + (Math.max(0, nowMs - bucket.at) / 1000) * perSecond);
    bucket.at = nowMs;
    this.buckets.set(key, bucket);
    return bucket;
  }
}

interface RateWindowStatus {
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** When the window resets, or the bucket is full again (ms since the epoch). */
  resetAtMs: number;
}

/** A bucket holds one second of requests (one at least). */
function bucketCapacity(perSecond: number): number {
  return Math.max(1, Math.floor(perSecond));
}

/**
 * The `rateLimitHeaders` knob's headers on every answer: `ietf` (draft 07's `RateLimit-Policy`, `RateLimit`),
 * `ietf-structured` (drafts 08+), `x-ratelimit` (reset as `rateLimitReset` says), or `none` (default, like the spec).
 */
export function rateLimitHeaders(
  format: Knobs['rateLimitHeaders'],
  status: RateWindowStatus | undefined,
  nowMs: number,
  resetFormat: Knobs['rateLimitReset'] = 'delta-seconds',
): Record<string, string> {
  if (!status || format === 'none') return {};
  const deltaSeconds = String(Math.ceil(Math.max(0, status.resetAtMs - nowMs) / 1000));
  if (format === 'x-ratelimit') {
    return {
      'x-ratelimit-limit': String(status.limit),
      'x-ratelimit-remaining': String(status.remaining),
      'x-ratelimit-reset': resetText(resetFormat, status.resetAtMs, deltaSeconds),
    };
  }
  const window = Number(status.windowSeconds.toFixed(3));
  if (format === 'ietf-structured') {
    return {
      'ratelimit-policy': `"default";q=${status.limit};w=${window}`,
      ratelimit: `"default";r=${status.remaining};t=${deltaSeconds}`,
    };
  }
  return {
    'ratelimit-policy': `${status.limit};w=${window}`,
    ratelimit: `limit=${status.limit}, remaining=${status.remaining}, reset=${deltaSeconds}`,
  };
}

/** A reset as APIs write it: seconds from now (rounded up), a Unix time in seconds (rounded up) or ms, an HTTP date. */
function resetText(format: Knobs['rateLimitReset'], resetAtMs: number, deltaSeconds: string): string {
  if (format === 'unix-seconds') return String(Math.ceil(resetAtMs / 1000));
  if (format === 'unix-milliseconds') return String(Math.ceil(resetAtMs));
  if (format === 'http-date') return new Date(Math.ceil(resetAtMs / 1000) * 1000).toUTCString();
  return deltaSeconds;
}
