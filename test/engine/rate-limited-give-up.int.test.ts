import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * A key the API answers nothing but 429 is an API away, as one answering nothing but 5xx is: after
 * sync.outageToleranceMinutes the run stops waiting and says why. It had gone on for as long as the 429s did, its
 * progress line at 0 requests (helper-68's report: still running when killed at 90 s, one request every 3 s).
 */

const TODAY = '2026-11-20';
let fx: EngineFixture;

beforeAll(async () => {
  // One request in 10,000 s: the first is answered, every later one is a 429 with a Retry-After of a second.
  fx = await engineFixture('rate-limited-give-up', {
    sim: { brands: 1, days: 10, scale: 20, today: TODAY, rateLimit: 0.0001, retryAfterSeconds: 1 },
  });
  fx.config.sync.outageToleranceMinutes = 0.05;
});
afterAll(async () => fx?.cleanup());

describe('a key answered nothing but 429', () => {
  it("fails the run's slices as rate_limited once sync.outageToleranceMinutes has passed, and the run ends", async () => {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: '2026-11-15',
      to: TODAY,
      streams: ['visibility'],
    });
    expect(progress.meta.status).not.toBe('complete');
    const failed = await queryFile(
      fx.config.db,
      `SELECT error_code, last_error FROM _sync_state WHERE status = 'failed'`,
    );
    expect(failed.length).toBeGreaterThan(0);
    expect(new Set(failed.map((row) => row.error_code))).toEqual(new Set(['rate_limited']));
    expect(String(failed[0]!.last_error)).toMatch(
      /the API has answered this key nothing but 429 \(rate limited\) since .* sync\.outageToleranceMinutes is 0\.05/,
    );
    // The key's 429s were waited out in each call (20 a call), not asked for ever.
    expect(fx.sim.requestLog().filter((entry) => entry.status === 429).length).toBeLessThan(200);
  }, 120_000);
});
