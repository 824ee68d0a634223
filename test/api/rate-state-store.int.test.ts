import { afterAll, describe, expect, it } from 'vitest';
import { RedisRateStateStore } from '../../src/api/rate/rate-state-store.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

/**
 * What `bvsync rate` reads and resets through the store: the state with its expiry, read without writing, and a
 * delete that a budget's next compare-and-set notices.
 */

const prefix = uniquePrefix('rate-state-store');
const redis = testRedis();
const keys = redisKeys(prefix);
const DAY_MS = 24 * 3_600_000;

afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

describe('RedisRateStateStore', () => {
  it('inspect: the stored state and the time Redis keeps it, a day after the last change', async () => {
    const store = new RedisRateStateStore(redis, keys, 'inspected');
    const state = {
      rate: 4.75,
      at: 1_700_000_000_000,
      phase: 'steady' as const,
      limit: 5,
      cutAt: 1_700_000_000_000,
      confirmed: true,
    };
    expect(await store.compareAndSet(0, state)).toBe(true);
    const stored = await store.inspect();
    expect(stored?.state).toEqual(state);
    expect(stored?.expiresInMs).toBeGreaterThan(DAY_MS - 60_000);
    expect(stored?.expiresInMs).toBeLessThanOrEqual(DAY_MS);
  });

  it('keeps the rate the API stated, and forgets it when a later state holds none', async () => {
    const store = new RedisRateStateStore(redis, keys, 'stated');
    const base = { rate: 9.5, at: 1_700_000_000_000, phase: 'steady' as const, limit: 10, cutAt: 0 };
    const stated = {
      ...base,
      stated: { perSecond: 10, by: 'X-RateLimit-Limit' as const, windowKnown: false, windowSeconds: 1 },
    };
    expect(await store.compareAndSet(0, stated)).toBe(true);
    expect((await store.inspect())?.state).toEqual(stated);
    expect(await store.compareAndSet(1, base)).toBe(true);
    expect((await store.inspect())?.state).toEqual(base);
  });

  it('inspect writes nothing when nothing is stored (a budget read would be followed by a write)', async () => {
    const store = new RedisRateStateStore(redis, keys, 'absent');
    expect(await store.inspect()).toBeUndefined();
    expect(await redis.exists(keys.rateState('absent'))).toBe(0);
  });

  it('remove deletes the state, says whether there was one, and a compare-and-set of the old version then fails', async () => {
    const store = new RedisRateStateStore(redis, keys, 'removed');
    const state = { rate: 1, at: 1, phase: 'steady' as const, limit: 2, cutAt: 1 };
    await store.compareAndSet(0, state);
    await store.compareAndSet(1, { ...state, rate: 1.5 });
    expect(await store.remove()).toBe(true);
    expect(await store.inspect()).toBeUndefined();
    expect(await store.remove()).toBe(false);
    // A budget that read version 2 before the reset cannot write its change over the reset: it reads again.
    expect(await store.compareAndSet(2, { ...state, rate: 0.5 })).toBe(false);
    expect(await store.read()).toEqual({ state: undefined, version: 0 });
  });
});
