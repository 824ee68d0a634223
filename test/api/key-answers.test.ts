import { describe, expect, it } from 'vitest';
import { KeyAnswers, STREAK_GAP_MS } from '../../src/api/key-answers.js';

const limited = { outcome: 'rate_limited' as const, answeredAt: 1 };
const served = (at: number) => ({ outcome: 'ok' as const, answeredAt: at });

describe('what a process heard on its key', () => {
  it('counts nothing but rate limits from the first, until any other answer', () => {
    const heard = new KeyAnswers();
    expect(heard.rateLimitedSince(0)).toBeUndefined();
    heard.observe(limited, 1_000);
    heard.observe(limited, 5_000);
    expect(heard.rateLimitedSince(6_000)).toBe(1_000);
    // A 5xx or a timeout is no answer: the streak goes on.
    heard.observe({ outcome: 'retry' }, 7_000);
    expect(heard.rateLimitedSince(7_000)).toBe(1_000);
    heard.observe(served(8_000), 8_000);
    expect(heard.rateLimitedSince(8_000)).toBeUndefined();
    expect(heard.lastServedAt).toBe(8_000);
  });

  it("starts again after a quiet while: a worker idle between runs does not carry one run's 429s into the next", () => {
    const heard = new KeyAnswers();
    heard.observe(limited, 1_000);
    heard.observe(limited, 2_000);
    // Idle: the streak went quiet, so nothing says the key is rate limited now.
    expect(heard.rateLimitedSince(2_000 + STREAK_GAP_MS + 1)).toBeUndefined();
    // The next run's first 429 begins its own streak, not one a day long.
    heard.observe(limited, 2_000 + STREAK_GAP_MS + 10);
    expect(heard.rateLimitedSince(2_000 + STREAK_GAP_MS + 20)).toBe(2_000 + STREAK_GAP_MS + 10);
  });

  it('counts a 429 as answered, not served: the API is there, the key is held back', () => {
    const heard = new KeyAnswers();
    heard.observe({ outcome: 'rate_limited', answeredAt: 1_000 }, 1_000);
    expect(heard.lastAnsweredAt).toBe(1_000);
    expect(heard.lastServedAt).toBe(Number.NEGATIVE_INFINITY);
    // A 5xx or a timeout is no answer at all.
    heard.observe({ outcome: 'retry' }, 2_000);
    expect(heard.lastAnsweredAt).toBe(1_000);
  });
});
