import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateBudget } from '../../src/api/rate/rate-budget.js';
import { preflight } from '../../src/cli/preflight.js';
import { AccessMemo } from '../../src/engine/fetch/access-memo.js';
import { createLogger, routeLogLines } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { deletePrefix, TEST_REDIS_URL, testRedis, uniquePrefix } from '../support/redis.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * The preflight asks one request per brand: the first alone (a refused key stops there), the others several at once,
 * paced by the key's budget in Redis, so a key a run's 429 blocked is not asked before the block ends.
 */

const BRANDS = 12;
let sim: RunningSimulator;
const prefix = uniquePrefix('preflight');
const redis = testRedis();

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, brands: BRANDS, days: 3, scale: 5, today: '2026-11-20', latencyMs: 150 });
});
afterAll(async () => {
  await sim?.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

const configOf = () =>
  parseConfig({
    api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 1000 },
    brands: sim.brands,
    db: '/tmp/unused.duckdb',
    redisPrefix: prefix,
  });

describe('preflight', () => {
  it('asks the brands after the first several at once, and lists them in their order', async () => {
    const brands = [...sim.brands.slice(0, BRANDS), sim.forbiddenBrand];
    const before = sim.requestLog().length;
    const result = await preflight(configOf(), TEST_REDIS_URL, { brands, log: createLogger({ level: 'silent' }) });
    expect(result.readable).toEqual(sim.brands.slice(0, BRANDS));
    expect(result.denied.map((denial) => denial.brandId)).toEqual([sim.forbiddenBrand]);
    const probes = sim.requestLog().slice(before);
    expect(probes).toHaveLength(brands.length);
    // The most requests held by the API at one moment: one after another, never more than one (150 ms each).
    const spans = probes.map((entry) => ({
      from: Date.parse(entry.time),
      to: Date.parse(entry.time) + entry.durationMs,
    }));
    const overlapping = Math.max(
      ...spans.map((span) => spans.filter((other) => other.from <= span.from && span.from < other.to).length),
    );
    expect(overlapping).toBeGreaterThan(1);
  }, 60_000);

  it("forgets the refusals of the command's streams for the brands it reads, and keeps the others", async () => {
    const config = configOf();
    const memo = new AccessMemo(redis, prefix, config.api.apiKey!);
    const brand = sim.brands[0]!;
    const refusal = { brandId: brand, errorCode: 'forbidden', message: 'not in the plan', requestId: null, at: '' };
    for (const stream of ['product_ranking', 'articles']) await memo.remember({ ...refusal, stream });
    await preflight(config, TEST_REDIS_URL, {
      brands: [brand],
      log: createLogger({ level: 'silent' }),
      askAgain: ['product_ranking'],
    });
    expect(await memo.refusalFor(brand, 'product_ranking')).toBeUndefined();
    expect(await memo.refusalFor(brand, 'articles')).toMatchObject({ stream: 'articles', errorCode: 'forbidden' });
  });

  it('waits out a block the key is under before its first request, and says so', async () => {
    const config = configOf();
    const budget = createRedisRateBudget({ redis, prefix, apiKey: config.api.apiKey!, requestsPerSecond: 1000 });
    const blockedAt = Date.now();
    await budget.blockFor(6_000);
    const lines: string[] = [];
    routeLogLines((text) => lines.push(text));
    const before = sim.requestLog().length;
    try {
      await preflight(config, TEST_REDIS_URL, {
        brands: sim.brands.slice(0, 2),
        log: createLogger({ level: 'info', pretty: false }),
      });
    } finally {
      routeLogLines(null);
    }
    const first = sim.requestLog()[before]!;
    expect(Date.parse(first.time) - blockedAt).toBeGreaterThanOrEqual(5_900);
    expect(lines.join('\n')).toMatch(/held back by an earlier answer of the API/);
  }, 60_000);
});
