import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { quotaStatus, type QuotaStatus } from '../../src/engine/fetch/quota-parking.js';
import { RunStore, totalCounters, type RunMeta } from '../../src/engine/run/run-store.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { engineFixture, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * The API's daily quota is smaller than the budget bvsync was told: its 429, whose Retry-After runs to the end of the
 * simulator's day, is read as a spent quota. The backfill's other slices wait for that moment instead of failing, and
 * the backfill completes once the clock has moved past it.
 */

const DAY_MS = 24 * 60 * 60_000;
const API_QUOTA = 5;
const DAYS = 10;

let now = Date.parse('2026-11-20T06:00:00Z');
const clock = () => now;

let fx: EngineFixture;
let host: WorkerHost;
let connection: ReturnType<typeof connectRedis>;
let runs: RunStore;
let runId: string;
let spent: QuotaStatus | null;
let doneBeforeReset: number;
let askedBeforeReset: number;
let ended: RunMeta;

beforeAll(async () => {
  fx = await engineFixture('quota-spent-429', {
    sim: { brands: 1, days: 20, scale: 30, clock, dailyQuota: API_QUOTA },
    config: {
      api: { dailyRequestBudget: 1_000, requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 },
      sync: { streams: ['conversations'] },
    },
  });
  fx.config.api.url = fx.sim.url;
  fx.config.api.apiKey = fx.sim.apiKey;
  connection = connectRedis(fx.redisUrl);
  runs = new RunStore(connection, fx.config.redisPrefix);
  const queues = openQueues(connection, fx.config.redisPrefix);
  // Given, the concurrency stays as configured: a host left to fit it grows it when a busy box makes Redis look far.
  host = new WorkerHost({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    leaseTtlMs: 2_000,
    clock,
    fetchConcurrency: fx.config.sync.fetchConcurrency,
  });
  await host.start();
  ({ runId } = await enqueueRun({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    from: '2026-11-10',
    to: '2026-11-19',
    today: '2026-11-20',
  }));
  await until(
    'the slices the API refused to wait for its quota',
    async () => {
      const { done } = await runs.progress(runId);
      const { delayed } = await queues.fetch.getJobCounts('delayed');
      return done === API_QUOTA && delayed === DAYS - API_QUOTA;
    },
    60_000,
  );
  spent = await quotaStatus(connection, fx.config, queues, clock);
  doneBeforeReset = (await runs.progress(runId)).done;
  askedBeforeReset = fx.sim.requestLog().length;
  await queues.close();
  now += DAY_MS;
  await until('the backfill to finish', async () => (await runs.get(runId))?.status === 'complete', 60_000);
  ended = (await runs.get(runId))!;
}, 180_000);

afterAll(async () => {
  await host?.stop(5_000);
  connection?.disconnect();
  await fx?.cleanup();
});

describe('a 429 whose Retry-After is hours', () => {
  it('is read as the quota spent until then: the other slices wait for it', () => {
    expect(doneBeforeReset).toBe(API_QUOTA);
    expect(spent?.spentUntil).toBe('2026-11-21T00:00:00.000Z');
    expect(spent?.waiting.map((run) => ({ runId: run.runId, slices: run.slices, resumesAt: run.resumesAt }))).toEqual([
      { runId, slices: DAYS - API_QUOTA, resumesAt: '2026-11-21T00:00:00.000Z' },
    ]);
  });

  it('fails no slice, and the backfill completes once the quota is back', async () => {
    expect(ended.status).toBe('complete');
    expect(totalCounters((await runs.counters(runId)).values())).toMatchObject({
      planned: DAYS,
      done: DAYS,
      failed: 0,
      incomplete: 0,
    });
    // Only the requests in flight when the first 429 came met one: the others waited without asking, and no slice
    // asked twice before the quota was back, nor met a 429 after.
    const log = fx.sim.requestLog();
    const refused = log.filter((entry) => entry.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeLessThanOrEqual(fx.config.sync.fetchConcurrency);
    expect(new Set(refused.map((entry) => JSON.stringify(entry.query))).size).toBe(refused.length);
    expect(log.slice(askedBeforeReset).filter((entry) => entry.status === 429)).toEqual([]);
  });
});
