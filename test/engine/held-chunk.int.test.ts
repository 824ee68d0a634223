import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisChunkSink, readChunks } from '../../src/engine/fetch/chunk-store.js';
import { enqueueCommit } from '../../src/engine/jobs/enqueue.js';
import type { CommitJobData } from '../../src/engine/jobs/job-data.js';
import { openQueues, type Queues } from '../../src/engine/jobs/queues.js';
import { isRunGone } from '../../src/engine/run/run-gone.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

// A fetch job read on its own thread holds its last chunk back and writes it in the round trip of its commit job's add
// (fetch-processor.ts): the commit job never comes without its chunks, nor stays for a run gone from Redis.
const prefix = uniquePrefix('held-chunk');
let redis: Redis;
let queues: Queues;

beforeAll(() => {
  redis = testRedis();
  queues = openQueues(redis, prefix);
});

afterAll(async () => {
  await queues.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function commitOf(runId: string, token: string, chunks: number): CommitJobData {
  const day = '2026-11-20';
  return {
    runId,
    brandId: 1,
    stream: 'conversations',
    sliceId: `1|conversations|${day}`,
    refetch: 0,
    slice: { key: day, day, from: day, to: day, params: {} },
    token,
    chunks,
    status: 'complete',
    records: 2,
    rows: 2,
    rejects: 0,
    totalRows: 2,
    attempts: 1,
    requests: 1,
    retries: 0,
    rateLimited: 0,
    error: null,
    errorCode: null,
    requestId: null,
  };
}

const chunk = (id: number) => ({ tables: { conversations: [{ id }] }, rejects: [] });

describe('a chunk held back for the commit job', () => {
  it('is written in the same round trip as the commit job, after the chunks before it', async () => {
    const runId = 'run-held';
    await redis.hset(redisKeys(prefix).run(runId), 'status', 'running');
    const sink = new RedisChunkSink(redis, prefix, 'token-held', runId, { holdLast: true });
    await sink.write(chunk(1));
    // The first chunk is held until the next one comes: nothing is in Redis yet.
    expect(await readChunks(redis, prefix, sink.token, 1)).toBeUndefined();
    await sink.write(chunk(2));
    expect(await readChunks(redis, prefix, sink.token, 1)).toEqual([chunk(1)]);
    expect(await readChunks(redis, prefix, sink.token, 2)).toBeUndefined();
    const held = sink.takeHeld()!;
    await enqueueCommit(queues, commitOf(runId, sink.token, sink.chunks), [held]);
    expect(await readChunks(redis, prefix, sink.token, sink.chunks)).toEqual([chunk(1), chunk(2)]);
    expect((await queues.load.getJobs(['waiting'])).map((job) => job.data.token)).toEqual(['token-held']);
  });

  it('is not written, and its commit job not left, for a run gone from Redis', async () => {
    const runId = 'run-gone';
    await redis.hset(redisKeys(prefix).run(runId), 'status', 'running');
    const sink = new RedisChunkSink(redis, prefix, 'token-gone', runId, { holdLast: true });
    await sink.write(chunk(1));
    await redis.del(redisKeys(prefix).run(runId));
    const sent = enqueueCommit(queues, commitOf(runId, sink.token, sink.chunks), [sink.takeHeld()!]);
    await expect(sent).rejects.toSatisfy(isRunGone);
    expect(await redis.exists(redisKeys(prefix).chunk(sink.token, 0))).toBe(0);
    expect((await queues.load.getJobs(['waiting'])).map((job) => job.data.token)).toEqual(['token-held']);
  });
});
