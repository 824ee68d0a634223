import { afterAll, describe, expect, it } from 'vitest';
import { setMaxListeners } from 'node:events';
import type { Redis } from 'ioredis';
import {
  createMemoryRateBudget,
  createRedisRateBudget,
  keyHash,
  slotsFor,
  type RateBudget,
} from '../../src/api/rate/rate-budget.js';
import { RedisRateGate, type GateTurn } from '../../src/api/rate/rate-gate.js';
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
    expect(slotsFor(20)).toEqual({ perSlot: 4, slotMs: 200 });
    expect(slotsFor(12).slotMs).toBeCloseTo(166.67, 1);
    expect(slotsFor(0.5)).toEqual({ perSlot: 1, slotMs: 2000 });
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

  it('spaces the turns of every process of a key, to the microsecond', async () => {
    const [one, two] = [testRedis(), testRedis()];
    connections.push(one, two);
    const a = new RedisRateGate(one, redisKeys(prefix), 'spacing');
    const b = new RedisRateGate(two, redisKeys(prefix), 'spacing');
    // 19/s in slots of 210.5 ms: 4 units a slot; all four turns come late in the slot, so the spacing decides.
    const slotMs = 4_000 / 19;
    const slot = Math.floor(Date.now() / slotMs) + 10;
    const now = (slot + 1) * slotMs - 0.5;
    const turn: GateTurn = { now, slot, allowance: 4, perSlot: 4, slotMs, spacingMs: 1_000 / 19 };
    const moments = [await a.turn(turn), await b.turn(turn), await a.turn(turn), await b.turn(turn)];
    expect(moments.map((m) => (m.kind === 'leave' ? m.at - now : Number.NaN))).toEqual(
      [0, 1, 2, 3].map((i) => expect.closeTo((i * 1_000) / 19, 2)),
    );
    expect(await a.turn(turn)).toEqual({ kind: 'slot-full' });
    // Once the key is idle past its last reservation, a request leaves when its unit is due.
    const later = { ...turn, slot: slot + 20, now: (slot + 20) * slotMs };
    expect(await b.turn(later)).toEqual({ kind: 'leave', at: expect.closeTo(later.now, 1) });
  });

  it('a turn on a blocked key takes no unit and says how long the block lasts; a shorter block keeps the longer', async () => {
    const redis = testRedis();
    connections.push(redis);
    const gate = new RedisRateGate(redis, redisKeys(prefix), 'blocked');
    await gate.blockFor(2_000);
    await gate.blockFor(500);
    const slotMs = 200;
    const now = Date.now();
    const turn: GateTurn = { now, slot: Math.floor(now / slotMs), allowance: 1, perSlot: 1, slotMs, spacingMs: 200 };
    const answer = await gate.turn(turn);
    expect(answer.kind).toBe('blocked');
    expect(answer.kind === 'blocked' && answer.ms).toBeGreaterThan(1_500);
    expect(await gate.blockedMs()).toBeGreaterThan(1_500);
    expect(await redis.exists(redisKeys(prefix).rateUnit('blocked', turn.slot))).toBe(0);
  });

  it('counts the accepted answers a turn carries into their second', async () => {
    const redis = testRedis();
    connections.push(redis);
    const gate = new RedisRateGate(redis, redisKeys(prefix), 'accepted');
    const now = Date.now();
    const second = Math.floor(now / 1000);
    await gate.turn({
      now,
      slot: Math.floor(now / 200),
      allowance: 5,
      perSlot: 5,
      slotMs: 200,
      spacingMs: 40,
      accepted: { second, count: 12 },
    });
    await gate.countAccepted({ second, count: 3 });
    expect(Number(await redis.get(redisKeys(prefix).rateAccepted('accepted', second)))).toBe(15);
  });

  it('a request costs one Redis round trip: its turn at the gate, with the answer before it counted on the way', async () => {
    const redis = testRedis();
    connections.push(redis);
    const budget = createRedisRateBudget({
      redis,
      apiKey: 'bvk_budget_round_trips',
      prefix,
      requestsPerSecond: 100_000,
    });
    await budget.acquire();
    let commands = 0;
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, stream) => {
      commands += 1;
      return send(command, stream);
    };
    const requests = 100;
    for (let i = 0; i < requests; i++) {
      await budget.acquire();
      await budget.observe({ status: 200, sentAt: Date.now() });
    }
    // The shared state is read again every 100 ms, and a count held 100 ms or past its second goes alone: a few more.
    expect(commands).toBeGreaterThanOrEqual(requests);
    expect(commands).toBeLessThanOrEqual(requests + 10);
  });

  it('a turn Redis did not take keeps the accepted answers it carried for the next turn', async () => {
    const redis = testRedis();
    connections.push(redis);
    const apiKey = 'bvk_budget_give_back';
    const budget = createRedisRateBudget({ redis, apiKey, prefix, requestsPerSecond: 100_000 });
    await budget.acquire();
    const second = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 3; i++) await budget.observe({ status: 200, sentAt: Date.now() });
    const send = redis.sendCommand.bind(redis);
    // The turn's script fails as a timeout would; the shared rate's read before it goes through.
    redis.sendCommand = (command, stream) => {
      if (command.name !== 'evalsha' && command.name !== 'eval') return send(command, stream);
      redis.sendCommand = send;
      command.reject(new Error('Command timed out'));
      return command.promise;
    };
    await expect(budget.acquire()).rejects.toThrow('Command timed out');
    await budget.acquire();
    const counted = await Promise.all(
      [second, second + 1].map((s) => redis.get(redisKeys(prefix).rateAccepted(keyHash(apiKey), s))),
    );
    expect(counted.reduce((sum, value) => sum + Number(value ?? 0), 0)).toBe(3);
  });

  it('counts answers as accepted, but not the API absent (a 5xx or a 408) nor a 429', async () => {
    const redis = testRedis();
    connections.push(redis);
    const apiKey = 'bvk_budget_absence';
    const budget = createRedisRateBudget({ redis, apiKey, prefix, requestsPerSecond: 100_000 });
    await budget.acquire();
    const second = Math.floor(Date.now() / 1000);
    for (const status of [200, 404, 408, 500, 503]) await budget.observe({ status, sentAt: Date.now() });
    await budget.close!();
    const counted = await Promise.all(
      [second, second + 1].map((s) => redis.get(redisKeys(prefix).rateAccepted(keyHash(apiKey), s))),
    );
    expect(counted.reduce((sum, value) => sum + Number(value ?? 0), 0)).toBe(2);
  });

  it('closed, it hands on the answers it holds at once, so none is counted into a connection its owner has closed', async () => {
    const redis = testRedis();
    const apiKey = 'bvk_budget_close';
    const warnings: string[] = [];
    const logger = {
      warn: (_fields: unknown, message: string) => warnings.push(message),
      info: () => undefined,
      debug: () => undefined,
    };
    const budget = createRedisRateBudget({
      redis,
      apiKey,
      prefix,
      requestsPerSecond: 100_000,
      logger: logger as never,
    });
    await budget.acquire();
    const second = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 4; i++) await budget.observe({ status: 200, sentAt: Date.now() });
    await budget.close!();
    const counted = await Promise.all(
      [second, second + 1].map((s) => redis.get(redisKeys(prefix).rateAccepted(keyHash(apiKey), s))),
    );
    redis.disconnect();
    // The held answers' timer (100 ms) would have fired into the closed connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(counted.reduce((sum, value) => sum + Number(value ?? 0), 0)).toBe(4);
    expect(warnings).toEqual([]);
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
