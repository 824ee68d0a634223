import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createApiClient } from '../../src/api/client.js';
import { named, type NamedClient } from '../support/named-client.js';
import {
  createRedisRateBudget,
  keyHash,
  type RateBudget,
  type RequestsPerSecond,
} from '../../src/api/rate/rate-budget.js';
import type { ApiRequestEvent } from '../../src/api/transport.js';
import { startSimulator, type LoggedRequest, type RunningSimulator } from '../../src/simulator/index.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { redisKeys } from '../../src/redis-keys.js';
import { parseConfig } from '../../src/configuration.js';

// The adaptive budget against the simulator's fixed one-second windows, with real Redis shared by separate budget
// objects (as separate processes hold them). Each test uses a Redis prefix of its own, so nothing learned carries over.
const TODAY = '2026-11-20';
const LIMIT = 10;

let sim: RunningSimulator;
const prefix = uniquePrefix('adaptive-budget');
const connections: Redis[] = [];
const clients: NamedClient[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, brands: 2, days: 4, scale: 300, today: TODAY, latencyMs: 20 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sim.close();
  if (connections[0]) await deletePrefix(connections[0], prefix);
  await Promise.all(connections.map((c) => c.quit()));
});

function redis(): Redis {
  const connection = testRedis();
  connections.push(connection);
  return connection;
}

/** A budget as one process holds it: its own Redis connection, the worker's headroom. */
function budget(testPrefix: string, requestsPerSecond: RequestsPerSecond): RateBudget {
  return createRedisRateBudget({
    redis: redis(),
    apiKey: sim.apiKey,
    prefix: testPrefix,
    requestsPerSecond,
    headroom: 0.95,
  });
}

function client(requestsPerSecond: RequestsPerSecond, rateBudget: RateBudget, events: ApiRequestEvent[]): NamedClient {
  const config = parseConfig({
    api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond, retryBaseMs: 5, retryMaxMs: 50 },
  }).api;
  const made = named(
    createApiClient(config, { budget: rateBudget, retryRateLimited: true, onRequest: (e) => events.push(e) }),
  );
  clients.push(made);
  return made;
}

async function readPages(api: NamedClient, brand: number, pageSize: number, days: [string, string]): Promise<number> {
  let records = 0;
  for await (const page of api.conversations(brand, { startDate: days[0], endDate: days[1], pageSize }))
    records += page.records.length;
  return records;
}

async function sharedState(testPrefix: string): Promise<Record<string, string>> {
  return redis().hgetall(redisKeys(testPrefix).rateState(keyHash(sim.apiKey)));
}

/** Requests per second of the log between `fromMs` and the last request. */
function rateOf(log: LoggedRequest[], fromMs: number): number {
  const times = log.map((r) => Date.parse(r.time)).filter((t) => t >= fromMs);
  return times.length / ((Math.max(...times) - fromMs) / 1000);
}

async function quietWindow(): Promise<void> {
  // Starts each test in a fresh window of the simulator's limiter.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  sim.clearRequestLog();
}

