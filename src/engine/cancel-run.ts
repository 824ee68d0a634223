import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { isFinishedRunStatus } from '../vocabulary.js';
import { deleteChunks } from './chunk-store.js';
import { commitJobSchema } from './job-data.js';
import { enqueueCancel } from './enqueue.js';
import type { LoadProcessorDeps } from './load-processor.js';
import { QUEUED_JOB_STATES, type Queues } from './queues.js';
import type { RunMeta, RunStore } from './run-store.js';

/**
 * `bvsync cancel RUN`: a run dropped on purpose. Its record in Redis says `cancelled` at once (which ends every command
 * waiting on it and frees its window for a new run), its queued jobs are removed, a slice being read stops within
 * about a second and is not loaded (run-cancel-watch.ts; a commit already running finishes), and a `cancel` job on
 * the load queue records it in `_sync_runs`, because only the holder of the writer lease may write DuckDB.
 */

export type CancelOutcome =
  | { outcome: 'cancelled'; meta: RunMeta; removed: RemovedJobs }
  | { outcome: 'already-cancelled'; meta: RunMeta; removed: RemovedJobs }
  | { outcome: 'finished'; meta: RunMeta }
  | { outcome: 'unknown' };

export interface RemovedJobs {
  fetch: number;
  load: number;
}

/** Marks the run cancelled in Redis, drops its queued jobs and asks the writer to record it in `_sync_runs`. */
export async function cancelRun(runs: RunStore, queues: Queues, redis: Redis, prefix: string, runId: string): Promise<CancelOutcome> {
  const before = await runs.get(runId);
  if (!before) return { outcome: 'unknown' };
  if (isFinishedRunStatus(before.status) && before.status !== 'cancelled') return { outcome: 'finished', meta: before };
  const meta = await runs.update(runId, { status: 'cancelled', finishedAt: new Date().toISOString(), error: 'cancelled with bvsync cancel' });
  // It finished on its own between the read and the update: nothing to cancel.
  if (meta.status !== 'cancelled') return { outcome: 'finished', meta };
  const removed = await removeQueuedJobsOfRun(queues, redis, prefix, runId);
  await enqueueCancel(queues, { runId });
  return { outcome: before.status === 'cancelled' ? 'already-cancelled' : 'cancelled', meta, removed };
}

/**
 * The load job `cancel`, run by the writer after whatever load jobs were ahead of it: a plan job that was running when
 * the run was cancelled has enqueued its fetch jobs by now, so the run's queued jobs are dropped again; then the run
 * is recorded `cancelled` in `_sync_runs` (created there when it was cancelled before its plan) and published.
 */
export async function recordCancelled(deps: LoadProcessorDeps, runId: string): Promise<void> {
  const meta = await deps.runs.get(runId);
  if (meta && meta.status !== 'cancelled') return;
  await removeQueuedJobsOfRun(deps.queues, deps.redis, deps.prefix, runId);
  if (!(await deps.warehouse.hasRun(runId))) {
    if (!meta) return; // neither Redis nor DuckDB knows the run any more: there is nothing to record
    await deps.warehouse.startRun({ runId, kind: meta.kind, brands: meta.brands, streams: meta.streams, windowStart: meta.from, windowEnd: meta.to });
  }
  await deps.warehouse.finishRun(runId, 'cancelled');
  const published = await deps.warehouse.publish(deps.config.db);
  deps.log.info({ run: runId, published: published.path }, 'run cancelled');
}

/** Jobs read per page while looking for a run's queued jobs. */
const PAGE = 1_000;

/**
 * Removes the run's fetch, plan and commit jobs that wait (or wait out a backoff); a job running now is left to
 * finish. A removed commit's fetched rows are deleted from Redis with it.
 */
export async function removeQueuedJobsOfRun(queues: Queues, redis: Redis, prefix: string, runId: string): Promise<RemovedJobs> {
  const removed: RemovedJobs = { fetch: 0, load: 0 };
  for (const [name, queue] of [['fetch', queues.fetch], ['load', queues.load]] as const) {
    const ofRun: Job[] = [];
    for (const state of QUEUED_JOB_STATES) {
      for (let start = 0; ; start += PAGE) {
        const jobs = await queue.getJobs([state], start, start + PAGE - 1, true);
        for (const job of jobs) if (job && (job.data as { runId?: unknown }).runId === runId && job.name !== 'cancel') ofRun.push(job);
        if (jobs.length < PAGE) break;
      }
    }
    for (const job of ofRun) {
      // Taken by a worker since it was listed: it runs, like any job already running.
      const gone = await job.remove().then(() => true, () => false);
      if (!gone) continue;
      removed[name] += 1;
      const commit = job.name === 'commit' ? commitJobSchema.safeParse(job.data) : undefined;
      if (commit?.success) await deleteChunks(redis, prefix, commit.data.token, commit.data.chunks);
    }
  }
  return removed;
}
