import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { scheduledRunId, startScheduler, type RunningScheduler } from '../../src/engine/schedule/scheduler.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { engineFixture, queryFile, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * Two worker processes' hosts and two schedulers on one Redis prefix and one warehouse, with a schedule that fires
 * every second: each slot becomes one run, a missed slot is caught up once, and no slice of a run is fetched or
 * loaded twice.
 */

const SCHEDULE = 'every-second';
/** Runs of ticks the schedulers make before they stop: enough that a per-minute slot could not give them. */
const TICKS = 3;
/** The simulator's today, which the schedulers and hosts are given too: the runs never see the real date. */
const TODAY = '2026-11-20';
/** The schedulers start "late": the slot before this instant was missed and is caught up at start. */
const CATCH_UP_NOW = new Date(Date.now() - 10 * 60_000);

let fx: EngineFixture;
let hosts: WorkerHost[] = [];
let schedulers: RunningScheduler[] = [];
let runs: RunMeta[];
let tickWindow: { from: number; to: number };

async function waitForRunsToFinish(store: RunStore, timeoutMs: number): Promise<RunMeta[]> {
  const going = (runs: RunMeta[]) => runs.filter((run) => !['complete', 'incomplete', 'failed'].includes(run.status));
  let recent: RunMeta[] = [];
  await until(
    'every run to finish',
    async () => {
      recent = await store.recent(1_000);
      return going(recent).length === 0;
    },
    timeoutMs,
    200,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; runs still going: ${going(recent).map((run) => `${run.runId} ${run.status}`)}`);
  });
  return recent;
}

beforeAll(async () => {
  fx = await engineFixture('concurrency', {
    sim: { today: TODAY, days: 5 },
    config: {
      sync: { initialDays: 2, lookbackDays: 2, streams: ['conversations', 'competitors'] },
      schedules: [{ name: SCHEDULE, cron: '* * * * * *' }],
    },
  });
  hosts = [0, 1].map(
    () =>
      new WorkerHost({
        config: fx.config,
        redisUrl: fx.redisUrl,
        log: fx.log,
        leaseTtlMs: 2_000,
        fetchConcurrency: 2,
        today: () => TODAY,
      }),
  );
  await Promise.all(hosts.map((host) => host.start()));
  const from = Date.now();
  schedulers = await Promise.all(
    [0, 1].map(() =>
      startScheduler({
        config: fx.config,
        redisUrl: fx.redisUrl,
        log: fx.log,
        now: () => CATCH_UP_NOW,
        today: () => TODAY,
      }),
    ),
  );
  const catchUp = scheduledRunId(SCHEDULE, previousSecond(CATCH_UP_NOW));
  const ticked = () =>
    new Set(schedulers.flatMap((scheduler) => scheduler.enqueued).filter((id) => id !== catchUp)).size;
  // Waits for the runs, not for a time: a loaded box may skip a second's tick, never make two of one.
  await until(`${TICKS} ticks of the schedulers`, () => ticked() >= TICKS, 30_000);
  await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
  tickWindow = { from, to: Date.now() };
  const connection = connectRedis(fx.redisUrl);
  try {
    runs = await waitForRunsToFinish(new RunStore(connection, fx.config.redisPrefix), 40_000);
  } finally {
    connection.disconnect();
  }
});

afterAll(async () => {
  await Promise.all(schedulers.map((scheduler) => scheduler.stop().catch(() => {})));
  await Promise.all(hosts.map((host) => host.stop(5_000)));
  await fx?.cleanup();
});

describe('two workers and two schedulers on one warehouse', () => {
  it('makes one run per slot, whichever scheduler enqueued it', () => {
    const enqueued = schedulers.flatMap((scheduler) => scheduler.enqueued);
    expect(new Set(enqueued).size).toBe(enqueued.length);
    expect(runs.map((run) => run.runId).sort()).toEqual([...enqueued].sort());
    const ticks = runs.filter((run) => run.runId !== scheduledRunId(SCHEDULE, previousSecond(CATCH_UP_NOW)));
    // At most a run per second the schedulers ticked, not one per scheduler; and not one per minute: TICKS runs came
    // (a window of a few seconds may cross a minute, so 2 could still be one run per minute).
    const seconds = (tickWindow.to - tickWindow.from) / 1000;
    expect(ticks.length, ticks.map((run) => run.runId).join(', ')).toBeGreaterThanOrEqual(TICKS);
    expect(ticks.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(ticks.every((run) => run.today === TODAY)).toBe(true);
    expect(new Set(ticks.map((run) => run.runId)).size).toBe(ticks.length);
  });

  it('catches up the missed slot once', () => {
    const catchUp = scheduledRunId(SCHEDULE, previousSecond(CATCH_UP_NOW));
    expect(schedulers.flatMap((scheduler) => scheduler.enqueued).filter((id) => id === catchUp)).toHaveLength(1);
  });

  it('completes every run, loading each slice once: one request and one attempt per planned slice', async () => {
    expect(runs.map((run) => run.status)).toEqual(runs.map(() => 'complete'));
    const loaded = await queryFile(
      fx.config.db,
      'SELECT run_id, status, slices::INTEGER AS slices, requests::INTEGER AS requests FROM _sync_runs ORDER BY run_id',
    );
    expect(loaded.map((row) => row.run_id)).toEqual(runs.map((run) => run.runId).sort());
    const connection = connectRedis(fx.redisUrl);
    let planned = 0;
    try {
      const store = new RunStore(connection, fx.config.redisPrefix);
      for (const row of loaded) {
        const progress = await store.progress(String(row.run_id));
        expect(row.status).toBe('complete');
        // A commit replayed would count its slice twice here (DuckDB's counters are not deduplicated).
        expect(row.slices, String(row.run_id)).toBe(progress.planned);
        expect(row.requests, String(row.run_id)).toBe(progress.planned);
        planned += progress.planned;
      }
    } finally {
      connection.disconnect();
    }
    const requests = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
    expect(requests).toHaveLength(planned);
    expect(await queryFile(fx.config.db, 'SELECT DISTINCT attempts FROM _sync_state')).toEqual([{ attempts: 1 }]);
  });

  it('one host holds the writer lease, and both fetched', () => {
    expect(hosts.filter((host) => host.isWriter)).toHaveLength(1);
    const requests = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/')).length;
    expect(hosts.reduce((sum, host) => sum + host.tallies.total.requests, 0)).toBe(requests);
    for (const host of hosts) expect(host.tallies.total.requests).toBeGreaterThan(0);
  });

  it('stops cleanly', async () => {
    await Promise.all(hosts.map((host) => host.stop(5_000)));
    expect(hosts.filter((host) => host.isWriter)).toHaveLength(0);
  });
});

/** The slot a per-second schedule had just before `now`. */
function previousSecond(now: Date): Date {
  const slot = new Date(now);
  slot.setUTCMilliseconds(0);
  if (slot.getTime() === now.getTime()) slot.setUTCSeconds(slot.getUTCSeconds() - 1);
  return slot;
}