describe('the adaptive rate budget against the simulator', () => {
  it('two processes configured at 4x the API limit converge to it and meet few 429s', async () => {
    const testPrefix = `${prefix}-converge`;
    sim.setKnobs({ rateLimit: LIMIT, rateLimitHeaders: 'none' });
    await quietWindow();
    const events: ApiRequestEvent[] = [];
    const a = client(4 * LIMIT, budget(testPrefix, 4 * LIMIT), events);
    const b = client(4 * LIMIT, budget(testPrefix, 4 * LIMIT), events);
    const started = Date.now();
    const [one, two] = await Promise.all([
      readPages(a, 1, 20, ['2026-11-19', TODAY]),
      readPages(b, 2, 20, ['2026-11-19', TODAY]),
    ]);
    expect(one).toBe(sim.truth.answers(1, '2026-11-19').length + sim.truth.answers(1, TODAY).length);
    expect(two).toBe(sim.truth.answers(2, '2026-11-19').length + sim.truth.answers(2, TODAY).length);

    const log = sim.requestLog();
    const limited = log.filter((r) => r.status === 429);
    expect(log.length).toBeGreaterThan(50);
    // Paced at 40/s without adapting, every second of the run would meet 429s; the first episode is cut at once.
    expect(limited.length / log.length).toBeLessThan(0.1);
    expect(limited.filter((r) => Date.parse(r.time) > started + 3_000).length).toBeLessThanOrEqual(3);
    expect(events.filter((e) => e.outcome === 'failed')).toEqual([]);
    // Both processes run at the one shared rate, near the limit: after the first episode, neither exceeds it.
    expect(rateOf(log, started + 3_000)).toBeLessThanOrEqual(LIMIT * 1.05);
    const state = await sharedState(testPrefix);
    expect(state.phase).toBe('steady');
    expect(Number(state.rate)).toBeGreaterThan(LIMIT * 0.6);
    expect(Number(state.rate)).toBeLessThanOrEqual(LIMIT * 1.1);
  });

  it('auto starts low, doubles until the first 429, and settles at the limit', async () => {
    const testPrefix = `${prefix}-auto`;
    sim.setKnobs({ rateLimit: LIMIT, rateLimitHeaders: 'none' });
    await quietWindow();
    const events: ApiRequestEvent[] = [];
    const api = client('auto', budget(testPrefix, 'auto'), events);
    const started = Date.now();
    await Promise.all([
      readPages(api, 1, 10, ['2026-11-19', '2026-11-19']),
      readPages(api, 2, 10, ['2026-11-19', '2026-11-19']),
    ]);

    const log = sim.requestLog();
    const times = log.map((r) => Date.parse(r.time) - started);
    // The first second runs at 2/s (a request may land on each edge).
    expect(times.filter((t) => t < 1_000).length).toBeLessThanOrEqual(4);
    const limited = log.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.length).toBeLessThanOrEqual(10);
    const state = await sharedState(testPrefix);
    expect(state.phase).toBe('steady');
    expect(Number(state.limit)).toBeGreaterThanOrEqual(LIMIT * 0.7);
    expect(Number(state.limit)).toBeLessThanOrEqual(LIMIT * 1.6);
    expect(Number(state.rate)).toBeLessThanOrEqual(LIMIT * 1.1);
  });

  it('a limit stated in RateLimit-Policy becomes the ceiling: configured at 8x, no 429', async () => {
    const testPrefix = `${prefix}-ietf`;
    sim.setKnobs({ rateLimit: LIMIT, rateLimitHeaders: 'ietf' });
    await quietWindow();
    const events: ApiRequestEvent[] = [];
    const api = client(8 * LIMIT, budget(testPrefix, 8 * LIMIT), events);
    const started = Date.now();
    await Promise.all([readPages(api, 1, 10, ['2026-11-20', TODAY]), readPages(api, 2, 10, ['2026-11-20', TODAY])]);

    const log = sim.requestLog();
    expect(log.length).toBeGreaterThan(40);
    expect(log.filter((r) => r.status === 429).length).toBeLessThanOrEqual(1);
    expect(rateOf(log, started + 1_000)).toBeLessThanOrEqual(LIMIT);
  });

  it('X-RateLimit-* headers end the probe of auto at the stated limit', async () => {
    const testPrefix = `${prefix}-x-ratelimit`;
    sim.setKnobs({ rateLimit: LIMIT, rateLimitHeaders: 'x-ratelimit' });
    await quietWindow();
    const events: ApiRequestEvent[] = [];
    const api = client('auto', budget(testPrefix, 'auto'), events);
    await readPages(api, 1, 100, ['2026-11-20', TODAY]);
    const state = await sharedState(testPrefix);
    // X-RateLimit-Limit names no window; the longest X-RateLimit-Reset seen (1 s) stands for it.
    expect(state).toMatchObject({ phase: 'steady', rate: String(LIMIT * 0.95) });
    expect(sim.requestLog().filter((r) => r.status === 429)).toEqual([]);
  });

  it('an answer saying none remain blocks the key until the reset, for every process', async () => {
    const testPrefix = `${prefix}-remaining`;
    const one = budget(testPrefix, 50);
    const other = budget(testPrefix, 50);
    await one.observe({ status: 200, sentAt: Date.now(), signals: { remaining: 0, resetMs: 1_000, problems: [] } });
    const started = Date.now();
    await other.acquire();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a 429 in one process cuts the rate of the other, once per episode', async () => {
    const testPrefix = `${prefix}-cut`;
    const one = budget(testPrefix, 40);
    const other = budget(testPrefix, 40);
    await other.acquire(); // writes the initial state: 40 x 0.95
    const sentAt = Date.now();
    for (let i = 0; i < 12; i++) await other.observe({ status: 200, sentAt });
    // A process counts its accepted answers in Redis with its next request, or within 100 ms.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await one.observe({ status: 429, sentAt });
    const cut = await sharedState(testPrefix);
    expect(Number(cut.rate)).toBeGreaterThan(10);
    expect(Number(cut.rate)).toBeLessThanOrEqual(12 * 0.95);
    // The same episode, heard by the other process: no second cut.
    await other.observe({ status: 429, sentAt });
    expect((await sharedState(testPrefix)).rate).toBe(cut.rate);
  });
});
