/**
 * Fixed windows per API key: simple, and exact enough to make a client meet 429s. A window is one second,
 * or longer for rates under 1/s (0.5/s: one request per two-second window).
 */
export class RateLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();

  /** True when the request may pass. */
  take(key: string, perSecond: number, nowMs: number): boolean {
    if (perSecond <= 0) return true;
    const windowMs = perSecond >= 1 ? 1000 : 1000 / perSecond;
    const allowance = Math.max(1, Math.floor((perSecond * windowMs) / 1000));
    const window = Math.floor(nowMs / windowMs);
    const current = this.windows.get(key);
    if (!current || current.window !== window) {
      this.windows.set(key, { window, count: 1 });
      return true;
    }
    current.count++;
    return current.count <= allowance;
  }
}
