import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisChunkSink } from '../../src/engine/chunk-store.js';
import type { CommitJobData } from '../../src/engine/job-data.js';
import { loadProcessor } from '../../src/engine/load-processor.js';
import { openQueues, type Queues } from '../../src/engine/queues.js';
import { connectRedis } from '../../src/engine/redis.js';
import { RunStore, type SliceOutcome } from '../../src/engine/run-store.js';
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
const RUN_ID = 'replay-run';

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
let runs: DyingRunStore;
let commit: CommitJobData;
let records: number;

beforeAll(async () => {
  fx = await engineFixture('commit-replay');
  redis = connectRedis(fx.redisUrl);
  queues = openQueues(redis, fx.config.redisPrefix);
  warehouse = await openWarehouse(`${fx.dir}/work.duckdb`);
  runs = new DyingRunStore(redis, fx.config.redisPrefix);
  const brandId = fx.config.brands[0]!;
  const sliceId = `${brandId}|conversations|${DAY}`;
  await runs.create({ runId: RUN_ID, kind: 'backfill', brands: [brandId], streams: ['conversations'], today: DAY, from: DAY, to: DAY, status: 'running', startedAt: new Date().toISOString(), finishedAt: null, phase: 2, published: null, error: null });
  await runs.recordPlanned(RUN_ID, [{ sliceId, brandId, stream: 'conversations' }]);
  await warehouse.startRun({ runId: RUN_ID, kind: 'backfill', brands: [brandId], streams: ['conversations'], windowStart: DAY, windowEnd: DAY });

  // The fetch side, for real: the slice read from the simulator into chunks waiting in Redis.
  const slice = { key: DAY, day: DAY, from: DAY, to: DAY, params: {} };
  const client = createApiClient(fx.config.api);
  const sink = new RedisChunkSink(redis, fx.config.redisPrefix, 'replay-token');
  const result = await runSlice(getStream('conversations'), { client, brandId, slice, sync: fx.config.sync }, sink);
  await client.close();
  records = result.records;
  commit = {
    runId: RUN_ID, brandId, stream: 'conversations', sliceId, slice, refetch: 0, token: sink.token, chunks: sink.chunks,
    status: result.status, records: result.records, rows: result.rows, rejects: result.rejects, totalRows: result.totalRows ?? null,
    attempts: 1, requests: 1, retries: 0, rateLimited: 0, error: null, errorCode: null, requestId: null,
  };
});
afterAll(async () => {
  await warehouse?.close();
  await queues?.close();
  redis?.disconnect();
  await fx?.cleanup();
});

describe('a commit replayed after its DuckDB transaction', () => {
  it('loads the slice once and counts it once', async () => {
    const process = loadProcessor({ redis, prefix: fx.config.redisPrefix, queues, runs, warehouse, config: fx.config, log: fx.log });
    const job = { name: 'commit', id: 'commit-replay', data: commit } as unknown as Job;
    await expect(process(job)).rejects.toThrow(/died before recording/);
    await process(job);

    expect(records).toBe(fx.sim.truth.answers(commit.brandId, DAY).length);
    const [loaded] = await warehouse.query('SELECT count(*)::INTEGER AS n FROM conversations');
    expect(loaded!.n).toBe(records);
    const [run] = await warehouse.query('SELECT slices::INTEGER AS slices, requests::INTEGER AS requests, "rows"::INTEGER AS rows FROM _sync_runs WHERE run_id = $1', [RUN_ID]);
    expect(run).toMatchObject({ slices: 1, requests: 1 });
    expect(await runs.progress(RUN_ID)).toEqual({ planned: 1, done: 1 });
  });
});
