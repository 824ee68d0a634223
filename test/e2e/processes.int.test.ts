import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, type Job, type JobType } from 'bullmq';
import { hostname } from 'node:os';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { writerLeaseKey } from '../../src/engine/jobs/queues.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runInProcess,
  spawnBvsync,
  tableDifferences,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * The commands as an operator runs them, as real processes on one Redis prefix and one DuckDB file: a `bvsync worker`
 * beside a `bvsync backfill`, then the worker holding the writer lease killed with SIGKILL in the middle of a run.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-16';
const STREAMS = 'conversations,visibility,tracked_urls,product_ranking,competitors';
const HOLDING = /holding the DuckDB writer lease/;
const CANNOT_OPEN = /could not open the working database/;
/** Short takeover timings, so a killed holder's lease and jobs pass on within a few seconds. */
const FAST_TAKEOVER = { BVSYNC_LEASE_TTL_MS: '1500', BVSYNC_JOB_LOCK_MS: '1500' };

const started: CliProcess[] = [];
function spawn(fx: EngineFixture, args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawnBvsync([...args, '--config', writeCliConfig(fx)], cliEnv(fx, env));
  started.push(child);
  return child;
}

/** The fetch jobs of a prefix in the given states, as BullMQ keeps them. */
async function fetchJobs(fx: EngineFixture, states: JobType[]): Promise<Job[]> {
  const connection = connectRedis(fx.redisUrl);
  const queue = new Queue('fetch', { connection, prefix: fx.config.redisPrefix });
  try {
    return await queue.getJobs(states, 0, 10_000);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** Who ran the completed fetch jobs of a prefix: BullMQ's processedBy, `host/pid` of the worker. */
async function fetchJobRunners(fx: EngineFixture): Promise<Map<string, number>> {
  const runners = new Map<string, number>();
  for (const job of await fetchJobs(fx, ['completed']))
    runners.set(String(job.processedBy), (runners.get(String(job.processedBy)) ?? 0) + 1);
  return runners;
}

/** What the writer lease's key holds (its holder's id and file), or null when none holds it. */
async function leaseValue(fx: EngineFixture): Promise<string | null> {
  const connection = connectRedis(fx.redisUrl);
  try {
    return await connection.get(writerLeaseKey(fx.config.redisPrefix));
  } finally {
    connection.disconnect();
  }
}

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

describe('bvsync worker beside bvsync backfill', () => {
  let fx: EngineFixture;
  beforeAll(async () => {
    fx = await engineFixture('processes-side');
  });
  afterAll(async () => fx?.cleanup());

  it('share the run: both fetch, the worker alone loads, the backfill exits 0', async () => {
    const worker = spawn(fx, ['worker']);
    await worker.waitFor(HOLDING);
    const backfill = spawn(fx, ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS]);
    const result = await backfill.done;
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/: complete;/);
    // One writer: the worker took the lease once, the backfill never did, and no one failed to open the file.
    expect(worker.output().match(new RegExp(HOLDING, 'g'))).toHaveLength(1);
    expect(result.stderr).not.toMatch(HOLDING);
    expect(worker.output() + result.stderr).not.toMatch(CANNOT_OPEN);
    const runners = await fetchJobRunners(fx);
    expect(runners.get(`${hostname()}/${worker.pid}`)).toBeGreaterThan(0);
    expect(runners.get(`${hostname()}/${backfill.pid}`)).toBeGreaterThan(0);
    const conversations = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    expect(conversations[0]!.n).toBeGreaterThan(0);

    worker.kill('SIGTERM');
    const stopped = await worker.done;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(/worker stopped/);
  });
});

/** Waits until a quarter of the prefix's newest run is done, and returns its progress then. */
async function quarterDone(fx: EngineFixture): Promise<{ planned: number; done: number }> {
  const connection = connectRedis(fx.redisUrl);
  try {
    const runs = new RunStore(connection, fx.config.redisPrefix);
    let reached: { planned: number; done: number } | undefined;
    await until(
      'a quarter of the newest run done',
      async () => {
        const [run] = await runs.recent(1);
        const progress = run ? await runs.progress(run.runId) : { planned: 0, done: 0 };
        if (run?.phase === 1 && progress.planned > 0 && progress.done >= progress.planned / 4) reached = progress;
        return reached !== undefined;
      },
      90_000,
      20,
    );
    return reached!;
  } finally {
    connection.disconnect();
  }
}

