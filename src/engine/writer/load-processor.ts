import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import { isWriterFault } from '../../warehouse/file/writer-fault.js';
import { isWriterFenced } from '../../warehouse/load/commit-fence.js';
import { dropJobOfGoneRun, isRunGone } from '../run/run-gone.js';
import { recordCancelled, recordUncounted } from '../run/cancel-run.js';
import { healAfter } from '../schedule/heal.js';
import { commitJobSchema, parseJobData, planJobSchema, runJobSchema, uncountedJobSchema } from '../jobs/job-data.js';
import { type LoadProcessorDeps, runMeta } from './load-context.js';
import { plan } from './plan-job.js';
import { commit } from './commit-job.js';
import { finalize } from './finalize-job.js';

/** How long a load job put back by a writer fault waits before another writer may take it (ms). */
const FAULT_REQUEUE_DELAY_MS = 1_000;

/**
 * The load queue's jobs, one at a time under the writer lease: `plan`, `commit` (a slice with its state, in one
 * transaction), `finalize` (docs/architecture.md, "The flow"); `cancel` and `uncounted` record a `bvsync cancel`.
 */
export function loadProcessor(deps: LoadProcessorDeps) {
  return async (job: Job, lockToken?: string): Promise<void> => {
    try {
      return await runLoadJob(deps, job);
    } catch (error) {
      if (isRunGone(error)) return dropJobOfGoneRun(deps.log, job, error as Error);
      if (isWriterFault(error)) {
        // A fault of the machine, not of the job: it goes back to wait for a writer that can write (after the space is
        // freed), as after a crash, rather than failing it and its run. test/engine/disk-full.int.test.ts.
        deps.onWriterFault(error);
        await job.moveToDelayed(Date.now() + FAULT_REQUEUE_DELAY_MS, lockToken);
        throw new DelayedError();
      }
      if (!isWriterFenced(error)) throw error;
      // This process is no longer the writer (its lease's fencing token is not the lease's): the job's write was rolled
      // back, and it goes back to the queue for the new writer without spending an attempt or failing its run.
      deps.log.warn(
        { job: job.name, id: job.id, err: (error as Error).message },
        "a load job was stopped by the writer lease's fence: it goes back to the queue for the writer",
      );
      if (lockToken) await job.moveToWait(lockToken).catch(() => undefined);
      throw new WaitingError();
    }
  };
}

async function runLoadJob(deps: LoadProcessorDeps, job: Job): Promise<void> {
  switch (job.name) {
    case 'plan':
      return plan(deps, parseJobData(planJobSchema, job.data, job));
    case 'commit':
      return commit(deps, parseJobData(commitJobSchema, job.data, job), job);
    case 'finalize':
      return finalize(deps, parseJobData(runJobSchema, job.data, job).runId);
    case 'heal':
      return healAfter(deps, await runMeta(deps, parseJobData(runJobSchema, job.data, job).runId));
    case 'cancel':
      return recordCancelled(deps, parseJobData(runJobSchema, job.data, job).runId);
    case 'uncounted':
      return recordUncounted(deps, parseJobData(uncountedJobSchema, job.data, job));
    default:
      throw new UnrecoverableError(`unknown load job "${job.name}"`);
  }
}
