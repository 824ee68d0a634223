import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import {
  cliEnv,
  engineFixture,
  scalarOfFile,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
import { until } from '../support/until.js';
import { backfillWithRunningWorkers } from './host-run.js';

/**
 * Scale-out as docs/operations.md ("Scaling out") describes it: two `bvsync worker` processes (two machines, in production) share one Redis
 * prefix. Fetch jobs spread over both; one of them holds the writer lease and alone loads DuckDB.
 */

let fx: EngineFixture;
let workers: CliProcess[];
let run: RunProgress;
let fetchedBy: Map<string, number>;
let loadedBy: Set<string>;

beforeAll(async () => {
  fx = await engineFixture('scale-out');
  // A little latency per answer, as a real API has, so neither process can drain the queue before the other starts.
  fx.sim.setKnobs({ latencyMs: 40 });
  const config = writeCliConfig(fx);
  workers = [0, 1].map(() => spawnBvsync(['worker', '--config', config, '--concurrency', '2'], cliEnv(fx)));
  await Promise.all(workers.map((worker) => worker.waitFor(/worker started/)));
  run = await backfillWithRunningWorkers(fx, {
    streams: ['conversations', 'competitors', 'visibility'],
    from: '2026-11-15',
    to: '2026-11-20',
  });
  const connection = connectRedis(fx.redisUrl);
  const queues = openQueues(connection, fx.config.redisPrefix);
  try {
    // A fetch job is marked completed after it hands its slice to the commit: the run may finish before the last is.
    if (run.meta.status === 'complete')
      await until(
        'every fetch job marked completed',
        async () => (await queues.fetch.getCompletedCount()) >= run.planned,
      );
    fetchedBy = new Map();
    for (const job of await queues.fetch.getJobs(['completed'], 0, -1))
      fetchedBy.set(job.processedBy!, (fetchedBy.get(job.processedBy!) ?? 0) + 1);
    loadedBy = new Set((await queues.load.getJobs(['completed'], 0, -1)).map((job) => job.processedBy!));
  } finally {
    await queues.close();
    connection.disconnect();
  }
});
afterAll(async () => {
  for (const worker of workers ?? []) worker.kill('SIGTERM');
  await Promise.all((workers ?? []).map((worker) => worker.done));
  await fx?.cleanup();
});

describe('two worker processes against one Redis', () => {
  it('finish the run together', async () => {
    expect(run.meta.status).toBe('complete');
    expect(await scalarOfFile(fx.config.db, "SELECT count(*) FROM _sync_state WHERE status = 'complete'")).toBe(
      run.planned,
    );
  });

  it('both fetch slices', () => {
    const pids = workers.map((worker) => worker.pid);
    expect(fetchedBy.size).toBe(2);
    for (const [name, count] of fetchedBy) {
      expect(pids).toContain(Number(name.split('/').at(-1)));
      expect(count).toBeGreaterThan(0);
    }
    expect([...fetchedBy.values()].reduce((sum, count) => sum + count, 0)).toBe(run.planned);
  });

  it('only one of them writes DuckDB: every plan, commit and finalize job ran in the lease holder', () => {
    expect(loadedBy.size).toBe(1);
    const writerPid = Number([...loadedBy][0]!.split('/').at(-1));
    const holders = workers.filter((worker) => /holding the DuckDB writer lease/.test(worker.output()));
    expect(holders.map((worker) => worker.pid)).toEqual([writerPid]);
  });
});