/** The slices' outcomes, without what differs between any two runs (run ids, times, attempts). */
function sliceStates(db: string) {
  return queryFile(
    db,
    `SELECT brand_id, stream, slice_key, "day"::VARCHAR AS day, status, "rows", total_rows FROM _sync_state ORDER BY ALL`,
  );
}

describe('the worker holding the lease stopped mid-run', () => {
  let clean: EngineFixture;
  beforeAll(async () => {
    clean = await engineFixture('processes-clean');
    const reference = await runInProcess(clean, {
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      streams: STREAMS.split(','),
    });
    expect(reference.meta.status).toBe('complete');
  });
  afterAll(async () => clean?.cleanup());

  /** A worker holding the lease, a backfill beside it, and the worker stopped by `signal` a quarter into the run. */
  async function stopWriterMidRun(fx: EngineFixture, signal: NodeJS.Signals, env: Record<string, string>) {
    // Slow answers keep the run going long enough to stop its writer in the middle: the writer commits the slices
    // waiting for it together, so at 25 ms, 100 ms in CI and 250 ms at load 30 on 2 cores, a poll saw a quarter done
    // and all done in one step. At 1 s the 72 slices take 9 s or more at 8 in flight.
    fx.sim.setKnobs({ latencyMs: 1_000 });
    const worker = spawn(fx, ['worker'], env);
    await worker.waitFor(HOLDING);
    const backfill = spawn(
      fx,
      ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS],
      env,
    );
    const atStop = await quarterDone(fx);
    const lease = await leaseValue(fx);
    worker.kill(signal);
    expect(atStop.done).toBeLessThan(atStop.planned);
    const workerResult = await worker.done;
    const leaseAtExit = await leaseValue(fx);
    const result = await backfill.done;
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/: complete;/);
    // The backfill's own worker took the lease over and opened the file on its first try.
    expect(result.stderr).toMatch(HOLDING);
    expect(result.stderr).not.toMatch(CANNOT_OPEN);
    expect(await tableDifferences(clean.config.db, fx.config.db)).toEqual([]);
    const states = await sliceStates(fx.config.db);
    expect(states.length).toBeGreaterThan(50);
    expect(states).toEqual(await sliceStates(clean.config.db));
    return {
      workerResult,
      lease,
      leaseAtExit,
      // Jobs BullMQ found stalled (their lock expired while active) and ran again.
      stalled: (await fetchJobs(fx, ['completed', 'failed'])).filter((job) => job.stalledCounter > 0).length,
    };
  }

  it('SIGKILL: the lease passes on after its ttl, and the run completes with the tables of a clean run', async () => {
    const fx = await engineFixture('processes-kill');
    try {
      const { workerResult, stalled } = await stopWriterMidRun(fx, 'SIGKILL', FAST_TAKEOVER);
      expect(workerResult.signal).toBe('SIGKILL');
      // The jobs it was reading when killed ran again once their lock expired.
      expect(stalled).toBeGreaterThan(0);
    } finally {
      await fx.cleanup();
    }
  });

  it('SIGTERM: the worker finishes its jobs and hands the lease over at once, with the default timings', async () => {
    const fx = await engineFixture('processes-term');
    try {
      const { workerResult, lease, leaseAtExit, stalled } = await stopWriterMidRun(fx, 'SIGTERM', {});
      expect(workerResult.code, workerResult.stderr.slice(-2000)).toBe(0);
      // The backfill's run was unfinished as the worker stopped: most of its slices were still to load past the lease.
      expect(workerResult.stderr).toMatch(
        /worker stopped; 1 unfinished run left queued for any bvsync worker: backfill-/,
      );
      // Nothing had to expire: the lease no longer named the worker as it exited, and no job it ran was stalled.
      expect(lease).not.toBeNull();
      expect(leaseAtExit).not.toBe(lease);
      expect(stalled).toBe(0);
    } finally {
      await fx.cleanup();
    }
  });
});
