import { createHash } from 'node:crypto';
import { batches, groupBy } from '../../group-by.js';
import { Job, type Queue } from 'bullmq';
import type { HeldChunk } from '../fetch/chunk-store.js';
import { RunGoneError } from '../run/run-gone.js';
import type { CommitJobData, FetchJobData, PlanJobData, RunJobData, UncountedJobData } from './job-data.js';
import type { Queues } from './queues.js';

/**
 * Every job bvsync adds is added here, with an id derived from what the job is, so adding it twice adds nothing.
 * A job stays only while its run's record is in Redis; otherwise it is removed and RunGoneError thrown.
 */

/** One job to add: its name, data and id (the queue's default options apply). */
interface NewJob {
  name: string;
  data: unknown;
  jobId: string;
}

/**
 * Adds one run's jobs and checks its record in one ordered pipeline: `ahead`, then the add, then the check. A script
 * ahead answers 1, or 0 when the run is gone. Jobs of a run that vanished meanwhile are taken back and RunGoneError thrown.
 */
async function addOfRun(
  queues: Queues,
  runId: string,
  queue: Queue,
  jobs: NewJob[],
  ahead: HeldChunk[] = [],
): Promise<void> {
  const client = await queue.backend.client;
  const pipeline = client.pipeline();
  for (const { script, keys, args } of ahead) pipeline.runCommand('eval', [script, keys.length, ...keys, ...args]);
  const added = jobs.map(
    ({ name, data, jobId }) => new Job(queue, name, data, { ...queue.defaultJobOptions, jobId }, jobId),
  );
  // BullMQ queues each insert on the pipeline as it is called (its addJobs does the same), so they precede the look.
  for (const job of added) void job.addJob(pipeline).catch(() => undefined);
  pipeline.runCommand('exists', [queues.runKey(runId)]);
  const replies = (await pipeline.exec()) ?? [];
  const aheadFailure = replies.slice(0, ahead.length).find(([error, reply]) => error || reply !== 1);
  for (const [error, reply] of replies.slice(ahead.length, ahead.length + added.length)) {
    if (error) throw error;
    if (typeof reply === 'number' && reply < 0)
      throw new Error(`BullMQ refused to add a job to the ${queue.name} queue (code ${reply})`);
  }
  const [lookError, exists] = replies.at(-1) ?? [new Error('no answer from Redis')];
  if (lookError) throw lookError;
  if (exists === 1 && !aheadFailure) return;
  // A job whose script ahead failed would find its slice's chunk missing: it is taken back with the failure thrown.
  for (const job of added) await job.remove().catch(() => undefined);
  if (exists === 1 && aheadFailure?.[0]) throw aheadFailure[0];
  throw new RunGoneError(runId);
}

export async function enqueuePlan(queues: Queues, data: PlanJobData): Promise<void> {
  await addOfRun(queues, data.runId, queues.load, [
    { name: 'plan', data, jobId: jobId('plan', data.runId, data.phase) },
  ]);
}

/** Fetch jobs added per round trip: BullMQ builds each batch in memory before sending, so batches bound the peak. */
const FETCH_JOBS_PER_ADD = 500;

/**
 * The fetch jobs of a phase's slices, FETCH_JOBS_PER_ADD a round trip; returns the size of each add
 * (test/engine/enqueue-batches.int.test.ts).
 */
export async function enqueueFetches(
  queues: Queues,
  slices: readonly FetchJobData[],
  perAdd = FETCH_JOBS_PER_ADD,
): Promise<number[]> {
  const adds: number[] = [];
  for (const [runId, ofRun] of groupBy(slices, (slice) => slice.runId)) {
    for (const batch of batches(ofRun, perAdd)) {
      const jobs = batch.map((data) => ({ name: 'fetch', data, jobId: sliceJobId('fetch', data) }));
      await addOfRun(queues, runId, queues.fetch, jobs);
      adds.push(batch.length);
    }
  }
  return adds;
}

/** A slice's commit job; `ahead` writes the chunk its read held back (chunk-store.ts), in the same round trip. */
export async function enqueueCommit(queues: Queues, data: CommitJobData, ahead: HeldChunk[] = []): Promise<void> {
  await addOfRun(queues, data.runId, queues.load, [{ name: 'commit', data, jobId: sliceJobId('commit', data) }], ahead);
}

/** `sync.heal` after a scheduled run (compare, then re-read) or after its `heal` run (compare again): heal.ts. */
export async function enqueueHeal(queues: Queues, data: RunJobData): Promise<void> {
  await addOfRun(queues, data.runId, queues.load, [{ name: 'heal', data, jobId: jobId('heal', data.runId) }]);
}

export async function enqueueFinalize(queues: Queues, data: RunJobData): Promise<void> {
  await addOfRun(queues, data.runId, queues.load, [{ name: 'finalize', data, jobId: jobId('finalize', data.runId) }]);
}

/** `bvsync cancel` asks the writer to record the run's end in `_sync_runs`. */
export async function enqueueCancel(queues: Queues, data: RunJobData): Promise<void> {
  await addOfRun(queues, data.runId, queues.load, [{ name: 'cancel', data, jobId: cancelJobId(data.runId) }]);
}

/** Calls no commit job will count, for the writer to add to the run's `_sync_runs` row; once per source. */
export async function enqueueUncounted(queues: Queues, data: UncountedJobData): Promise<void> {
  await addOfRun(queues, data.runId, queues.load, [
    { name: 'uncounted', data, jobId: jobId('uncounted', data.runId, data.source) },
  ]);
}

/** The id of a run's cancel job, which `bvsync cancel` waits on to learn that the writer recorded it. */
export function cancelJobId(runId: string): string {
  return jobId('cancel', runId);
}

function sliceJobId(kind: 'fetch' | 'commit', data: FetchJobData): string {
  return jobId(kind, data.runId, data.brandId, data.stream, data.slice.key, data.refetch);
}

/**
 * An id derived from what the job is, so planning a run twice adds nothing while the job exists (BullMQ's dedup).
 * BullMQ forbids `:` and all-digit ids, and slice keys may hold any character, so they are hashed into the id.
 */
export function jobId(kind: string, ...parts: Array<string | number>): string {
  const readable = parts
    .map((part) =>
      String(part)
        .replace(/[^A-Za-z0-9_.-]/g, '_')
        .slice(0, 40),
    )
    .join('.');
  const digest = createHash('sha256')
    .update(JSON.stringify([kind, ...parts.map(String)]))
    .digest('hex')
    .slice(0, 12);
  return `${kind}.${readable}.${digest}`;
}
