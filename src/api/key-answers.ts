import type { ApiRequestEvent } from './transport.js';

/**
 * A 429 this long after the last one starts a new streak: a rate-limited key's waits stay well within it, while one
 * run's 429s are not carried into the next run after an idle worker. test/api/key-answers.test.ts.
 */
export const STREAK_GAP_MS = 3 * 60_000;

/**
 * What a process (or client) has heard on its key: when it was last answered (not a 5xx or a timeout), last served
 * (not a rate limit), and since when it has had only rate limits. Read through src/engine/fetch/availability.ts.
 */
export class KeyAnswers {
  /** When any call was last answered, a 429 included (ms since the epoch); never, at first. */
  lastAnsweredAt = Number.NEGATIVE_INFINITY;
  /** When the key was last served (ms since the epoch); never, at first. */
  lastServedAt = Number.NEGATIVE_INFINITY;
  private limitedFrom: number | undefined;
  private lastLimitedAt = Number.NEGATIVE_INFINITY;

  observe(event: Pick<ApiRequestEvent, 'outcome' | 'answeredAt'>, now = Date.now()): void {
    if (event.answeredAt !== undefined) this.lastAnsweredAt = Math.max(this.lastAnsweredAt, event.answeredAt);
    if (event.outcome === 'rate_limited') {
      if (this.limitedFrom === undefined || now - this.lastLimitedAt > STREAK_GAP_MS) this.limitedFrom = now;
      this.lastLimitedAt = now;
    } else if (event.answeredAt !== undefined) {
      this.lastServedAt = Math.max(this.lastServedAt, event.answeredAt);
      this.limitedFrom = undefined;
    }
  }

  /** Since when every answer was a rate limit; undefined after any other answer, or once the streak went quiet. */
  rateLimitedSince(now = Date.now()): number | undefined {
    return this.limitedFrom !== undefined && now - this.lastLimitedAt <= STREAK_GAP_MS ? this.limitedFrom : undefined;
  }
}
