import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { Job } from 'bullmq';
import { TransientError, type ApiClient } from '../../src/api/index.js';
import { parseConfig } from '../../src/config/load.js';
import { fetchProcessor } from '../../src/engine/fetch-processor.js';
import type { FetchJobData } from '../../src/engine/job-data.js';
import { openQueues, type Queues } from '../../src/engine/queues.js';
import { RequestTallies } from '../../src/engine/request-tally.js';
import { createLogger } from '../../src/log.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

/**
 * How a fetch job ends on a failure its reader throws: a transient one goes back to BullMQ for another attempt; one
 * that comes back the same every time fails the slice at once, recorded, without the job's other attempts.
 */

const DAY = '2026-11-20';
let redis: Redis;
let prefix: string;
let queues: Queues;

beforeEach(() => {
  redis = testRedis();
  prefix = uniquePrefix('fetch-failures');
  queues = openQueues(redis, prefix);
});
afterEach(async () => {
  await queues.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

/** Runs one attempt of a fetch job whose reader throws `failure`; what the job did, and the commit it handed over. */
async function attemptWith(failure: Error) {
  const process = fetchProcessor({
    redis,
    prefix,
    queues,
    client: {} as ApiClient,
    sync: parseConfig({}).sync,
    tallies: new RequestTallies(),
    log: createLogger({ level: 'silent' }),
    reader: { read: () => Promise.reject(failure) },
  });
  const data: FetchJobData = { runId: 'run-1', brandId: 1, stream: 'conversations', sliceId: `1|conversations|${DAY}`, slice: { key: DAY, day: DAY, from: DAY, to: DAY, params: {} }, refetch: 0 };
  const job = { id: 'fetch-1', name: 'fetch', data, attemptsMade: 0, opts: { attempts: 4 }, updateData: async () => undefined } as unknown as Job;
  const thrown = await process(job).then(() => undefined, (error: unknown) => error);
  const commits = await queues.load.getJobs(['waiting', 'prioritized', 'delayed']);
  return { thrown, commits: commits.map((commit) => commit.data as { status: string; attempts: number; error: string }) };
}

describe('a fetch job whose read fails', () => {
  it('goes back to BullMQ for another attempt on a transient failure (a 5xx storm)', async () => {
    const { thrown, commits } = await attemptWith(new TransientError('HTTP 503 unavailable', { endpoint: 'GET /x' }, 'server_error'));
    expect(thrown).toBeInstanceOf(TransientError);
    expect(commits).toEqual([]);
  });

  it('fails the slice at once on an answer whose envelope is not the spec\'s, which comes back the same', async () => {
    const { thrown, commits } = await attemptWith(new TransientError("GET /x: the answer's envelope does not match the spec", { endpoint: 'GET /x' }, 'bad_envelope'));
    // Before, it was tried 4 times, each at 5 requests: 20 requests a slice, for every slice of the stream.
    expect(thrown).toBeUndefined();
    expect(commits).toMatchObject([{ status: 'failed', attempts: 1, error: expect.stringContaining('envelope does not match') }]);
  });
});
