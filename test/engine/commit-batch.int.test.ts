import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Job } from 'bullmq';
import { addDays } from '../../src/days.js';
import { RedisChunkSink } from '../../src/engine/fetch/chunk-store.js';
import type { CommitJobData } from '../../src/engine/jobs/job-data.js';
import { loadProcessor } from '../../src/engine/writer/load-processor.js';
import { openQueues, type Queues } from '../../src/engine/jobs/queues.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { createLogger } from '../../src/log.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { conversationRows } from '../warehouse/batches.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig } from '../../src/configuration.js';

// Commit jobs waiting in the load queue are committed together by whichever of them runs first. The processor is
// called here on one job while the others wait, as the writer's BullMQ worker calls it, so which jobs are waiting is
// known.

const RUN = 'run-batch';
const TODAY = '2026-11-20';
const SLICES = 6;

let redis: Redis;
let prefix: string;
let queues: Queues;
let runs: RunStore;
let tmp: ReturnType<typeof tempDir>;
let warehouse: Warehouse;
/** Slice keys whose load the warehouse's fence fails, as a slice whose rows DuckDB refuses would. */
let refused: Set<string>;

beforeEach(async () => {
  redis = testRedis();
  prefix = uniquePrefix('commit-batch');
  queues = openQueues(redis, prefix);
  runs = new RunStore(redis, prefix);
  tmp = tempDir('commit-batch');
  refused = new Set();
  processed.clear();
  // A fence confirmed last before each COMMIT, as a writer's lease is, that refuses the loads holding these slices.
  warehouse = await openWarehouse(join(tmp.path, 'bv.work.duckdb'), {
    fence: {
      confirm: async (slices = []) => {
        const slice = slices.find((each) => refused.has(each.sliceKey));
        if (slice) throw new Error(`the test refuses slice ${slice.sliceKey}`);
        return 1;
      },
    },
  });
  await runs.create({
    runId: RUN,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: TODAY,
    from: addDays(TODAY, -(SLICES - 1)),
    to: TODAY,
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 2,
    published: null,
    error: null,
  });
});
afterEach(async () => {
  await warehouse.close();
  await queues.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
  tmp.remove();
});

/**
 * A fetched day of conversations: its chunk in Redis and its commit job waiting in the load queue. `moved` adds
 * records with these ids, dated that day; `run` fetches it for another run than RUN.
 */
async function fetchedDay(
  index: number,
  { moved = [], run = RUN }: { moved?: number[]; run?: string } = {},
): Promise<Job> {
  const day = addDays(TODAY, -index);
  const sliceId = `1|conversations|${day}`;
  await runs.recordPlannedThenUpdate(run, [{ sliceId, brandId: 1, stream: 'conversations' }], {});
  const sink = new RedisChunkSink(redis, prefix, `token-${run}-${index}`, run);
  const rows = [...conversationRows(day, 3, index * 10 + 1), ...moved.flatMap((id) => conversationRows(day, 1, id))];
  await sink.write({ tables: { conversations: rows }, rejects: [] });
  const data: CommitJobData = {
    runId: run,
    brandId: 1,
    stream: 'conversations',
    sliceId,
    refetch: 0,
    slice: { key: day, day, from: day, to: day, params: {} },
    token: sink.token,
    chunks: sink.chunks,
    status: 'complete',
    records: rows.length,
    rows: rows.length,
    rejects: 0,
    totalRows: rows.length,
    attempts: 1,
    requests: 1,
    retries: 0,
    rateLimited: 0,
    error: null,
    errorCode: null,
    requestId: null,
  };
  return queues.load.add('commit', data, { jobId: run === RUN ? `commit-${index}` : `commit-${run}-${index}` });
}

/** Jobs handed to the processor: BullMQ would hold them active, here they stay waiting, so they are not counted. */
const processed = new Set<string>();

function processor(commitBatchSlices?: number) {
  const config = parseConfig({
    api: { url: 'http://127.0.0.1:9', apiKey: 'bvk_test' },
    brands: [1],
    db: join(tmp.path, 'bv.duckdb'),
    redisPrefix: prefix,
  });
  const process = loadProcessor({
    redis,
    prefix,
    queues,
    runs,
    warehouse,
    config,
    log: createLogger({ level: 'silent', pretty: false }),
    onWriterFault: () => undefined,
    stopSignal: new AbortController().signal,
    commitBatchSlices,
  });
  return (job: Job) => {
    processed.add(job.id!);
    return process(job);
  };
}

async function waitingCommits(): Promise<string[]> {
  return (await queues.load.getJobs(['waiting']))
    .filter((job) => job.name === 'commit' && !processed.has(job.id!))
    .map((job) => job.id!)
    .sort();
}

async function loadedDays(): Promise<string[]> {
  const rows = await warehouse.query(`SELECT slice_key FROM _sync_state WHERE run_id = '${RUN}' ORDER BY slice_key`);
  return rows.map((row) => String(row.slice_key));
}

