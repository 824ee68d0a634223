import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun } from '../../src/engine/run/cancel-run.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { engineFixture, queryFile, queryOnChange, runInProcess, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * `bvsync cancel` against a `bvsync worker` that keeps running: the slices it is paging stop within about a second,
 * instead of paging to their ends and loading, and nothing of them reaches the warehouse but the calls they made.
 */

const TODAY = '2026-11-20';
// Two days of ~6,000 answers: two slices of ~60 pages each, both in flight at once, at 20 requests a second.
const RATE = 20;

let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('cancel-mid-slice', {
    sim: { brands: 1, days: 3, scale: 6_000 },
    config: { sync: { streams: ['conversations'], fetchConcurrency: 2 } },
  });
  fx.config.api.requestsPerSecond = RATE;
});
afterAll(async () => {
  await fx.cleanup();
});

function conversationRequests(): number {
  return fx.sim.requestLog().filter((entry) => entry.path.includes('/conversations')).length;
}

describe('a cancel reaches the slices being read', () => {
  it.each([0, 1])(
    'stops their requests within about a second and loads none of their rows (sync.fetchThreads %i)',
    async (threads) => {
      fx.config.sync.fetchThreads = threads;
      fx.sim.clearRequestLog();
      const host = new WorkerHost({ config: fx.config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000 });
      await host.start();
      const redis = connectRedis(fx.redisUrl);
      const queues = openQueues(redis, fx.config.redisPrefix);
      const runs = new RunStore(redis, fx.config.redisPrefix);
      try {
        const started = await runInProcess(fx, {
          kind: 'backfill',
          today: TODAY,
          from: '2026-11-18',
          to: '2026-11-19',
          brands: [1],
          streams: ['conversations'],
          enqueueOnly: true,
        });
        const runId = started.meta.runId;
        await until('both slices to page', () => conversationRequests() >= 10, 20_000, 20);
        const outcome = await cancelRun(runs, queues, redis, fx.config.redisPrefix, runId);
        expect(outcome.outcome).toBe('cancelled');
        const beforeCancel = conversationRequests();
        fx.sim.clearRequestLog();
        // The worker goes on running; only the watch of the run's record (read every second) stops the two reads: their
        // jobs leave the active list, where paged on they stay for the slices' 50 pages.
        await until('the two reads to stop', async () => (await queues.fetch.getActiveCount()) === 0, 20_000, 20);
        const after = conversationRequests();
        process.stdout.write(`requests after the cancel: ${after}\n`);
        // Stopped at the watch's next read: at most about 1.5 s of the rate.
        expect(after).toBeLessThanOrEqual(1.5 * RATE + 2);
        const cancelled = queryOnChange(fx.config.db);
        await until(
          'the writer to record the cancel',
          async () =>
            (await cancelled(`SELECT status FROM _sync_runs WHERE run_id = ?`, [runId]))?.[0]?.status === 'cancelled',
          20_000,
          20,
        );
        // No read asked again after the stop, however long the writer took (each slice's aborted call may still be logged).
        expect(conversationRequests()).toBeLessThanOrEqual(after + 2);
        // Unloaded, the stopped slices' calls still count in the run's row, as the API counted them: in the analysts'
        // copy too, published again after the run was recorded cancelled. The simulator logs a request when it answers,
        // so each slice's one request in flight at the stop (counted by bvsync, aborted) may be in its log or not.
        const made = beforeCancel + after;
        let counted: unknown;
        const requests = queryOnChange(fx.config.db);
        await until(
          "the stopped slices' calls to reach _sync_runs",
          async () => {
            const rows = await requests(`SELECT requests FROM _sync_runs WHERE run_id = ?`, [runId]);
            if (rows) counted = rows[0]?.requests;
            return Number(counted) >= made && Number(counted) <= made + 2;
          },
          20_000,
          20,
        ).catch((error: Error) => {
          throw new Error(`${error.message}: _sync_runs.requests ${String(counted)}, the simulator answered ${made}`);
        });
        const loaded = await queryFile(
          fx.config.db,
          `SELECT (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM _sync_state WHERE stream = 'conversations') AS states`,
        );
        expect(loaded[0]).toEqual({ conversations: 0, states: 0 });
      } finally {
        await host.stop();
        await queues.close();
        redis.disconnect();
      }
    },
    60_000,
  );
});
