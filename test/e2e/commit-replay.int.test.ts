import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisChunkSink } from '../../src/engine/fetch/chunk-store.js';
import type { CommitJobData } from '../../src/engine/jobs/job-data.js';
import { loadProcessor } from '../../src/engine/writer/load-processor.js';
import { openQueues, type Queues } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, type SliceOutcome } from '../../src/engine/run/run-store.js';
import { createApiClient } from '../../src/api/index.js';
import { getStream } from '../../src/streams/registry.js';
import { runSlice } from '../../src/streams/run-slice.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { engineFixture, type EngineFixture } from '../support/engine.js';

/**
 * A commit job that loaded its slice and died before recording the outcome in Redis (a crash, a lease lost in
 * between) is run again by BullMQ. The replay must leave the tables and the run's counters as one commit would.
 */

const DAY = '2026-11-20';
const _RUN_ID = 'replay-run';

/** A run store whose first outcome write fails, as if the process had died right after the DuckDB commit. */
class DyingRunStore extends RunStore {
  failures = 1;
  override async recordOutcome(runId: string, outcome: SliceOutcome): Promise<boolean> {
    if (this.failures-- > 0) throw new Error('the process died before recording the outcome');
    return super.recordOutcome(runId, outcome);
  }
}

let fx: EngineFixture;
let redis: Redis;
let queues: Queues;
let warehouse: Warehouse;

/** A run of the conversations of one day, its slice fetched from the simulator into chunks in Redis, ready to commit. */
async function fetchedRun(runs: RunStore, runId: string): Promise<CommitJobData> {
  const brandId = fx.config.brands[0]!;
  const sliceId = `${brandId}|conversations|${DAY}`;
  await runs.create({
    runId,
    kind: 'backfill',
    brands: [brandId],
    streams: ['conversations'],
    today: DAY,
    from: DAY,
    to: DAY,
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 2,
    published: null,
    error: null,
  });
  await runs.recordPlannedThenUpdate(runId, [{ sliceId, brandId, stream: 'conversations' }], {});
  await warehouse.startRun({
    runId,
    kind: 'backfill',
    brands: [brandId],
    streams: ['conversations'],
    windowStart: DAY,
    windowEnd: DAY,
  });
  // The fetch side, for real: the slice read from the simulator into chunks waiting in Redis.
  const slice = { key: DAY, day: DAY, from: DAY, to: DAY, params: {} };
  const client = createApiClient(fx.config.api);
  const sink = new RedisChunkSink(redis, fx.config.redisPrefix, `${runId}-token`, runId);
  const result = await runSlice(getStream('conversations'), { client, brandId, slice, sync: fx.config.sync }, sink);
  await client.close();
  return {
    runId,
    brandId,
    stream: 'conversations',
    sliceId,
    slice,
    refetch: 0,
    token: sink.token,
    chunks: sink.chunks,
    status: result.status,
    records: result.records,
    rows: result.rows,
    rejects: result.rejects,
    totalRows: result.totalRows ?? null,
    attempts: 1,
    requests: 1,
    retries: 0,
    rateLimited: 0,
    error: null,
    errorCode: null,
    requestId: null,
  };
}

function commitJob(data: CommitJobData): Job {
  return { name: 'commit', id: `commit-${data.runId}`, data } as unknown as Job;
}

function processorWith(runs: RunStore) {
  return loadProcessor({
    redis,
    prefix: fx.config.redisPrefix,
    queues,
    runs,
    warehouse,
    config: fx.config,
    log: fx.log,
    onWriterFault: () => undefined,
    stopSignal: new AbortController().signal,
  });
}

async function runCounters(runId: string) {
  const [run] = await warehouse.query(
    'SELECT slices::INTEGER AS slices, requests::INTEGER AS requests FROM _sync_runs WHERE run_id = $1',
    [runId],
  );
  return run;
}

beforeAll(async () => {
  fx = await engineFixture('commit-replay');
  redis = connectRedis(fx.redisUrl);
  queues = openQueues(redis, fx.config.redisPrefix);
  warehouse = await openWarehouse(`${fx.dir}/work.duckdb`);
});
afterAll(async () => {
  await warehouse?.close();
  await queues?.close();
  redis?.disconnect();
  await fx?.cleanup();
});

describe('a commit replayed after its DuckDB transaction', () => {
  it('loads the slice once and counts it once', async () => {
    const runs = new DyingRunStore(redis, fx.config.redisPrefix);
    const commit = await fetchedRun(runs, 'replay-run');
    const process = processorWith(runs);
    await expect(process(commitJob(commit))).rejects.toThrow(/died before recording/);
    await process(commitJob(commit));

    expect(commit.records).toBe(fx.sim.truth.answers(commit.brandId, DAY).length);
    const [loaded] = await warehouse.query('SELECT count(*)::INTEGER AS n FROM conversations');
    expect(loaded!.n).toBe(commit.records);
    expect(await runCounters('replay-run')).toMatchObject({ slices: 1, requests: 1 });
    expect(await runs.progress('replay-run')).toEqual({ planned: 1, done: 1 });
  });

  it("leaves another run's commit of the same slice in between as it is, and counts its own slice once", async () => {
    const dying = new DyingRunStore(redis, fx.config.redisPrefix);
    const older = await fetchedRun(dying, 'replay-older');
    const newer = await fetchedRun(dying, 'replay-newer');
    await expect(processorWith(dying)(commitJob(older))).rejects.toThrow(/died before recording/);
    // Another run commits the same slice before the older commit job is taken again.
    await processorWith(dying)(commitJob(newer));
    const state = async () =>
      (await warehouse.query("SELECT run_id FROM _sync_state WHERE stream = 'conversations'"))[0];
    expect(await state()).toEqual({ run_id: 'replay-newer' });

    await processorWith(dying)(commitJob(older));
    expect(await state()).toEqual({ run_id: 'replay-newer' });
    expect(await runCounters('replay-older')).toMatchObject({ slices: 1 });
    expect(await runCounters('replay-newer')).toMatchObject({ slices: 1 });
    expect(await dying.progress('replay-older')).toEqual({ planned: 1, done: 1 });
  });

  it('records only the outcome when the replay finds its chunks gone from Redis', async () => {
    const runs = new DyingRunStore(redis, fx.config.redisPrefix);
    const commit = await fetchedRun(runs, 'replay-chunks-gone');
    const process = processorWith(runs);
    await expect(process(commitJob(commit))).rejects.toThrow(/died before recording/);
    const newer = await fetchedRun(runs, 'replay-after-chunks');
    await process(commitJob(newer));
    // Expired, or lost with Redis's data: without the ledger this fetched the slice again for the older run.
    await redis.del(...(await redis.keys(`${fx.config.redisPrefix}*${commit.token}*`)));
    await process(commitJob(commit));
    expect(await queues.fetch.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
    expect(await runCounters('replay-chunks-gone')).toMatchObject({ slices: 1 });
    expect(await runs.progress('replay-chunks-gone')).toEqual({ planned: 1, done: 1 });
  });
});
