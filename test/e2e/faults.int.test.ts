import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { eachDay } from '../../src/days.js';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * A backfill through an unreliable API: server errors, connection resets, truncated bodies and a rate limit the
 * config does not know about (so 429s come back and pause the whole fetch queue). Nothing may be lost.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-18';
const DAYS = eachDay(FROM, TODAY);
const STREAMS = ['conversations', 'visibility', 'tracked_urls', 'competitors'];

let fx: EngineFixture;
let progress: RunProgress;

beforeAll(async () => {
  fx = await engineFixture('faults', {
    sim: { faultRate: 0.2, faultKinds: ['5xx', 'reset', 'truncated'], rateLimit: 6, retryAfterSeconds: 1 },
    config: { sync: { fetchConcurrency: 6 } },
  });
  progress = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: FROM, to: TODAY, streams: STREAMS });
});
afterAll(async () => fx?.cleanup());

describe('a backfill through faults and 429s', () => {
  it('met the faults and the rate limit', () => {
    const log = fx.sim.requestLog();
    expect({
      rateLimited: log.filter((entry) => entry.status === 429).length > 0,
      faults: log.filter((entry) => entry.fault !== undefined).length > 0,
    }).toEqual({ rateLimited: true, faults: true });
  });

  it('completes every slice and loses no row', async () => {
    expect(progress.meta.status).toBe('complete');
    expect(progress.done).toBe(progress.planned);
    expect(
      await queryFile(
        fx.config.db,
        `SELECT stream, slice_key, status, last_error FROM _sync_state WHERE status <> 'complete'`,
      ),
    ).toEqual([]);
    for (const brandId of fx.config.brands) {
      for (const day of DAYS) {
        const [loaded] = await queryFile(
          fx.config.db,
          'SELECT count(*)::INTEGER AS n FROM conversations WHERE brand_id = $1 AND "day" = $2',
          [brandId, day],
        );
        expect(loaded!.n, `brand ${brandId} on ${day}`).toBe(fx.sim.truth.answers(brandId, day).length);
      }
    }
  });

  it('counts the retries and the 429s of the run', async () => {
    const [run] = await queryFile(
      fx.config.db,
      'SELECT status, retries::INTEGER AS retries, rate_limited::INTEGER AS rate_limited, requests::INTEGER AS requests FROM _sync_runs',
    );
    expect(run!.status).toBe('complete');
    expect(run!.retries).toBeGreaterThan(0);
    let redisRateLimited = 0;
    for (const counters of progress.counters.values()) redisRateLimited += counters.rateLimited;
    expect(run!.rate_limited).toBe(redisRateLimited);
    // Every API call of the run is counted, those of attempts that failed or were paused by a 429 included.
    expect(run!.rate_limited).toBe(fx.sim.requestLog().filter((entry) => entry.status === 429).length);
    expect(run!.requests).toBe(fx.sim.requestLog().length);
  });
});
