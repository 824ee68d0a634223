import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/days.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { scheduledRunId } from '../../src/engine/schedule/scheduler.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { engineFixture, queryOnChange, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';
import { testRedis } from '../support/redis.js';

/**
 * A stop during a `sync.heal` comparison ends its calls as the stop begins (src/engine/schedule/heal.ts, `stopSignal`): the
 * heal job fails its attempt and goes back for the next writer, where the load worker's close had given up on it.
 * A comparison the API fails ends its round with the window unresolved, not a job tried again at maxCalls a time.
 */

const TODAY = '2026-11-20';
const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'conversations', 'citations', 'product_ranking'];
const HEAL = { days: 5, maxCalls: 200, maxReadCalls: 200 };

let fx: EngineFixture;
let comparing: () => void;
const compared = new Promise<void>((resolve) => (comparing = resolve));

beforeAll(async () => {
  const window = { from: addDays(TODAY, -HEAL.days), to: addDays(TODAY, -1) };
  fx = await engineFixture('heal-stop', {
    sim: {
      brands: 1,
      // The comparison's first range answer over the heal window: every request after it hangs.
      onRequest: (entry) => {
        if (entry.query.start_date !== window.from || entry.query.end_date !== window.to) return;
        fx.sim.setKnobs({ unavailable: 'hang' });
        comparing();
      },
    },
    config: { sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8, heal: HEAL } },
  });
  // A hanging call outlasts the load worker's close (10 s): only the stop's abort ends it in time.
  Object.assign(fx.config.api, { headersTimeoutMs: 120_000, bodyTimeoutMs: 120_000, requestTimeoutMs: 240_000 });
}, 60_000);
afterAll(async () => fx?.cleanup());

describe('a stop during a heal comparison', () => {
  it("aborts the comparison's hanging call, so the heal job is not left running", async () => {
    const host = new WorkerHost({ config: fx.config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000 });
    await host.start();
    const runId = scheduledRunId('daily', new Date(`${TODAY}T06:00:00Z`));
    await enqueueRun({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log: fx.log,
      kind: 'scheduled',
      runId,
      brands: fx.config.brands,
      streams: STREAMS,
      today: TODAY,
    });
    await compared;
    await host.stop();

    const redis = testRedis();
    const queues = openQueues(redis, fx.config.redisPrefix);
    try {
      const jobs = await queues.load.getJobs(['active', 'failed', 'delayed', 'wait']);
      const heal = jobs.find((job) => job.name === 'heal');
      expect(heal).toBeDefined();
      // Aborted by the stop: its attempt failed and it waits to be tried again, not held active by a closed worker.
      expect(await heal!.getState()).not.toBe('active');
      expect(heal!.attemptsMade).toBeGreaterThan(0);
    } finally {
      await queues.load.close();
      await queues.fetch.close();
      redis.disconnect();
    }
  }, 240_000);
});

describe('a heal comparison the API fails', () => {
  let failing: EngineFixture;

  beforeAll(async () => {
    const window = { from: addDays(TODAY, -HEAL.days), to: addDays(TODAY, -1) };
    failing = await engineFixture('heal-fails', {
      sim: {
        brands: 1,
        // From the comparison's first range answer on, the API answers 503 to everything.
        onRequest: (entry) => {
          if (entry.query.start_date === window.from && entry.query.end_date === window.to)
            failing.sim.setKnobs({ unavailable: '503' });
        },
      },
      config: { sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8, heal: HEAL } },
    });
  }, 60_000);
  afterAll(async () => failing?.cleanup());

  it('ends the round with the window unresolved, within maxCalls, instead of failing the job', async () => {
    const host = new WorkerHost({
      config: failing.config,
      redisUrl: failing.redisUrl,
      log: failing.log,
      leaseTtlMs: 2_000,
    });
    await host.start();
    try {
      const runId = scheduledRunId('daily', new Date(`${TODAY}T06:00:00Z`));
      await enqueueRun({
        config: failing.config,
        redisUrl: failing.redisUrl,
        log: failing.log,
        kind: 'scheduled',
        runId,
        brands: failing.config.brands,
        streams: STREAMS,
        today: TODAY,
      });
      let round: Record<string, unknown> | undefined;
      const poll = queryOnChange(failing.config.db);
      await until(
        'the failed round recorded',
        async () => {
          const rows = await poll(
            'SELECT status, unresolved, verify_requests FROM _heal_runs WHERE heal_id = $1 AND finished_at IS NOT NULL',
            [runId],
          );
          round = rows?.[0];
          return round !== undefined;
        },
        180_000,
        200,
      );
      expect(round!.status).toBe('disagree');
      expect(round!.unresolved).toContain(
        `${failing.config.brands[0]}|conversations|${addDays(TODAY, -HEAL.days)}..${addDays(TODAY, -1)}`,
      );
      expect(Number(round!.verify_requests)).toBeGreaterThan(1);
      expect(Number(round!.verify_requests)).toBeLessThanOrEqual(HEAL.maxCalls);
    } finally {
      await host.stop();
    }
  }, 240_000);
});
