import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { removeWaitingJobs } from '../../src/engine/writer/waiting-commits.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

// The companions a commit takes are the oldest waiting jobs, at the wait list's right end; a backlog of newer ones
// sits at its left end. Their removal takes them from the right (bench/waiting-removal.ts times it).
const prefix = uniquePrefix('waiting-removal');
let redis: Redis;
let queue: Queue;

beforeAll(() => {
  redis = testRedis();
  queue = new Queue('load', { connection: redis, prefix });
});

afterAll(async () => {
  await queue.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

describe('removing waiting jobs', () => {
  it('removes the oldest waiting jobs whole, leaves the backlog in order, and removes a job outside the wait list too', async () => {
    await queue.addBulk(
      Array.from({ length: 500 }, (_, index) => ({ name: 'commit', data: { index }, opts: { jobId: `job-${index}` } })),
    );
    const delayed = await queue.add('commit', { index: -1 }, { jobId: 'job-delayed', delay: 60_000 });
    const oldest = (await queue.getJobs(['waiting'], 0, 2, true)).map((job) => job.id);
    expect(oldest).toEqual(['job-0', 'job-1', 'job-2']);
    const events = await redis.xlen(queue.keys.events!);

    await removeWaitingJobs(redis, queue, [
      ...(await Promise.all(['job-0', 'job-2'].map((id) => queue.getJob(id)))).map((job) => job!),
      delayed,
    ]);

    expect((await queue.getJobs(['waiting'], 0, 2, true)).map((job) => job.id)).toEqual(['job-1', 'job-3', 'job-4']);
    expect(await queue.getWaitingCount()).toBe(498);
    expect(await queue.getDelayedCount()).toBe(0);
    for (const id of ['job-0', 'job-2', 'job-delayed']) expect(await queue.getJob(id)).toBeUndefined();
    expect(await redis.exists(`${queue.toKey('job-0')}:logs`)).toBe(0);
    // Each removal is told as BullMQ tells its own, for the dashboard and QueueEvents listeners.
    const told = await redis.xrange(queue.keys.events!, '-', '+');
    const removed = told
      .slice(events)
      .filter(([, fields]) => fields[1] === 'removed')
      .map(([, fields]) => fields[3]);
    expect(removed.sort()).toEqual(['job-0', 'job-2', 'job-delayed']);
  });
});
