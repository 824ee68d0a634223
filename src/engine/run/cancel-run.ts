import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { isFinishedRunStatus } from '../../vocabulary.js';
import { deleteChunks } from '../fetch/chunk-store.js';
import { commitJobSchema, fetchJobSchema, type UncountedJobData } from '../jobs/job-data.js';
import { enqueueCancel, enqueueUncounted } from '../jobs/enqueue.js';
import type { LoadProcessorDeps } from '../writer/load-context.js';
import { reportPublished } from '../writer/published-log.js';
import { QUEUED_JOB_STATES, type Queues } from '../jobs/queues.js';
import { runStartOf, type RunMeta, type RunStore } from './run-store.js';
import { addTally, emptyTally, type Tally } from './request-tally.js';

/**
 * `bvsync cancel RUN`: the record says `cancelled` at once, queued jobs go, a slice being read stops unloaded, and a
 * `cancel` load job records it in `_sync_runs` (only the writer writes DuckDB); `uncounted` jobs count its calls.
 */

export type CancelOutcome =
  | { outcome: 'cancelled'; meta: RunMeta; removed: RemovedJobs }
  | { outcome: 'already-cancelled'; meta: RunMeta; removed: RemovedJobs }
  | { outcome: 'finished'; meta: RunMeta }
  | { outcome: 'unknown' };

export interface RemovedJobs {
  fetch: number;
  load: number;
  /** The API calls of the removed fetch jobs' earlier attempts. */
  calls: Tally;
  /** The removed commit jobs' slices and their calls. */
  commits: RemovedCommit[];
}

export interface RemovedCommit extends Tally {
  sliceId: string;
}

/** Marks the run cancelled in Redis, drops its queued jobs and asks the writer to record it in `_sync_runs`. */
export async function cancelRun(
  runs: RunStore,
  queues: Queues,
  redis: Redis,
  prefix: string,
  runId: string,
): Promise<CancelOutcome> {
  const before = await runs.get(runId);
  if (!before) return { outcome: 'unknown' };
  if (isFinishedRunStatus(before.status) && before.status !== 'cancelled') return { outcome: 'finished', meta: before };
  // A finalizing run has every slice done and is being recorded and published: a cancel would relabel a finished run.
  const meta = await runs.update(
    runId,
    { status: 'cancelled', finishedAt: new Date().toISOString(), error: 'cancelled with bvsync cancel' },
    (current) => current.status !== 'finalizing',
  );
  // It finished on its own, or began to, between the read and the update: nothing to cancel.
  if (meta.status !== 'cancelled') return { outcome: 'finished', meta };
  const removed = await removeQueuedJobsOfRun(queues, redis, prefix, runId);
  // Ahead of the cancel job, so the run is recorded with them and published once.
  if (removed.calls.requests > 0 || removed.commits.length > 0) {
    await enqueueUncounted(queues, {
      runId,
      source: `jobs removed by bvsync cancel at ${new Date().toISOString()}`,
      ...removed.calls,
      commits: removed.commits,
    });
  }
  await enqueueCancel(queues, { runId });
  return { outcome: before.status === 'cancelled' ? 'already-cancelled' : 'cancelled', meta, removed };
}

/**
 * The load job `cancel`, run by the writer after the load jobs ahead of it: drops the run's queued jobs again (a plan
 * running at the cancel has enqueued its fetches by now), then records the run `cancelled` and publishes.
 */
export async function recordCancelled(deps: LoadProcessorDeps, runId: string): Promise<void> {
  const meta = await deps.runs.get(runId);
  if (meta && meta.status !== 'cancelled') return;
  const removed = await removeQueuedJobsOfRun(deps.queues, deps.redis, deps.prefix, runId);
  if (!(await recordedRun(deps, runId, meta))) return; // neither Redis nor DuckDB knows the run any more: there is nothing to record
  const calls = await uncountedCalls(deps, runId, removed.calls, removed.commits);
  if (calls.requests > 0) await deps.warehouse.addUncountedRequests(runId, calls);
  await deps.warehouse.finishRun(runId, 'cancelled');
  const published = await deps.warehouse.publish(deps.config.db);
  reportPublished(deps.log, published, deps.metrics);
  deps.log.info({ run: runId, published: published.path }, 'run cancelled');
}

