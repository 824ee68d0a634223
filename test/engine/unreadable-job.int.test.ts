import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { UnreadableJobError, parseJobData, planJobSchema } from '../../src/engine/jobs/job-data.js';
import type { LoadProcessorDeps } from '../../src/engine/writer/load-context.js';
import { loadProcessor } from '../../src/engine/writer/load-processor.js';
import { LOAD_QUEUE, openQueues, type Queues } from '../../src/engine/jobs/queues.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('unreadable-job');
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

describe('a job payload this version cannot read', () => {
  it('names the job and each field that does not fit', () => {
    const parse = () => parseJobData(planJobSchema, { runId: '', phase: 0 }, { id: 'plan.r.2', name: 'plan' });
    expect(parse).toThrow(UnreadableJobError);
    expect(parse).toThrow(/job plan plan\.r\.2 .*runId: .*phase: /);
  });

  it('reads a plan of any later phase: streams may need what a phase-2 stream provides', () => {
    expect(parseJobData(planJobSchema, { runId: 'r', phase: 3 }, { id: 'plan.r.3', name: 'plan' })).toEqual({
      runId: 'r',
      phase: 3,
    });
  });

  it('fails at its first attempt, not after every retry the queue allows', async () => {
    // The payload is refused before the processor touches any of its dependencies, so none are given.
    // A Worker leaves a connection it is given open: closed below.
    const connection = redis.duplicate();
    const worker = new Worker(LOAD_QUEUE, loadProcessor({} as LoadProcessorDeps), {
      connection,
      prefix,
      autorun: false,
    });
    const failed = new Promise<Job>((resolve) => worker.on('failed', (job) => job && resolve(job)));
    try {
      await queues.load.add(
        'commit',
        { runId: 'r1', written: 'by a version long gone' },
        { jobId: 'commit.unreadable' },
      );
      void worker.run();
      const job = await failed;
      expect(job.opts.attempts).toBeGreaterThan(1);
      expect(job.attemptsMade).toBe(1);
      expect(job.failedReason).toMatch(/cannot read: .*brandId/);
      expect(await job.getState()).toBe('failed');
    } finally {
      await worker.close();
      connection.disconnect();
    }
  });
});
