import { afterAll, describe, expect, it } from 'vitest';
import { setMaxListeners } from 'node:events';
import type { Redis } from 'ioredis';
import { createMemoryRateBudget, createRedisRateBudget, keyHash, slotsFor, type RateBudget } from '../../src/api/rate-budget.js';
import { RedisRateStateStore } from '../../src/api/rate-state-store.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { redisKeys } from '../../src/redis-keys.js';

const prefix = uniquePrefix('rate-budget');
const connections: Redis[] = [];
afterAll(async () => {
  if (connections[0]) await deletePrefix(connections[0], prefix);
  await Promise.all(connections.map((c) => c.quit()));
});

function redisBudget(apiKey: string, requestsPerSecond: number): RateBudget {
  const redis = testRedis();
  connections.push(redis);
  return createRedisRateBudget({ redis, apiKey, prefix, requestsPerSecond });
}

/** Runs `workers` loops on each budget for `ms`, each taking units as fast as the budget allows; returns when each unit was granted. */
async function hammer(budgets: RateBudget[], workers: number, ms: number): Promise<number[]> {
  const start = Date.now();
  const grants: number[] = [];
  const stop = new AbortController();
  setMaxListeners(100, stop.signal);
  const timer = setTimeout(() => stop.abort(), ms);
  await Promise.all(
    budgets.flatMap((budget) =>
      Array.from({ length: workers }, async () => {
        try {
          for (;;) {
            await budget.acquire(stop.signal);
            grants.push(Date.now() - start);
          }
        } catch {
          // aborted: the run is over
        }
      }),
    ),
  );
  clearTimeout(timer);
  return grants.filter((t) => t < ms);
}

function maxInWindow(grants: number[], windowMs: number): number {
  const sorted = [...grants].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

describe('slotsFor', () => {
  it('splits the rate into slots of about a fifth of a second', () => {
    expect(slotsFor(20)).toEqual({ perSlot: 4, slotMs: 200, counterTtlSeconds: 1 });
    expect(slotsFor(12).slotMs).toBeCloseTo(166.67, 1);
    expect(slotsFor(0.5)).toEqual({ perSlot: 1, slotMs: 2000, counterTtlSeconds: 2 });
    expect(() => slotsFor(0)).toThrow(RangeError);
  });
});

describe('Redis rate budget', () => {
  it('keeps two processes on one key within the rate, with bounded bursts', async () => {
    const key = 'bvk_budget_shared_key';
    const grants = await hammer([redisBudget(key, 20), redisBudget(key, 20)], 6, 1500);
    // 1.5 s at 20/s is 30; slots are aligned on the clock, so the run touches at most 9 slots of 4.
    expect(grants.length).toBeLessThanOrEqual(36);
    expect(grants.length).toBeGreaterThanOrEqual(20);
    expect(maxInWindow(grants, 1000)).toBeLessThanOrEqual(24);
    // No burst beyond two slots' worth in any 100 ms, although 12 loops wait at once.
    expect(maxInWindow(grants, 100)).toBeLessThanOrEqual(8);
  });

  it('gives separate keys separate budgets', async () => {
    const grants = await hammer([redisBudget('bvk_budget_key_a', 10), redisBudget('bvk_budget_key_b', 10)], 3, 1000);
    expect(grants.length).toBeGreaterThan(12);
  });

  it('blockFor on one process delays the other', async () => {
    const key = 'bvk_budget_blocked_key';
    const a = redisBudget(key, 50);
    const b = redisBudget(key, 50);
    await b.acquire();
    await a.blockFor(800);
    const started = Date.now();
    await b.acquire();
    // Blocks are whole seconds in the store (0.8 s becomes 1 s); at least the asked time passes.
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
  });

  it('reserves spaced moments for every process of a key, to the millisecond (Redis keeps 14 digits)', async () => {
    const [one, two] = [testRedis(), testRedis()];
    connections.push(one, two);
    const a = new RedisRateStateStore(one, redisKeys(prefix), 'reserve');
    const b = new RedisRateStateStore(two, redisKeys(prefix), 'reserve');
    const now = 1_800_000_000_000.5;
    expect(await a.reserve(now, 52.63)).toBe(now);
    expect(await b.reserve(now, 52.63)).toBeCloseTo(now + 52.63, 0);
    expect(await a.reserve(now + 10, 52.63)).toBeCloseTo(now + 2 * 52.63, 0);
    // Once the key is idle past its last reservation, a request leaves at once.
    expect(await b.reserve(now + 1_000, 52.63)).toBe(now + 1_000);
  });

  it('writes only a hash of the key to Redis', async () => {
    const key = 'bvk_budget_secret_value_42';
    await redisBudget(key, 5).blockFor(1000);
    const keys = await connections[0]!.keys(`${prefix}*`);
    expect(keys.some((k) => k.includes(keyHash(key)))).toBe(true);
    expect(keys.some((k) => k.includes(key))).toBe(false);
  });
});

describe('memory rate budget', () => {
  it('limits one process the same way and honours blockFor', async () => {
    const budget = createMemoryRateBudget({ requestsPerSecond: 20 });
    const grants = await hammer([budget], 6, 1000);
    expect(grants.length).toBeLessThanOrEqual(24);
    expect(grants.length).toBeGreaterThanOrEqual(12);
    await budget.blockFor(1000);
    const started = Date.now();
    await budget.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('rejects a waiting acquire when its signal aborts', async () => {
    const budget = createMemoryRateBudget({ requestsPerSecond: 1 });
    await budget.blockFor(5000);
    const controller = new AbortController();
    const pending = budget.acquire(controller.signal);
    controller.abort(new Error('shutdown'));
    await expect(pending).rejects.toThrow('shutdown');
  });
});
