import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, totalCounters, type RunMeta } from '../../src/engine/run/run-store.js';
import { enqueueRun, type RunProgress } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { quotaStatus, type QuotaStatus } from '../../src/engine/fetch/quota-parking.js';
import { requestBudgetLines } from '../../src/cli/status/status.js';
import { redisKeys } from '../../src/redis-keys.js';
import type { LoggedRequest } from '../../src/simulator/index.js';
import { engineFixture, runInProcess, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * A 60-day backfill under a daily budget whose backfill share is a third of what it needs: it reads 20 days a window,
 * newest first, its other slices waiting (not failed) for the next window, and completes in the third. The simulator
 * and bvsync read one clock the test moves a day at a time; the simulator's own daily quota equals the budget, so any
 * request past it would be a 429. The incremental sync of each day still runs, in the share kept for it.
 */

const DAY_MS = 24 * 60 * 60_000;
const BUDGET = 40;
/** Backfills may use half the window: 20 requests, a third of the backfill's 60. */
const RESERVED = 0.5;
const FROM = '2026-09-21';
const TO = '2026-11-19';
const DAYS = 60;

let now = Date.parse('2026-11-20T06:00:00Z');
const clock = () => now;

let fx: EngineFixture;
let host: WorkerHost;
let connection: ReturnType<typeof connectRedis>;
let runs: RunStore;
let backfillId: string;
/** The simulator's request log, cut at each move of the clock: one part per quota window. */
const windows: LoggedRequest[][] = [];
const syncs: RunProgress[] = [];
let backfill: RunMeta;
/** What `status` says of the budget once the first window's share is spent. */
let firstStatus: QuotaStatus | null;
/** The time to live (ms) of the parked set and of the slice estimates then: -1 would be a key kept for ever. */
let ttls: { parked: number; estimate: number };

/** Slices waiting for the next window: noted as parked, and delayed in the fetch queue. */
async function parked(): Promise<number> {
  const queues = openQueues(connection, fx.config.redisPrefix);
  try {
    const [noted, { delayed }] = await Promise.all([
      connection.zcard(redisKeys(fx.config.redisPrefix).quotaParked),
      queues.fetch.getJobCounts('delayed'),
    ]);
    return noted === delayed ? noted : -1;
  } finally {
    await queues.close();
  }
}

/** Waits until the backfill has `done` slices and every other one waits for the next window. */
async function windowSpent(done: number): Promise<void> {
  await until(
    `the backfill to read ${done} slices and park the rest`,
    async () => (await runs.progress(backfillId)).done === done && (await parked()) === DAYS - done,
    60_000,
  );
}

async function syncToday(): Promise<void> {
  const today = new Date(now).toISOString().slice(0, 10);
  syncs.push(await runInProcess(fx, { kind: 'sync', today, worker: { clock } }));
}

function cutWindow(): void {
  const all = fx.sim.requestLog();
  windows.push(all.slice(windows.flat().length));
}

beforeAll(async () => {
  fx = await engineFixture('daily-quota', {
    sim: { brands: 1, days: 70, scale: 30, clock, dailyQuota: BUDGET },
    config: {
      api: {
        dailyRequestBudget: BUDGET,
        reservedForSync: RESERVED,
        requestsPerSecond: 1000,
        retryBaseMs: 5,
        retryMaxMs: 50,
      },
      // One slice at a time: with eight, a later-picked slice may reach the budget first and blur the window's edge.
      // maxFetchConcurrency too, or a slow Redis would raise the concurrency again (fetch-concurrency.ts).
      sync: {
        streams: ['conversations'],
        initialDays: 2,
        lookbackDays: 1,
        fetchConcurrency: 1,
        maxFetchConcurrency: 1,
      },
    },
  });
  fx.config.api.url = fx.sim.url;
  fx.config.api.apiKey = fx.sim.apiKey;
  connection = connectRedis(fx.redisUrl);
  runs = new RunStore(connection, fx.config.redisPrefix);
  host = new WorkerHost({ config: fx.config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000, clock });
  await host.start();
  ({ runId: backfillId } = await enqueueRun({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    from: FROM,
    to: TO,
    today: '2026-11-20',
  }));
  for (const done of [20, 40]) {
    await windowSpent(done);
    if (done === 20) {
      const queues = openQueues(connection, fx.config.redisPrefix);
      firstStatus = await quotaStatus(connection, fx.config, queues, clock);
      const keys = redisKeys(fx.config.redisPrefix);
      ttls = { parked: await connection.pttl(keys.quotaParked), estimate: await connection.pttl(keys.quotaEstimate) };
      await queues.close();
    }
    await syncToday();
    cutWindow();
    now += DAY_MS;
  }
  await until('the backfill to finish', async () => (await runs.get(backfillId))?.status === 'complete', 60_000);
  await syncToday();
  cutWindow();
  backfill = (await runs.get(backfillId))!;
}, 240_000);

afterAll(async () => {
  await host?.stop(5_000);
  connection?.disconnect();
  await fx?.cleanup();
});

const backfillDays = (window: LoggedRequest[]) =>
  window
    .filter((entry) => entry.path.endsWith('/conversations') && String(entry.query.start_date) <= TO)
    .map((entry) => String(entry.query.start_date));

describe('a backfill larger than the daily request budget', () => {
  it('completes over three windows with no failed slice', async () => {
    expect(backfill.status).toBe('complete');
    const counters = totalCounters((await runs.counters(backfillId)).values());
    expect(counters).toMatchObject({ planned: DAYS, done: DAYS, failed: 0, incomplete: 0 });
    expect(windows).toHaveLength(3);
  });

  it('sends no request past the budget: the simulator, whose quota is the same, answered no 429', () => {
    expect(fx.sim.requestLog().filter((entry) => entry.status === 429)).toEqual([]);
    for (const window of windows) expect(window.length).toBeLessThanOrEqual(BUDGET);
  });

  it("reads the backfill's share of each window, newest days first", () => {
    const read = windows.map(backfillDays);
    expect(read.map((days) => days.length)).toEqual([20, 20, 20]);
    expect(new Set(read.flat()).size).toBe(DAYS);
    // Each window's days are all newer than the next one's.
    for (let index = 1; index < read.length; index++)
      expect([...read[index]!].sort().at(-1)! < [...read[index - 1]!].sort()[0]!).toBe(true);
  });

  it('says in status how many requests and days are left and when the backfill resumes', () => {
    expect(firstStatus).toMatchObject({
      budget: BUDGET,
      backfillShare: 20,
      spent: 20,
      spentUntil: null,
      window: { start: '2026-11-20T00:00:00.000Z', end: '2026-11-21T00:00:00.000Z' },
    });
    expect(firstStatus!.waiting).toEqual([
      { runId: backfillId, slices: 40, days: 40, requests: 40, resumesAt: '2026-11-21T00:00:00.000Z' },
    ]);
    expect(requestBudgetLines(firstStatus!).at(-1)).toBe(
      `run ${backfillId} waits for the next window: 40 slice(s) of 40 day(s) left, about 40 request(s); it resumes at 2026-11-21T00:00:00.000Z`,
    );
  });

  it('keeps the parked set and the estimates in Redis for a while, not for ever', () => {
    expect(ttls.parked).toBeGreaterThan(DAY_MS);
    expect(ttls.estimate).toBeGreaterThan(DAY_MS);
  });

  it('runs the incremental sync of each of those days', () => {
    expect(syncs.map((sync) => sync.meta.status)).toEqual(['complete', 'complete', 'complete']);
    expect(syncs.map((sync) => sync.meta.today)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
  });
});