describe('commit jobs waiting together', () => {
  it('are committed by the first of them to run, each with its state, outcome and counters, and their jobs removed', async () => {
    const jobs = [];
    for (let index = 0; index < SLICES; index++) jobs.push(await fetchedDay(index));
    await processor()(jobs[0]!);
    expect(await loadedDays()).toHaveLength(SLICES);
    expect(await runs.progress(RUN)).toEqual({ planned: SLICES, done: SLICES });
    expect(await waitingCommits()).toEqual([]);
    // The companions' jobs are gone whole (removeWaitingJobs), not only out of the wait list.
    for (const job of jobs.slice(1)) expect(await queues.load.getJob(job.id!)).toBeUndefined();
    expect(await warehouse.query(`SELECT slices, "rows" FROM _sync_runs WHERE run_id = '${RUN}'`)).toEqual([
      { slices: SLICES, rows: SLICES * 3 },
    ]);
    expect(await warehouse.query('SELECT count(*)::INTEGER AS n FROM conversations')).toEqual([{ n: SLICES * 3 }]);
    // Every slice was done, so the run moves on.
    expect(
      (await queues.load.getJobs(['waiting'])).filter((job) => !processed.has(job.id!)).map((job) => job.name),
    ).toEqual(['finalize']);
  });

  it('take at most commitBatchSlices slices into one transaction, and none with 1', async () => {
    const jobs = [];
    for (let index = 0; index < SLICES; index++) jobs.push(await fetchedDay(index));
    await processor(1)(jobs[0]!);
    expect(await loadedDays()).toHaveLength(1);
    await processor(3)(jobs[1]!);
    expect(await loadedDays()).toHaveLength(4);
    expect(await waitingCommits()).toEqual(['commit-4', 'commit-5']);
  });

  it('leave a slice whose load fails to its own job, and commit the others', async () => {
    const jobs = [];
    for (let index = 0; index < SLICES; index++) jobs.push(await fetchedDay(index));
    const bad = addDays(TODAY, -2);
    refused.add(bad);
    await processor()(jobs[0]!);
    expect(await loadedDays()).not.toContain(bad);
    expect(await loadedDays()).toHaveLength(SLICES - 1);
    expect(await waitingCommits()).toEqual(['commit-2']);
    // The bad slice's own job fails with its own error, and changes nothing.
    await expect(processor()(jobs[2]!)).rejects.toThrow(`the test refuses slice ${bad}`);
    expect(await runs.progress(RUN)).toEqual({ planned: SLICES, done: SLICES - 1 });
  });

  it('fail the job whose own slice fails to load, after committing the others', async () => {
    const jobs = [];
    for (let index = 0; index < SLICES; index++) jobs.push(await fetchedDay(index));
    refused.add(TODAY);
    await expect(processor()(jobs[0]!)).rejects.toThrow(`the test refuses slice ${TODAY}`);
    expect(await loadedDays()).toHaveLength(SLICES - 1);
    expect(await runs.progress(RUN)).toEqual({ planned: SLICES, done: SLICES - 1 });
  });

  it('leave a job run after its slice was committed with another with nothing to do', async () => {
    const jobs = [];
    for (let index = 0; index < 2; index++) jobs.push(await fetchedDay(index));
    await processor()(jobs[0]!);
    // A companion job that a removal missed (a crash in between) runs as usual: its slice is done, nothing is loaded.
    await processor()(jobs[1]!);
    expect(await warehouse.query(`SELECT slices FROM _sync_runs WHERE run_id = '${RUN}'`)).toEqual([{ slices: 2 }]);
  });

  it('set aside a record the API now files under another day, where it stays, instead of failing on its key every time', async () => {
    // Day 1 holds answers 11-13; the API now dates answer 12 on day 0.
    await processor(1)(await fetchedDay(1));
    await processor(1)(await fetchedDay(0, { moved: [12] }));
    const [state] = await warehouse.query(
      `SELECT status, error_code, last_error FROM _sync_state WHERE slice_key = '${TODAY}'`,
    );
    expect(state).toEqual({
      status: 'incomplete',
      error_code: 'key_held_elsewhere',
      last_error: `conversations: key (brand_id=1, id=12) is held by the row of another slice (day=${addDays(TODAY, -1)}); it stays there until that slice is read again`,
    });
    expect(
      await warehouse.query(
        `SELECT id, CAST(day AS VARCHAR) AS day FROM conversations WHERE id IN (1, 12) ORDER BY id`,
      ),
    ).toEqual([
      { id: 1, day: TODAY },
      { id: 12, day: addDays(TODAY, -1) },
    ]);
    expect(await warehouse.query(`SELECT slice_key, raw.row.id::INTEGER AS id FROM _rejected_records`)).toEqual([
      { slice_key: TODAY, id: 12 },
    ]);
    expect(await runs.progress(RUN)).toEqual({ planned: 2, done: 2 });
  });

  it('record such a read beside a complete day it would make worse, also when the slices were committed together', async () => {
    await processor(1)(await fetchedDay(1));
    await processor(1)(await fetchedDay(0));
    const later = 'run-batch-later';
    await runs.create({
      runId: later,
      kind: 'backfill',
      brands: [1],
      streams: ['conversations'],
      today: TODAY,
      from: addDays(TODAY, -2),
      to: TODAY,
      status: 'running',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      phase: 2,
      published: null,
      error: null,
    });
    const first = await fetchedDay(0, { moved: [12], run: later });
    await fetchedDay(2, { run: later });
    await processor()(first);
    // Day 2 is in; day 0 keeps its complete load, and the attempt that met answer 12 is recorded beside it.
    const states = await warehouse.query(
      `SELECT slice_key, status, last_attempt_status, last_attempt_error_code FROM _sync_state ORDER BY slice_key`,
    );
    expect(states).toEqual([
      {
        slice_key: addDays(TODAY, -2),
        status: 'complete',
        last_attempt_status: 'complete',
        last_attempt_error_code: null,
      },
      {
        slice_key: addDays(TODAY, -1),
        status: 'complete',
        last_attempt_status: 'complete',
        last_attempt_error_code: null,
      },
      {
        slice_key: TODAY,
        status: 'complete',
        last_attempt_status: 'incomplete',
        last_attempt_error_code: 'key_held_elsewhere',
      },
    ]);
    expect(await runs.progress(later)).toEqual({ planned: 2, done: 2 });
  });
});
