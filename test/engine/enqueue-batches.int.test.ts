import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueFetches } from '../../src/engine/jobs/enqueue.js';
import type { FetchJobData } from '../../src/engine/jobs/job-data.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { RunGoneError } from '../../src/engine/run/run-gone.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

/**
 * A large phase's fetch jobs go to Redis in bounded batches, not built all at once (enqueue.ts, FETCH_JOBS_PER_ADD):
 * every slice gets its job once, a replayed plan adds none, and a run gone from Redis stops the adding.
 */

const prefix = uniquePrefix('enqueue-batches');
const redis = testRedis();

afterAll(async () => {
  await deletePrefix(redis, prefix);
  await deletePrefix(redis, `${prefix}-gone`);
  await deletePrefix(redis, `${prefix}-attempts`);
  redis.disconnect();
});

function slicesOf(runId: string, count: number): FetchJobData[] {
  return Array.from({ length: count }, (_, index) => {
    const day = new Date(Date.UTC(2024, 0, 1) + index * 86_400_000).toISOString().slice(0, 10);
    return {
      runId,
      brandId: 1 + (index % 3),
      stream: 'conversations',
      sliceId: `${1 + (index % 3)}|conversations|${day}`,
      refetch: 0,
      slice: { key: day, day, from: day, to: day, params: {} },
    };
  });
}

describe('enqueueFetches', () => {
  it('adds a large phase in batches of at most the bound, each slice once', async () => {
    const base = openQueues(redis, prefix);
    try {
      const queues = base;
      await redis.set(redisKeys(prefix).run('run-large'), '{}');
      const slices = slicesOf('run-large', 1_201);
      expect(await enqueueFetches(queues, slices, 500)).toEqual([500, 500, 201]);
      expect(await base.fetch.getJobCountByTypes('waiting')).toBe(1_201);
      const ids = new Set((await base.fetch.getJobs(['waiting'], 0, -1)).map((job) => job.id));
      expect(ids.size).toBe(1_201);
      // A plan job replayed enqueues the same slices: their ids exist already.
      await enqueueFetches(queues, slices, 500);
      expect(await base.fetch.getJobCountByTypes('waiting')).toBe(1_201);
    } finally {
      await base.close();
    }
  });

  it('gives each fetch job the attempts docs/syncing.md promises', async () => {
    const promised = /retries it: (\d+) attempts/.exec(readFileSync('docs/syncing.md', 'utf8'))?.[1];
    expect(promised).toBeDefined();
    const queues = openQueues(redis, `${prefix}-attempts`);
    try {
      await redis.set(redisKeys(`${prefix}-attempts`).run('run-attempts'), '{}');
      await enqueueFetches(queues, slicesOf('run-attempts', 1), 10);
      const [job] = await queues.fetch.getJobs(['waiting']);
      expect(job?.opts.attempts).toBe(Number(promised));
    } finally {
      await queues.close();
    }
  });

  it('stops at the first batch that finds its run gone, and takes that batch back', async () => {
    const queues = openQueues(redis, `${prefix}-gone`);
    try {
      await expect(enqueueFetches(queues, slicesOf('run-gone', 30), 10)).rejects.toBeInstanceOf(RunGoneError);
      expect(await queues.fetch.getJobCountByTypes('waiting')).toBe(0);
    } finally {
      await queues.close();
    }
  });
});
