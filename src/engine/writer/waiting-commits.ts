import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { commitJobSchema, type CommitJobData } from '../jobs/job-data.js';
import type { RunStore } from '../run/run-store.js';

/**
 * Most slices one transaction commits by default: a COMMIT costs the same whatever it holds, so waiting slices share
 * one, and the bound keeps a transaction, and what a failure reloads one by one, small.
 */
export const COMMIT_BATCH_SLICES = 64;

/**
 * Rows (in all tables, rejects included) beyond which a slice commits alone and takes no others with it: a large
 * slice's COMMIT is a small part of its cost, and the rows of many waiting slices at once would raise the writer's
 * memory for nothing.
 */
export const COMMIT_BATCH_ROWS = 5_000;

/**
 * Waiting jobs of the load queue looked at for companions, per slice a transaction may hold: each is read from Redis,
 * and most waiting load jobs are commits.
 */
const LOOK_AHEAD_PER_SLICE = 2;

export interface WaitingCommit<T> {
  job: Job;
  prepared: T;
}

export interface TakeWaitingCommitsOptions<T> {
  queue: Queue;
  runs: RunStore;
  /** The job being processed, and its data. */
  job: Job;
  own: CommitJobData;
  /** Slices in all, the job's own included; default COMMIT_BATCH_SLICES. */
  maxSlices?: number;
  /** Reads a waiting commit's chunks into what the loader needs; 'chunks-lost' leaves the job to its own run. */
  prepare: (data: CommitJobData) => Promise<T | 'chunks-lost'>;
}

/**
 * Other commit jobs waiting in the load queue whose slices can be committed in the same transaction as `own`: small
 * ones, of other slices, not done yet. Their jobs stay in the queue; once their outcomes are recorded they are
 * removed, or, when a crash comes first, run as usual and find their slice loaded by the run (load-processor's
 * replay rule), so a slice is committed with its state row exactly once either way.
 */
export async function takeWaitingCommits<T>(options: TakeWaitingCommitsOptions<T>): Promise<WaitingCommit<T>[]> {
  const maxSlices = options.maxSlices ?? COMMIT_BATCH_SLICES;
  let rows = sliceRows(options.own);
  if (maxSlices <= 1 || rows > COMMIT_BATCH_ROWS) return [];
  const slices = new Set([sliceOf(options.own)]);
  const waiting = await options.queue.getJobs(['waiting'], 0, maxSlices * LOOK_AHEAD_PER_SLICE - 1, true);
  const readable: Array<{ job: Job; data: CommitJobData }> = [];
  for (const job of waiting) {
    if (job.name !== 'commit' || job.id === options.job.id) continue;
    const parsed = commitJobSchema.safeParse(job.data);
    // A job this version cannot read fails on its own run, with the message that says why.
    if (parsed.success) readable.push({ job, data: parsed.data });
  }
  // Asked together, so a batch costs a few round trips to Redis rather than a few per slice.
  const done = await options.runs.doneAmong(readable.map(({ data }) => data));
  const candidates: Array<{ job: Job; data: CommitJobData }> = [];
  for (const { job, data } of readable) {
    if (candidates.length + 1 >= maxSlices) break;
    const slice = sliceOf(data);
    if (done.has(`${data.runId}|${data.sliceId}`) || slices.has(slice) || rows + sliceRows(data) > COMMIT_BATCH_ROWS)
      continue;
    slices.add(slice);
    rows += sliceRows(data);
    candidates.push({ job, data });
  }
  const prepared = await Promise.all(
    candidates.map(async ({ job, data }): Promise<WaitingCommit<T> | undefined> => {
      try {
        const ready = await options.prepare(data);
        return ready === 'chunks-lost' ? undefined : { job, prepared: ready };
      } catch {
        // Whatever went wrong is its own job's to report, with its attempts and its run marked failed if need be.
        return undefined;
      }
    }),
  );
  return prepared.filter((taken): taken is WaitingCommit<T> => taken !== undefined);
}

// Scans the wait list from its right end, where the oldest jobs and a commit's companions wait, unlike BullMQ's LREM,
// then removes each job as BullMQ does. KEYS: wait list, events stream, meta hash, each job's hash; ARGV: the job ids.
const REMOVE_WAITING = `local removed = {}
local maxEvents = tonumber(redis.call('HGET', KEYS[3], 'opts.maxLenEvents') or '10000') or 10000
for i, id in ipairs(ARGV) do
  if redis.call('LREM', KEYS[1], -1, id) == 1 then
    local jobKey = KEYS[i + 3]
    redis.call('DEL', jobKey, jobKey .. ':logs')
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', maxEvents, '*', 'event', 'removed', 'jobId', id, 'prev', 'waiting')
    removed[#removed + 1] = id
  end
end
return removed`;

/**
 * Removes committed companions' jobs in one round trip, each in O(1) of the backlog (they wait near the end workers
 * take from). A job that is no longer in the wait list (taken after a stall, paused, delayed) is removed as BullMQ
 * removes any job. Proved by test/engine/commit-batch.int.test.ts and test/engine/waiting-removal.int.test.ts.
 */
export async function removeWaitingJobs(redis: Redis, queue: Queue, jobs: Job[]): Promise<void> {
  const ids = jobs.map((job) => job.id).filter((id): id is string => id !== undefined);
  if (!ids.length) return;
  const keys = [queue.keys.wait!, queue.keys.events!, queue.keys.meta!, ...ids.map((id) => queue.toKey(id))];
  const removed = new Set((await redis.eval(REMOVE_WAITING, keys.length, ...keys, ...ids)) as string[]);
  await Promise.all(jobs.filter((job) => !removed.has(job.id!)).map((job) => job.remove().catch(() => undefined)));
}

function sliceRows(data: CommitJobData): number {
  return data.rows + data.rejects;
}

function sliceOf(data: CommitJobData): string {
  return `${data.brandId}|${data.stream}|${data.slice.key}`;
}
