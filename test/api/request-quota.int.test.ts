import { afterAll, describe, expect, it } from 'vitest';
import { RequestQuota } from '../../src/api/rate/request-quota.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

/**
 * The request budget's ledger on a real Redis, read by a clock the test sets: what a class may take of a window, and
 * that a slice whose estimate is larger than its class's whole share may still begin in an unspent window.
 */

const redis = testRedis();
const prefix = uniquePrefix('request-quota');
const DAY_MS = 24 * 60 * 60_000;
let now = Date.parse('2026-11-20T06:00:00Z');
let apiKeys = 0;

/** A quota of 40 a day, half kept for sync runs: backfills may take 20. Each on its own API key, so its own ledger. */
function quota(): RequestQuota {
  apiKeys += 1;
  return new RequestQuota({
    redis,
    prefix,
    apiKey: `bvk_test_${apiKeys}`,
    settings: { budget: 40, windowMs: DAY_MS, reservedForSync: 0.5 },
    clock: () => now,
  });
}

afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

describe('the request budget of a window', () => {
  it("lets a slice estimated past its class's whole share begin in an unspent window, and none once a unit is gone", async () => {
    const ledger = quota();
    // A sync slice of 30 requests set the stream's estimate above the backfill's share of 20: before, no backfill slice began in any window.
    expect(await ledger.fits('backfill', 30)).toEqual({ granted: true });
    expect(await ledger.fits('sync', 50)).toEqual({ granted: true });
    expect(await ledger.take('backfill')).toEqual({ granted: true });
    expect(await ledger.fits('backfill', 30)).toEqual({
      granted: false,
      resumesAt: Date.parse('2026-11-21T00:00:00Z'),
    });
    expect(await ledger.fits('backfill', 19)).toEqual({ granted: true });
  });

  it("rounds the backfill share down, but not a share of one down to none by a float's error", () => {
    const share = (budget: number, reservedForSync: number) =>
      new RequestQuota({
        redis,
        prefix,
        apiKey: 'bvk_test_share',
        settings: { budget, windowMs: DAY_MS, reservedForSync },
        clock: () => now,
      }).limitOf('backfill');
    expect(share(10, 0.9)).toBe(1);
    expect(share(100, 0.9)).toBe(10);
    expect(share(45, 0.2)).toBe(36);
    expect(share(7, 0.5)).toBe(3);
  });

  it("sends no request past a class's line: backfills stop at their share, sync runs at the whole budget", async () => {
    const ledger = quota();
    const taken = async (kind: 'sync' | 'backfill', times: number) => {
      let granted = 0;
      for (const answer of await Promise.all(Array.from({ length: times }, () => ledger.take(kind))))
        if (answer.granted) granted += 1;
      return granted;
    };
    expect(await taken('backfill', 25)).toBe(20);
    expect(await taken('sync', 25)).toBe(20);
    expect((await ledger.state()).spent).toBe(40);
    now += DAY_MS;
    expect(await ledger.take('backfill')).toEqual({ granted: true });
    expect((await ledger.state()).spent).toBe(1);
  });
});
