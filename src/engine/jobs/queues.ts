import { Queue, type JobType, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { redisKeys } from '../../redis-keys.js';

/** Fetch jobs: one slice each, run by every bvsync process. */
export const FETCH_QUEUE = 'fetch';
/** Plan, commit, finalize and cancel jobs: run only by the process holding the DuckDB writer lease, one at a time. */
export const LOAD_QUEUE = 'load';

/**
 * Where a job sits until a worker takes it: waiting (BullMQ counts a paused queue's jobs as waiting), prioritized, or
 * delayed by a backoff or a 429. `bvsync cancel` removes a run's jobs in these states; an active job is left to finish.
 */
export const QUEUED_JOB_STATES: JobType[] = ['waiting', 'prioritized', 'delayed', 'waiting-children'];

/** The Redis key of the writer lease; one writer per Redis prefix (one prefix per warehouse). */
export function writerLeaseKey(prefix: string): string {
  return redisKeys(prefix).writerLease;
}

// Completed jobs are kept a day: a job id deduplicates only while its job exists, so a plan replayed within a run
// finds its fetch jobs and adds nothing.
const KEEP_COMPLETED = { age: 24 * 60 * 60, count: 100_000 };
const KEEP_FAILED = { age: 7 * 24 * 60 * 60 };

const FETCH_JOB_OPTIONS: JobsOptions = {
  // The client already retries transient failures within a call; these attempts cover a slice whose retries ran out
  // or whose process died, with jittered backoff so a failing API is not hammered in step.
  attempts: 4,
  backoff: { type: 'exponential', delay: 2_000, jitter: 1 },
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
};

const LOAD_JOB_OPTIONS: JobsOptions = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 1_000, jitter: 1 },
  removeOnComplete: KEEP_COMPLETED,
  removeOnFail: KEEP_FAILED,
};

export interface Queues {
  fetch: Queue;
  load: Queue;
  /** The Redis key of a run's record, looked at with each add: jobs of a run gone from it are not left behind (src/engine/jobs/enqueue.ts). */
  runKey(runId: string): string;
  close(): Promise<void>;
}

export function openQueues(connection: Redis, prefix: string): Queues {
  const fetch = new Queue(FETCH_QUEUE, { connection, prefix, defaultJobOptions: FETCH_JOB_OPTIONS });
  const load = new Queue(LOAD_QUEUE, { connection, prefix, defaultJobOptions: LOAD_JOB_OPTIONS });
  // A queue re-emits its connection's errors, which BullMQ prints with a stack trace when nobody listens; the
  // connection's owner reports an outage once, so the queues stay quiet.
  for (const queue of [fetch, load]) queue.on('error', () => undefined);
  return {
    fetch,
    load,
    runKey: (runId) => redisKeys(prefix).run(runId),
    close: async () => {
      await Promise.all([fetch.close(), load.close()]);
    },
  };
}
