import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun } from '../../src/engine/run/cancel-run.js';
import { enqueueCommit } from '../../src/engine/jobs/enqueue.js';
import { commitJobSchema, type CommitJobData } from '../../src/engine/jobs/job-data.js';
import { openQueues, type Queues } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';
import type { Redis } from 'ioredis';

/**
 * A cancelled run's slices whose reads ended after the cancel had run: their commit jobs reach the load queue late,
 * and the writer loads none of them. A run already finalizing cannot be cancelled: its finished record stays.
 */

const TODAY = '2026-11-20';

let fx: EngineFixture;
let redis: Redis;
let queues: Queues;
let runs: RunStore;

beforeAll(async () => {
  fx = await engineFixture('cancel-late-commit', {
    sim: { brands: 1, days: 3 },
    config: { sync: { streams: ['visibility'] } },
  });
  redis = connectRedis(fx.redisUrl);
  queues = openQueues(redis, fx.config.redisPrefix);
  runs = new RunStore(redis, fx.config.redisPrefix);
});
afterAll(async () => {
  await queues?.close();
  redis?.disconnect();
  await fx?.cleanup();
});

async function enqueueOnlyBackfill(): Promise<string> {
  const progress = await runInProcess(fx, {
    kind: 'backfill',
    today: TODAY,
    from: '2026-11-18',
    to: '2026-11-19',
    brands: [1],
    streams: ['visibility'],
    enqueueOnly: true,
  });
  return progress.meta.runId;
}

async function waitingCommits(runId: string): Promise<CommitJobData[]> {
  const jobs = await queues.load.getJobs(['waiting', 'prioritized']);
  return jobs
    .filter((job) => job?.name === 'commit')
    .map((job) => commitJobSchema.parse(job.data))
    .filter((data) => data.runId === runId);
}

async function runRow(runId: string): Promise<{ status?: unknown; requests?: unknown }> {
  const rows = await queryFile(fx.config.db, 'SELECT status, requests FROM _sync_runs WHERE run_id = ?', [runId]).catch(
    () => [],
  );
  return rows[0] ?? {};
}

describe('bvsync cancel', () => {
  it('leaves unloaded the slices whose commits arrive after the writer recorded the cancel, counting their calls', async () => {
    const host = new WorkerHost({ config: fx.config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000 });
    // The fetch queue waits until the plan is done, so both slices are read while the load queue is paused.
    await queues.fetch.pause();
    await host.start();
    try {
      fx.sim.clearRequestLog();
      const runId = await enqueueOnlyBackfill();
      await until('the plan', async () => (await runs.progress(runId)).planned === 2);
      await queues.load.pause();
      await queues.fetch.resume();
      await until('both commit jobs', async () => (await waitingCommits(runId)).length === 2);
      // Taken out with their chunks kept, then added back once the cancel is recorded: reads that ended late.
      const late = await waitingCommits(runId);
      for (const job of await queues.load.getJobs(['waiting', 'prioritized']))
        if (job?.name === 'commit') await job.remove();
      const outcome = await cancelRun(runs, queues, redis, fx.config.redisPrefix, runId);
      expect(outcome.outcome).toBe('cancelled');
      await queues.load.resume();
      await until('the writer to record the cancel', async () => (await runRow(runId)).status === 'cancelled');
      for (const data of late) await enqueueCommit(queues, data);
      await until(
        'the late commits to be taken',
        async () => (await queues.load.getJobCounts('waiting', 'prioritized', 'active')).waiting === 0,
      );
      const loaded = await queryFile(
        fx.config.db,
        `SELECT (SELECT count(*) FROM topics) AS rows, (SELECT count(*) FROM _sync_state) AS states`,
      );
      expect(loaded[0]).toEqual({ rows: 0, states: 0 });
      const made = fx.sim.requestLog().length;
      expect(made).toBeGreaterThanOrEqual(2);
      await until(
        "the late slices' calls to reach _sync_runs",
        async () => Number((await runRow(runId)).requests) === made,
      );
      expect((await runRow(runId)).status).toBe('cancelled');
    } finally {
      await queues.fetch.resume();
      await queues.load.resume();
      await host.stop();
    }
  });

  it('refuses a run that is finalizing, and leaves its record as it was', async () => {
    const runId = await enqueueOnlyBackfill();
    await runs.update(runId, { status: 'finalizing' });
    const outcome = await cancelRun(runs, queues, redis, fx.config.redisPrefix, runId);
    expect(outcome.outcome).toBe('finished');
    expect((await runs.get(runId))?.status).toBe('finalizing');
  });
});
