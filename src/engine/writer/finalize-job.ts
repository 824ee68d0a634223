import { todayBy } from '../../days.js';
import { UnrecoverableError } from 'bullmq';
import { groupBy } from '../../group-by.js';
import { runStatusOfSlices } from '../../vocabulary.js';
import { reportPublished } from './published-log.js';
import { enqueueFinalize, enqueueHeal, enqueuePlan } from '../jobs/enqueue.js';
import { lastPhase, nextCursor } from '../plan/plan.js';
import { claimRunEndNotice, claimStaleNotice, sendRunEndNotices } from '../run/run-notices.js';
import { claimPrefixWarehouse } from './prefix-warehouse.js';
import { claimDriftNotice, recordRunDrift } from './schema-drift-notice.js';
import type { DriftEntry } from '../../warehouse/schema-drift.js';
import type { RunMeta } from '../run/run-store.js';
import { brandStreamId } from '../../slice-ids.js';
import { type LoadProcessorDeps, runMeta, describedRun } from './load-context.js';

/** When every slice planned so far is done: plan phase 2, or finalize after it. Idempotent through job ids. */
export async function advanceIfPhaseDone(deps: LoadProcessorDeps, runId: string): Promise<void> {
  const [meta, progress] = await Promise.all([runMeta(deps, runId), deps.runs.progress(runId)]);
  if (meta.status !== 'running') return;
  if (progress.done < progress.planned) return;
  if (meta.phase < lastPhase(deps.config.sync)) await enqueuePlan(deps.queues, { runId, phase: meta.phase + 1 });
  else await enqueueFinalize(deps.queues, { runId });
}

/** Job `finalize`: the run's cursors, its record and notices, and the published copy (steps 4 and 5 of the flow). */
export async function finalize(deps: LoadProcessorDeps, runId: string): Promise<void> {
  const meta = await runMeta(deps, runId);
  if (meta.status !== 'running' && meta.status !== 'finalizing') return;
  // A cancel between the read and this update wins: the run is not finished as complete, nor published as such.
  if ((await deps.runs.update(runId, { status: 'finalizing' })).status !== 'finalizing') return;
  // Still the prefix's warehouse (it was when this writer opened it): publishing another file would replace the analysts'.
  await claimPrefixWarehouse(deps.redis, deps.prefix, { id: deps.warehouse.id ?? '', path: deps.warehouse.path }).catch(
    (error: Error) => {
      throw new UnrecoverableError(error.message);
    },
  );
  const missing = await slicesMissingFromFile(deps, runId);
  const states = await deps.warehouse.sliceOutcomes(runId);
  // Days whose slices the file lacks must be read again: a cursor moved past them would leave them unread for good.
  if (meta.kind !== 'backfill' && meta.kind !== 'heal' && !missing) {
    // A backfill (or a heal run's re-read) only fills slices; the incremental position moves with incremental runs alone.
    const stored = await deps.warehouse.cursors();
    const byStream = groupBy(states, (state) => brandStreamId(state.brandId, state.stream));
    for (const brandId of meta.brands) {
      for (const stream of meta.streams) {
        // A stream that planned nothing moved nothing: its cursor moving on would leave those days unread for good.
        if (meta.gaps?.some((gap) => gap.brandId === brandId && gap.stream === stream)) continue;
        // Days another run read for this one (withoutHeldSlices) are that run's to count: its finalize moves the cursor.
        if (meta.held?.[brandStreamId(brandId, stream)]) continue;
        const own = byStream.get(brandStreamId(brandId, stream)) ?? [];
        const current = stored.get(brandStreamId(brandId, stream));
        const next = nextCursor(current, meta.today, own);
        if (next && next !== current) await deps.warehouse.advanceCursor(brandId, stream, next, runId);
      }
    }
  }
  const failed = states.filter((state) => state.status === 'failed').length;
  const incomplete = states.filter((state) => state.status === 'incomplete').length;
  // A stream asked for that could plan nothing leaves the run short of what it was asked, however its slices ended.
  const ofSlices = runStatusOfSlices({ total: states.length, failed, incomplete });
  const status = ofSlices === 'complete' && (meta.gaps?.length || missing) ? 'incomplete' : ofSlices;
  if (missing) deps.log.warn({ run: runId, db: deps.warehouse.path }, missing);
  await describedRun(deps, runId, meta);
  const drift = await recordRunDrift(deps.warehouse, runId, deps.log);
  await deps.warehouse.finishRun(runId, status);
  const published = await deps.warehouse.publish(deps.config.db);
  const end = {
    status,
    finishedAt: new Date().toISOString(),
    published: published.path,
    ...(missing ? { error: missing } : {}),
  };
  const ended: RunMeta = { ...meta, ...end };
  const notices = await claimNotices(
    deps,
    ended,
    failed ? await deps.warehouse.sliceStates({ runId, status: 'failed' }) : [],
    drift,
  );
  await deps.runs.update(runId, end);
  deps.metrics?.runFinished(meta.kind, status);
  sendRunEndNotices(deps.notifier, notices.run, notices.stale, deps.log);
  if (notices.drift) void deps.notifier?.notify(notices.drift);
  reportPublished(deps.log, published, deps.metrics);
  // After the run is finished and published, so its command and status see it whatever the comparison takes.
  if (deps.config.sync.heal && (meta.kind === 'scheduled' || meta.kind === 'heal'))
    await enqueueHeal(deps.queues, { runId });
  const { mode, ms, fullCopyReason: reason, estimate } = published;
  // Both ways' prices in whole milliseconds: the publish took the cheaper (publish-cost.ts).
  const publish = {
    mode,
    ms: Math.round(ms),
    reason,
    estimate: estimate && {
      incrementalMs: Math.round(estimate.incrementalMs),
      fullMs: Math.round(estimate.fullMs),
      rows: estimate.rows,
      scanMs: Math.round(estimate.scanMs),
    },
  };
  deps.log.info({ run: runId, status, failed, incomplete, published: published.path, publish }, 'run finished');
}

