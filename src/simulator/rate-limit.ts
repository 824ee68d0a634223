/** A fixed one-second window per API key: simple, and exact enough to make a client meet 429s. */
export class RateLimiter {
  private readonly windows = new Map<string, { second: number; count: number }>();

  /** True when the request may pass. */
  take(key: string, perSecond: number, nowMs: number): boolean {
    if (perSecond <= 0) return true;
    const second = Math.floor(nowMs / 1000);
    const window = this.windows.get(key);
    if (!window || window.second !== second) {
      this.windows.set(key, { second, count: 1 });
      return true;
    }
    window.count++;
    return window.count <= perSecond;
  }
}
