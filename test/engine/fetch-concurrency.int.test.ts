import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startDelayProxy, type DelayProxy } from '../../bench/delay-proxy.js';
import {
  FAR_REDIS_STEP_MS,
  FETCH_SLOTS_PER_WORKER,
  fetchConcurrencyFor,
  fetchWorkerSlots,
  redisRoundTripMs,
} from '../../src/engine/fetch/fetch-concurrency.js';
import { TEST_REDIS_URL } from '../support/redis.js';

describe('fetch concurrency and the round trip to Redis', () => {
  it('keeps the configured concurrency for a Redis nearby and grows it by the configured one per step, up to the most', () => {
    expect(fetchConcurrencyFor(8, 0.2, 64)).toBe(8);
    // Under a step is a loaded machine as often as a far Redis: more jobs than the API's connections only queue requests.
    expect(fetchConcurrencyFor(8, FAR_REDIS_STEP_MS - 0.1, 64)).toBe(8);
    expect(fetchConcurrencyFor(8, FAR_REDIS_STEP_MS * 2, 64)).toBe(24);
    expect(fetchConcurrencyFor(8, 80, 64)).toBe(64);
    expect(fetchConcurrencyFor(8, 80, 32)).toBe(32);
    // A most below the configured one never lowers it: the configured concurrency is what the user asked for.
    expect(fetchConcurrencyFor(16, 80, 8)).toBe(16);
  });

  it('splits the slots of a far Redis over workers of at most FETCH_SLOTS_PER_WORKER, and keeps one worker nearby', () => {
    expect(fetchWorkerSlots(8, 0.2)).toEqual([8]);
    // Given by the user and large, on a Redis nearby: one worker fills 64 slots in no time.
    expect(fetchWorkerSlots(64, 0.2)).toEqual([64]);
    expect(fetchWorkerSlots(8, 80)).toEqual([8]);
    expect(fetchWorkerSlots(64, 80)).toEqual(Array(64 / FETCH_SLOTS_PER_WORKER).fill(FETCH_SLOTS_PER_WORKER));
    for (const concurrency of [9, 24, 50, 63, 256]) {
      const slots = fetchWorkerSlots(concurrency, 20);
      expect(slots.reduce((sum, each) => sum + each, 0)).toBe(concurrency);
      expect(Math.max(...slots)).toBeLessThanOrEqual(FETCH_SLOTS_PER_WORKER);
      expect(Math.max(...slots) - Math.min(...slots)).toBeLessThanOrEqual(1);
    }
  });

  describe('measured through a proxy that delays each round trip', () => {
    let proxy: DelayProxy;
    let redis: Redis;
    beforeAll(async () => {
      const url = new URL(TEST_REDIS_URL);
      proxy = await startDelayProxy({ host: url.hostname, port: Number(url.port || 6379) }, 40);
      redis = new Redis(proxy.url, { maxRetriesPerRequest: null });
    });
    afterAll(async () => {
      redis.disconnect();
      await proxy.close();
    });

    it('is at least the delay, and the concurrency it gives grows with it', async () => {
      const roundTripMs = await redisRoundTripMs(redis);
      // The proxy holds each request 40 ms: no round trip through it is shorter (a busy machine only adds).
      expect(roundTripMs).toBeGreaterThanOrEqual(39);
      expect(fetchConcurrencyFor(8, roundTripMs, 64)).toBeGreaterThanOrEqual(8 * 4);
      expect(fetchWorkerSlots(fetchConcurrencyFor(8, roundTripMs, 64), roundTripMs).length).toBeGreaterThanOrEqual(4);
    });
  });
});
