import type { RateLimitSignals, StatedBy } from './rate-headers.js';

/**
 * The rate an API states in its headers, in requests per second. A quota policy names its window; a bare limit's window
 * is read from the resets beside it, their rounding to whole seconds taken off (test/api/stated-rate.test.ts).
 */
export interface StatedRate {
  perSecond: number;
  /** The header that stated it. */
  by: StatedBy;
  /** True when the API named the window (a quota policy); false when it was derived from the resets. */
  windowKnown: boolean;
  /** The window derived from the resets, in seconds; absent when the API named it. */
  windowSeconds?: number;
}

/** Reads the stated rate of each answer, remembering the longest window the resets have shown so far. */
export class StatedRateReader {
  /** The longest reset seen, less its rounding (ms). */
  private longestResetMs = 0;

  read(signals: RateLimitSignals): StatedRate | undefined {
    if (signals.resetMs !== undefined)
      this.longestResetMs = Math.max(this.longestResetMs, signals.resetMs - (signals.resetRoundingMs ?? 0));
    if (signals.policyPerSecond !== undefined) {
      return { perSecond: signals.policyPerSecond, by: signals.policyBy ?? 'RateLimit-Policy', windowKnown: true };
    }
    if (signals.limit === undefined || signals.limit <= 0) return undefined;
    const windowSeconds = derivedWindowSeconds(this.longestResetMs);
    return {
      perSecond: signals.limit / windowSeconds,
      by: signals.limitBy ?? 'X-RateLimit-Limit',
      windowKnown: false,
      windowSeconds,
    };
  }
}

/** Whole seconds, one at least: APIs count in windows of whole seconds. A thousandth of slack for clocks read in ms. */
function derivedWindowSeconds(longestResetMs: number): number {
  return Math.max(1, Math.ceil(longestResetMs / 1000 - 1e-3));
}
