import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisChunkSink } from '../../src/engine/fetch/chunk-store.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import {
  COMMIT_BATCH_ROWS,
  COMMIT_BATCH_SLICES,
  commitBatchFor,
  FAR_COMMIT_MS,
  removeWaitingJobs,
  takeWaitingCommits,
  waitingCommits,
} from '../../src/engine/writer/waiting-commits.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

// A commit job's companions are taken with their chunks in one command, and a companion's job is removed only once its
// slice's outcome is recorded (waiting-commits.ts), so the removal may share a round trip with it.
const prefix = uniquePrefix('waiting-commits');
let redis: Redis;
let queue: Queue;
let runs: RunStore;

beforeAll(async () => {
  redis = testRedis();
  queue = new Queue('load', { connection: redis, prefix });
  runs = new RunStore(redis, prefix);
  await runs.create({
    runId: 'run-1',
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: '2026-11-20',
    from: '2026-11-18',
    to: '2026-11-20',
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 1,
    published: null,
    error: null,
  });
});

afterAll(async () => {
  await queue.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

/** A commit job's data, its chunks written unless `lost`: `rows` rows, `chunks` chunks. */
async function commit(day: string, { rows = 3, chunks = 1, lost = false } = {}) {
  const token = `token-${day}`;
  const sink = new RedisChunkSink(redis, prefix, token, 'run-1');
  for (let index = 0; index < chunks; index++) await sink.write({ tables: { t: [{ day, index }] }, rejects: [] });
  if (lost) await redis.del(redisKeys(prefix).chunk(token, 0));
  return {
    runId: 'run-1',
    brandId: 1,
    stream: 'conversations',
    sliceId: `1|conversations|${day}`,
    slice: { key: day },
    token,
    chunks,
    rows,
    rejects: 0,
  };
}

async function recordDone(day: string): Promise<void> {
  const outcome = { brandId: 1, stream: 'conversations', status: 'complete' as const, rows: 1, rejects: 0 };
  await runs.recordOutcome('run-1', {
    ...outcome,
    sliceId: `1|conversations|${day}`,
    requests: 1,
    retries: 0,
    rateLimited: 0,
  });
}

const ASK = { lookAhead: 20, ownJobId: 'c-own', ownSlice: '1|conversations|2026-11-10', rowsLeft: 100, most: 10 };

describe('waiting commits', () => {
  it('are taken oldest first with their chunks, in one command: not done, of other slices, within the rows left', async () => {
    await queue.add('commit', await commit('2026-11-10'), { jobId: 'c-own' });
    await queue.add('commit', await commit('2026-11-11', { chunks: 2 }), { jobId: 'c-11' });
    await queue.add('finalize', { runId: 'run-1' }, { jobId: 'f-1' });
    await queue.add('commit', await commit('2026-11-12'), { jobId: 'c-12' });
    await queue.add('commit', await commit('2026-11-11'), { jobId: 'c-11-again' });
    await queue.add('commit', await commit('2026-11-13', { rows: 98 }), { jobId: 'c-13-large' });
    await queue.add('commit', await commit('2026-11-14', { lost: true }), { jobId: 'c-14-lost' });
    await queue.add('commit', await commit('2026-11-15'), { jobId: 'c-15' });
    await queue.add('commit', await commit('2026-11-10'), { jobId: 'c-10-own-slice' });
    await recordDone('2026-11-12');
    await redis.ping();
    const sent = vi.spyOn(redis, 'sendCommand');
    const taken = await waitingCommits(redis, prefix, queue, ASK);
    expect(sent.mock.calls.length).toBe(1);
    sent.mockRestore();
    expect(taken.map(({ job, chunks }) => [job.id, chunks?.map((chunk) => chunk.tables.t)])).toEqual([
      ['c-11', [[{ day: '2026-11-11', index: 0 }], [{ day: '2026-11-11', index: 1 }]]],
      ['c-14-lost', undefined],
      ['c-15', [[{ day: '2026-11-15', index: 0 }]]],
    ]);
    // Only the oldest waiting jobs are looked at, and at most `most` are taken.
    expect((await waitingCommits(redis, prefix, queue, { ...ASK, lookAhead: 3 })).map(({ job }) => job.id)).toEqual([
      'c-11',
    ]);
    expect((await waitingCommits(redis, prefix, queue, { ...ASK, most: 2 })).map(({ job }) => job.id)).toEqual([
      'c-11',
      'c-14-lost',
    ]);
  });

  it('are removed only once their slices are done', async () => {
    const ids = ['c-11', 'c-12', 'c-15'];
    const jobs = (await Promise.all(ids.map((id) => queue.getJob(id)))).map((job) => job!);
    const guards = jobs.map((job) => ({ doneKey: redisKeys(prefix).run('run-1', 'done'), sliceId: job.data.sliceId }));
    await recordDone('2026-11-15');
    await removeWaitingJobs(redis, queue, jobs, guards);
    expect(await queue.getJob('c-11')).toBeDefined();
    expect(await queue.getJob('c-12')).toBeUndefined();
    expect(await queue.getJob('c-15')).toBeUndefined();
  });
});

describe('the batch of one transaction', () => {
  it('takes twice the slices and rows when Redis is far, as each commit waits on its round trips in sequence', () => {
    expect(commitBatchFor(0.3)).toEqual({ slices: COMMIT_BATCH_SLICES, rows: COMMIT_BATCH_ROWS });
    expect(commitBatchFor(FAR_COMMIT_MS - 0.1)).toEqual({ slices: COMMIT_BATCH_SLICES, rows: COMMIT_BATCH_ROWS });
    expect(commitBatchFor(80)).toEqual({ slices: 2 * COMMIT_BATCH_SLICES, rows: 2 * COMMIT_BATCH_ROWS });
  });

  it('takes no companion for a slice of more rows than its budget, asking Redis nothing', async () => {
    // Only its rows and rejects are read before the budget says no.
    const own = (await commit('2026-11-20', { rows: 40 })) as Parameters<typeof takeWaitingCommits>[0]['own'];
    const job = await queue.add('commit', own, { jobId: 'c-20' });
    const sent = vi.spyOn(redis, 'sendCommand');
    const taken = await takeWaitingCommits({ redis, prefix, queue, job, own, maxRows: 39, prepare: async () => 'x' });
    expect(sent.mock.calls.length).toBe(0);
    sent.mockRestore();
    expect(taken).toEqual([]);
  });
});
