import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { ceilingFor, rateAt } from '../../src/api/rate/adaptive-rate.js';
import { createApiClient } from '../../src/api/client.js';
import { createRedisRateBudget, keyHash, paceCeiling, RATE_HEADROOM } from '../../src/api/rate/rate-budget.js';
import { RedisRateStateStore } from '../../src/api/rate/rate-state-store.js';
import { redisKeys } from '../../src/redis-keys.js';
import type { Knobs } from '../../src/simulator/knobs.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { named, type NamedClient } from '../support/named-client.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * Every rate-header convention the simulator can send (its rateLimitHeaders, rateLimitReset and rateLimitAlgorithm
 * knobs), against a key configured at 4x the API's limit: after a few dozen requests, the rate the key runs at is
 * within [0.9, 1] x the limit, the header that stated it is recorded, and the API refused at most one request. The
 * test counts requests and reads the shared rate state; it never measures time (throughput: bench/rate-conventions.ts, in `npm run bench -- rate-limit`).
 */
const TODAY = '2026-11-20';
const LIMIT = 10;
const CONFIGURED = 4 * LIMIT;

const CONVENTIONS: Array<{ name: string; knobs: Partial<Knobs>; by: string }> = [
  {
    name: 'X-RateLimit-Reset in seconds from now',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'delta-seconds' },
    by: 'X-RateLimit-Limit',
  },
  {
    name: 'X-RateLimit-Reset as a Unix time in seconds',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'unix-seconds' },
    by: 'X-RateLimit-Limit',
  },
  {
    name: 'X-RateLimit-Reset as a Unix time in milliseconds',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'unix-milliseconds' },
    by: 'X-RateLimit-Limit',
  },
  {
    name: 'X-RateLimit-Reset as an HTTP date',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'http-date' },
    by: 'X-RateLimit-Limit',
  },
  { name: 'RateLimit and RateLimit-Policy of draft 07', knobs: { rateLimitHeaders: 'ietf' }, by: 'RateLimit-Policy' },
  {
    name: 'RateLimit and RateLimit-Policy of drafts 08+ (q, w, r, t)',
    knobs: { rateLimitHeaders: 'ietf-structured' },
    by: 'RateLimit-Policy',
  },
  {
    name: 'a token bucket whose full-refill reset is a Unix time in seconds',
    knobs: { rateLimitAlgorithm: 'token-bucket', rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'unix-seconds' },
    by: 'X-RateLimit-Limit',
  },
  {
    name: 'a token bucket whose full-refill reset is an HTTP date',
    knobs: { rateLimitAlgorithm: 'token-bucket', rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'http-date' },
    by: 'X-RateLimit-Limit',
  },
];

let sim: RunningSimulator;
const prefix = uniquePrefix('rate-conventions');
const connections: Redis[] = [];
const clients: NamedClient[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 12, brands: 2, days: 2, scale: 150, today: TODAY, latencyMs: 10 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sim.close();
  if (connections[0]) await deletePrefix(connections[0], prefix);
  await Promise.all(connections.map((c) => c.quit()));
});

describe('each rate-header convention: the key runs at >= 0.9 x the limit the API states, with at most one 429', () => {
  it.each(CONVENTIONS.map((convention, i) => [convention.name, convention, i] as const))(
    '%s',
    async (_name, convention, i) => {
      const testPrefix = `${prefix}-${i}`;
      const redis = testRedis();
      connections.push(redis);
      const apiKey = sim.apiKey;
      sim.setKnobs({
        rateLimit: LIMIT,
        rateLimitHeaders: 'none',
        rateLimitReset: 'delta-seconds',
        rateLimitAlgorithm: 'fixed-window',
        ...convention.knobs,
      });
      sim.clearRequestLog();
      const budget = createRedisRateBudget({
        redis,
        apiKey,
        prefix: testPrefix,
        requestsPerSecond: CONFIGURED,
        headroom: RATE_HEADROOM,
        firstAnswerFirst: true,
      });
      const config = parseConfig({
        api: { url: sim.url, apiKey, requestsPerSecond: CONFIGURED, retryBaseMs: 5, retryMaxMs: 50 },
      }).api;
      const api = named(createApiClient(config, { budget, retryRateLimited: true }));
      clients.push(api);
      const read = async (brand: number) => {
        for await (const page of api.conversations(brand, { startDate: TODAY, endDate: TODAY, pageSize: 10 }))
          void page;
      };
      await Promise.all([read(1), read(2)]);

      const log = sim.requestLog();
      expect(log.length).toBeGreaterThanOrEqual(25);
      expect(log.filter((r) => r.status === 429).length).toBeLessThanOrEqual(1);
      const stored = await new RedisRateStateStore(redis, redisKeys(testPrefix), keyHash(apiKey)).inspect();
      const state = stored!.state;
      expect(state.stated).toMatchObject({ perSecond: LIMIT, by: convention.by });
      const configured = paceCeiling({ requestsPerSecond: CONFIGURED, headroom: RATE_HEADROOM });
      // The rate the key runs at once a 429's cut (if one came) is climbed back: counted in steps, not waited for.
      const steady = rateAt(state, state.at + 10_000, ceilingFor(state, configured, RATE_HEADROOM));
      expect(steady).toBeGreaterThanOrEqual(0.9 * LIMIT);
      expect(steady).toBeLessThanOrEqual(LIMIT);
    },
  );
});

describe('the first answer first', () => {
  it('eight readers of a fresh key send one request, then leave at the rate its headers state: no 429 at the start', async () => {
    const testPrefix = `${prefix}-first`;
    const redis = testRedis();
    connections.push(redis);
    sim.setKnobs({
      rateLimit: LIMIT,
      rateLimitHeaders: 'ietf',
      rateLimitReset: 'delta-seconds',
      rateLimitAlgorithm: 'fixed-window',
    });
    sim.clearRequestLog();
    const budget = createRedisRateBudget({
      redis,
      apiKey: sim.apiKey,
      prefix: testPrefix,
      requestsPerSecond: CONFIGURED,
      headroom: RATE_HEADROOM,
      firstAnswerFirst: true,
    });
    const config = parseConfig({
      api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: CONFIGURED, retryBaseMs: 5, retryMaxMs: 50 },
    }).api;
    const api = named(createApiClient(config, { budget, retryRateLimited: true }));
    clients.push(api);
    // Eight first pages at once, as eight fetch slots start a run: at the configured 38/s, all eight left in one window.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for await (const page of api.conversations(1, { startDate: TODAY, endDate: TODAY, pageSize: 5 })) return page;
      }),
    );
    const log = sim.requestLog();
    expect(log).toHaveLength(8);
    expect(log.filter((r) => r.status === 429)).toEqual([]);
    // Only the first left before an answer stated the rate: the others were spaced at 9.5/s (632 ms for six gaps),
    // not 38/s (158 ms). Arrival times jitter on a busy box, so the bound sits at three quarters of the stated rate's.
    const times = log.map((r) => Date.parse(r.time)).sort((a, b) => a - b);
    expect(times.at(-1)! - times[1]!).toBeGreaterThanOrEqual(0.75 * 6 * (1000 / (LIMIT * RATE_HEADROOM)));
  });
});
