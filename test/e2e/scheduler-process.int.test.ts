import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { addDays } from '../../src/days.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * The long-running commands as processes: `bvsync scheduler` ticking every second and `bvsync sync --enqueue-only`
 * only enqueue; a `bvsync worker` runs everything they enqueued; SIGTERM stops each cleanly.
 */

const FINISHED = ['complete', 'incomplete', 'failed'];
const TODAY = '2026-11-20';

let fx: EngineFixture;
const started: CliProcess[] = [];
let enqueueOnly: CliResult;
let scheduler: CliResult;
let worker: CliResult;
let runs: RunMeta[];

beforeAll(async () => {
  // Every process takes the simulator's today as its own (BVSYNC_TODAY, from cliEnv), scheduled runs too.
  fx = await engineFixture('scheduler-process', { sim: { today: TODAY, days: 3 } });
  const config = writeCliConfig(fx, {
    sync: { initialDays: 2, lookbackDays: 2, streams: ['conversations', 'competitors'] },
    schedules: [{ name: 'every-second', cron: '* * * * * *' }],
  });
  const spawn = (args: string[]) => {
    const child = spawnBvsync([...args, '--config', config], cliEnv(fx));
    started.push(child);
    return child;
  };
  const workerProcess = spawn(['worker']);
  await workerProcess.waitFor(/holding the DuckDB writer lease/);
  enqueueOnly = await spawn(['sync', '--enqueue-only']).done;
  const schedulerProcess = spawn(['scheduler']);
  await schedulerProcess.waitFor(/scheduler started/);
  const connection = connectRedis(fx.redisUrl);
  try {
    const store = new RunStore(connection, fx.config.redisPrefix);
    // Three scheduled runs, however long a loaded box takes to tick them, then the stop.
    await until(
      'three scheduled runs',
      async () => (await store.recent(100)).filter((run) => run.kind === 'scheduled').length >= 3,
      30_000,
      200,
    );
    schedulerProcess.kill('SIGTERM');
    scheduler = await schedulerProcess.done;
    await until(
      'every run finished',
      async () => {
        runs = await store.recent(100);
        return runs.every((run) => FINISHED.includes(run.status));
      },
      30_000,
      200,
    );
  } finally {
    connection.disconnect();
  }
  workerProcess.kill('SIGTERM');
  worker = await workerProcess.done;
});
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await fx?.cleanup();
});

describe('scheduler, enqueue-only sync and worker as processes', () => {
  it('sync --enqueue-only enqueues and exits 0 at once', () => {
    expect(enqueueOnly.code, enqueueOnly.stderr).toBe(0);
    expect(enqueueOnly.stdout).toMatch(/run sync-\S+ enqueued; a bvsync worker will run it/);
  });

  it('the scheduler enqueues a run per second and stops on SIGTERM', () => {
    expect(scheduler.code, scheduler.stderr.slice(-2000)).toBe(0);
    expect(scheduler.stderr).toMatch(/scheduler stopped/);
    const scheduled = runs.filter((run) => run.kind === 'scheduled');
    expect(scheduled.length).toBeGreaterThanOrEqual(3);
    expect(new Set(scheduled.map((run) => run.runId)).size).toBe(scheduled.length);
    expect(scheduled.map((run) => run.today)).toEqual(scheduled.map(() => TODAY));
  });

  it('the worker runs every enqueued run to completion, then stops on SIGTERM', async () => {
    expect(runs.map((run) => `${run.runId} ${run.status}`)).toEqual(runs.map((run) => `${run.runId} complete`));
    expect(runs.filter((run) => run.kind === 'sync')).toHaveLength(1);
    expect(worker.code, worker.stderr.slice(-2000)).toBe(0);
    expect(worker.stderr).toMatch(/worker stopped/);
    const recorded = await queryFile(fx.config.db, `SELECT run_id, status FROM _sync_runs ORDER BY run_id`);
    expect(recorded).toEqual(
      runs.map((run) => ({ run_id: run.runId, status: 'complete' })).sort((a, b) => a.run_id.localeCompare(b.run_id)),
    );
    const [conversations] = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    // The 2 initial days (yesterday and today) of each brand.
    const today = fx.sim.truth.today();
    expect(conversations!.n).toBe(
      fx.config.brands.reduce((sum, brandId) => sum + fx.sim.truth.totalRows(brandId, addDays(today, -1), today), 0),
    );
  });
});
