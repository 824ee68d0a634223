/**
 * Fixed windows per API key: simple, and exact enough to make a client meet 429s. A window is one second,
 * or longer for rates under 1/s (0.5/s: one request per two-second window).
 */
export class RateLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();

  /** True when the request may pass. */
  take(key: string, perSecond: number, nowMs: number): boolean {
    if (perSecond <= 0) return true;
    const { windowMs, allowance } = windowOf(perSecond);
    const window = Math.floor(nowMs / windowMs);
    const current = this.windows.get(key);
    if (!current || current.window !== window) {
      this.windows.set(key, { window, count: 1 });
      return true;
    }
    current.count++;
    return current.count <= allowance;
  }

  /** The key's window at `nowMs`, as rate-limit headers state it; undefined when there is no limit. */
  status(key: string, perSecond: number, nowMs: number): RateWindowStatus | undefined {
    if (perSecond <= 0) return undefined;
    const { windowMs, allowance } = windowOf(perSecond);
    const window = Math.floor(nowMs / windowMs);
    const current = this.windows.get(key);
    const used = current && current.window === window ? current.count : 0;
    return {
      limit: allowance,
      windowSeconds: windowMs / 1000,
      remaining: Math.max(0, allowance - used),
      // Whole seconds, rounded up, as the drafts and most APIs send it.
      resetSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000)),
    };
  }
}

export interface RateWindowStatus {
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

function windowOf(perSecond: number): { windowMs: number; allowance: number } {
  const windowMs = perSecond >= 1 ? 1000 : 1000 / perSecond;
  return { windowMs, allowance: Math.max(1, Math.floor((perSecond * windowMs) / 1000)) };
}

export type RateLimitHeaderFormat = 'none' | 'ietf' | 'x-ratelimit';

/**
 * The headers the `rateLimitHeaders` knob sends with every API answer: `ietf` the IETF draft's
 * `RateLimit-Policy: 20;w=1` and `RateLimit: limit=20, remaining=5, reset=1`; `x-ratelimit` the common
 * `X-RateLimit-Limit/-Remaining/-Reset`; `none` (default) nothing, like the spec.
 */
export function rateLimitHeaders(format: RateLimitHeaderFormat, status: RateWindowStatus | undefined): Record<string, string> {
  if (!status || format === 'none') return {};
  if (format === 'x-ratelimit') {
    return { 'x-ratelimit-limit': String(status.limit), 'x-ratelimit-remaining': String(status.remaining), 'x-ratelimit-reset': String(status.resetSeconds) };
  }
  return {
    'ratelimit-policy': `${status.limit};w=${status.windowSeconds}`,
    ratelimit: `limit=${status.limit}, remaining=${status.remaining}, reset=${status.resetSeconds}`,
  };
}
