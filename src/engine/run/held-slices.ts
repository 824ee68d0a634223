import type { Logger } from '../../log.js';
import { enqueuePlan, jobId } from '../jobs/enqueue.js';
import type { Queues } from '../jobs/queues.js';
import type { RunStore } from './run-store.js';

/**
 * The slices about to be planned that another unfinished sync or scheduled run holds (a backfill may wait hours for
 * quota, so holds none). Plans run one at a time, so none race past this (test/engine/schedule-overlap.int.test.ts).
 */
export async function slicesHeldElsewhere(
  runs: RunStore,
  runId: string,
  sliceIds: string[],
): Promise<Map<string, string>> {
  const held = new Map<string, string>();
  if (sliceIds.length === 0) return held;
  for (const other of await runs.unfinished()) {
    if (other.runId === runId || other.kind === 'backfill') continue;
    const asked = sliceIds.filter((sliceId) => !held.has(sliceId));
    if (asked.length === 0) break;
    const planned = [...(await runs.plannedOf(other.runId, asked))];
    if (planned.length === 0) continue;
    const done = await runs.doneAmong(planned.map((sliceId) => ({ runId: other.runId, sliceId })));
    for (const sliceId of planned) if (!done.has(`${other.runId}|${sliceId}`)) held.set(sliceId, other.runId);
  }
  return held;
}

/**
 * Runs recorded as `planning` whose plan job is not in the load queue get it again, so no run stays `planning`. The
 * writer calls it when it takes the lease; the job id makes it a no-op for a plan queued or running.
 */
export async function pickUpStuckPlans(queues: Queues, runs: RunStore, log: Logger): Promise<void> {
  for (const meta of await runs.unfinished()) {
    if (meta.status !== 'planning') continue;
    if (await queues.load.getJob(jobId('plan', meta.runId, 1))) continue;
    await enqueuePlan(queues, { runId: meta.runId, phase: 1 });
    log.warn(
      { run: meta.runId },
      'a run was left planning without its plan job (its starter stopped in between): planning it now',
    );
  }
}