/**
 * Claimed before the run's end reaches Redis (run-notices.ts says why). A notice that cannot be made (Redis or DuckDB
 * failing) is logged and dropped: telling people never fails a run.
 */
async function claimNotices(
  deps: LoadProcessorDeps,
  ended: RunMeta,
  states: Parameters<typeof claimRunEndNotice>[0]['states'],
  drift: readonly DriftEntry[],
) {
  if (!deps.notifier) return {};
  try {
    const run = await claimRunEndNotice({ runs: deps.runs, notifier: deps.notifier, meta: ended, states });
    const stale = await claimStaleNotice(deps.runs, deps.notifier, ended, deps.config.notify.staleAfterHours, () =>
      deps.warehouse.newestCompletePastDays(todayBy(deps.today)),
    );
    return { run, stale, drift: await claimDriftNotice(deps.runs, deps.notifier, ended.runId, drift) };
  } catch (error) {
    deps.log.warn(
      { run: ended.runId, err: (error as Error).message },
      'could not prepare the notices of the run; it finished all the same',
    );
    return {};
  }
}

/**
 * Why the file lacks slices the run counts committed, if it does: each commit records its token in `_slice_commits`,
 * so a file restored from an older copy (same warehouse id) is caught (test/engine/restored-warehouse.int.test.ts).
 */
async function slicesMissingFromFile(deps: LoadProcessorDeps, runId: string): Promise<string | undefined> {
  const { done } = await deps.runs.progress(runId);
  const held = await deps.warehouse.runCommitCount(runId);
  if (held >= done) return undefined;
  return (
    `run ${runId} committed ${done} slices, but the working file ${deps.warehouse.path} (warehouse ${deps.warehouse.id}) holds ` +
    `${held} of them: the file was restored from an older copy, or replaced, after the others were committed. The run is not ` +
    `complete and moved no cursor; run the same command again to read the missing slices into this file ` +
    `(a backfill with --skip-complete reads only what the file lacks)`
  );
}