/**
 * The load job `uncounted`: adds calls no commit job carries to the run's `_sync_runs` row, and publishes again when
 * the run is already finished (test/engine/uncounted-calls.int.test.ts).
 */
export async function recordUncounted(deps: LoadProcessorDeps, data: UncountedJobData): Promise<void> {
  const { runId, source, commits, ...carried } = data;
  const calls = await uncountedCalls(deps, runId, carried, commits);
  if (calls.requests === 0) return;
  if (!(await recordedRun(deps, runId, await deps.runs.get(runId)))) {
    deps.log.warn(
      { run: runId, source, requests: calls.requests },
      'API calls of a run neither Redis nor DuckDB knows any more: not recorded',
    );
    return;
  }
  const status = await deps.warehouse.addUncountedRequests(runId, calls);
  deps.log.info({ run: runId, source, requests: calls.requests }, 'API calls no slice carried added to the run');
  if (status !== 'running') reportPublished(deps.log, await deps.warehouse.publish(deps.config.db), deps.metrics);
}

/**
 * `carried` and the calls of the removed commits whose slices are not committed: one the writer took into another
 * job's transaction has had its calls counted with it. Only the writer may ask, as it alone commits.
 */
async function uncountedCalls(
  deps: LoadProcessorDeps,
  runId: string,
  carried: Tally,
  commits: readonly RemovedCommit[],
): Promise<Tally> {
  const calls = { ...carried };
  for (const commit of commits) if (!(await deps.runs.isDone(runId, commit.sliceId))) addTally(calls, commit);
  return calls;
}

/** Whether `_sync_runs` has the run's row, creating it from the run's record in Redis when only Redis knows it. */
async function recordedRun(deps: LoadProcessorDeps, runId: string, meta: RunMeta | null): Promise<boolean> {
  if (await deps.warehouse.hasRun(runId)) return true;
  if (!meta) return false;
  await deps.warehouse.startRun(runStartOf(meta));
  return true;
}

/** Load jobs a cancel leaves queued: they record the cancel itself, and calls the API made for the run. */
const KEPT_AT_CANCEL = new Set(['cancel', 'uncounted']);

/** Jobs read per page while looking for a run's queued jobs. */
const PAGE = 1_000;

/**
 * Removes the run's fetch, plan and commit jobs that wait (or wait out a backoff); a job running now is left to
 * finish. A removed commit's fetched rows are deleted from Redis with it.
 */
export async function removeQueuedJobsOfRun(
  queues: Queues,
  redis: Redis,
  prefix: string,
  runId: string,
): Promise<RemovedJobs> {
  const removed: RemovedJobs = { fetch: 0, load: 0, calls: emptyTally(), commits: [] };
  for (const name of ['fetch', 'load'] as const) {
    const ofRun: Job[] = [];
    for (const state of QUEUED_JOB_STATES) {
      for (let start = 0; ; start += PAGE) {
        const jobs = await queues[name].getJobs([state], start, start + PAGE - 1, true);
        for (const job of jobs)
          if (job && (job.data as { runId?: unknown }).runId === runId && !KEPT_AT_CANCEL.has(job.name))
            ofRun.push(job);
        if (jobs.length < PAGE) break;
      }
    }
    for (const job of ofRun) {
      // Taken by a worker since it was listed: it runs, like any job already running.
      const gone = await job.remove().then(
        () => true,
        () => false,
      );
      if (!gone) continue;
      removed[name] += 1;
      const commit = job.name === 'commit' ? commitJobSchema.safeParse(job.data) : undefined;
      if (commit?.success) {
        const { token, chunks, sliceId, requests, retries, rateLimited } = commit.data;
        await deleteChunks(redis, prefix, token, chunks);
        removed.commits.push({ sliceId, requests, retries, rateLimited });
      }
      const carried = job.name === 'fetch' ? fetchJobSchema.safeParse(job.data).data?.carried : undefined;
      if (carried) addTally(removed.calls, carried);
    }
  }
  return removed;
}
