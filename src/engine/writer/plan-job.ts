import { addDays, todayBy } from '../../days.js';
import { NO_DIMENSIONS, readDimensions, warehouseDimensions, type Dimensions } from '../../streams/dimensions.js';
import { STREAMS, selectStreams } from '../../streams/registry.js';
import { warnOfDaysUnderOtherEngines } from '../plan/engines-check.js';
import { warnOfDaysReadOtherwise } from '../plan/read-settings-check.js';
import { warnOfDaysNeverRead } from '../plan/unread-days-check.js';
import { enqueueFetches } from '../jobs/enqueue.js';
import { healSlices } from '../schedule/heal.js';
import type { FetchJobData } from '../jobs/job-data.js';
import {
  completeThrough,
  describeGap,
  firstIncrementalDay,
  needsOf,
  phaseOf,
  planPhase,
  type PlanMode,
  type PlannedPhase,
  type PlannedSlice,
} from '../plan/plan.js';
import { slicesHeldElsewhere } from '../run/held-slices.js';
import { runStartOf, type RunMeta } from '../run/run-store.js';
import { brandStreamId, sliceId } from '../../slice-ids.js';
import { type LoadProcessorDeps, runMeta } from './load-context.js';
import { advanceIfPhaseDone } from './finalize-job.js';

/** Job `plan`: one phase of a run into fetch jobs, less the slices complete in the file or held by another run. */
export async function plan(deps: LoadProcessorDeps, { runId, phase }: { runId: string; phase: number }): Promise<void> {
  const meta = await runMeta(deps, runId);
  const streams = selectStreams(meta.streams);
  const mode: PlanMode =
    meta.kind === 'backfill' || meta.kind === 'heal'
      ? { kind: 'backfill', from: meta.from!, to: meta.to!, today: meta.today }
      : { kind: 'incremental', today: meta.today };
  const cursors = new Map<string, string>();
  if (mode.kind === 'incremental') {
    const stored = await deps.warehouse.cursors();
    // A stream with no cursor yet starts after the days slices already loaded (by a backfill) have complete, unbroken.
    const first = firstIncrementalDay(mode.today, deps.config.sync);
    for (const brandId of meta.brands) {
      for (const stream of streams) {
        const id = brandStreamId(brandId, stream.name);
        const day =
          stored.get(id) ??
          completeThrough(first, await deps.warehouse.completeDays(brandId, stream.name, first, mode.today));
        if (day) cursors.set(id, day);
      }
    }
  }
  const ofPhase = streams.filter((stream) => phaseOf(stream, deps.config.sync) === phase);
  const needed = new Set(ofPhase.flatMap((stream) => needsOf(stream, deps.config.sync)));
  const dimensions = new Map<number, Dimensions>();
  // A backfill fans out over the pages listed in its window too: pages untracked since were tracked then.
  const listedSince = mode.kind === 'backfill' ? mode.from : undefined;
  const source = warehouseDimensions(deps.warehouse, listedSince);
  if (needed.size)
    for (const brandId of meta.brands)
      dimensions.set(
        brandId,
        await readDimensions(STREAMS.values(), needed, source, brandId, deps.config.sync.domains),
      );
  const { slices: planned, gaps } = planPhase({
    mode,
    brands: meta.brands,
    streams,
    phase,
    sync: deps.config.sync,
    cursors,
    dimensions: (brandId) => dimensions.get(brandId) ?? NO_DIMENSIONS,
    readDay: todayBy(deps.today),
  });
  for (const gap of gaps) deps.log.warn({ run: runId, brand: gap.brandId, stream: gap.stream }, describeGap(gap));
  const unheld = meta.heal
    ? healSlices(meta.heal.reads, planned)
    : meta.kind === 'backfill' && meta.skipComplete
      ? await withoutCompleteSlices(deps, runId, phase, planned)
      : planned;
  const { slices, held } =
    meta.kind === 'scheduled' ? await withoutHeldSlices(deps, runId, phase, unheld) : { slices: unheld, held: {} };
  if (mode.kind === 'incremental') {
    const planned: PlannedPhase = { runId, brands: meta.brands, streams: ofPhase, slices, today: mode.today };
    await warnOfDaysUnderOtherEngines(deps, planned);
    await warnOfDaysReadOtherwise(deps, planned);
    await warnOfDaysNeverRead(deps, planned);
  }
  let window: Pick<RunMeta, 'from' | 'to'> | undefined;
  if (phase === 1) {
    const days = slices
      .flatMap((slice) => [slice.from, slice.to])
      .filter((day): day is string => day !== null)
      .sort();
    window = { from: meta.from ?? days[0] ?? meta.today, to: meta.to ?? days.at(-1) ?? meta.today };
    await deps.warehouse.startRun(runStartOf({ ...meta, ...window }));
  }
  // Under a request budget a backfill reads its newest days first: the days it reaches before the budget stops it are the recent ones.
  if (meta.kind === 'backfill' && deps.config.api.dailyRequestBudget !== undefined)
    slices.sort((a, b) => (b.day ?? '').localeCompare(a.day ?? ''));
  const withIds = slices.map((slice) => ({ ...slice, sliceId: sliceId(slice.brandId, slice.stream, slice.key) }));
  // A heal run's slices left out are not asked for, not skipped as complete.
  const skipped = meta.heal || unheld === planned ? 0 : planned.length - unheld.length;
  await deps.runs.recordPlannedThenUpdate(runId, withIds, {
    ...window,
    phase,
    status: 'running',
    ...(gaps.length ? { gaps: [...(meta.gaps ?? []), ...gaps] } : {}),
    ...(skipped ? { skipped: { ...meta.skipped, [phase]: skipped } } : {}),
    ...(Object.keys(held).length ? { held: addCounts(meta.held ?? {}, held) } : {}),
  });
  deps.log.info({ run: runId, phase, slices: slices.length }, 'planned');
  const enqueuing = enqueueFetches(
    deps.queues,
    withIds.map(
      (slice): FetchJobData => ({
        runId,
        brandId: slice.brandId,
        stream: slice.stream,
        sliceId: slice.sliceId,
        refetch: 0,
        slice: { key: slice.key, day: slice.day, from: slice.from, to: slice.to, params: slice.params },
      }),
    ),
  );
  // The phase is done already when it planned nothing to fetch: asked while the fetches are added, as their slices
  // count as planned since recordPlannedThenUpdate.
  const [enqueued, advanced] = await Promise.allSettled([enqueuing, advanceIfPhaseDone(deps, runId)]);
  if (enqueued.status === 'rejected') throw enqueued.reason;
  if (advanced.status === 'rejected') throw advanced.reason;
}

/**
 * `backfill --skip-complete`: the planned slices less those complete and read after their window; a full-refresh list,
 * which files rows under its read day, only if read today. Anything else (failed, incomplete, unread) is read again.
 */
async function withoutCompleteSlices(
  deps: LoadProcessorDeps,
  runId: string,
  phase: number,
  planned: PlannedSlice[],
): Promise<PlannedSlice[]> {
  const today = todayBy(deps.today);
  const asked = planned.map((slice) => {
    const last = slice.snapshot ? null : (slice.to ?? slice.day);
    return {
      brandId: slice.brandId,
      stream: slice.stream,
      key: slice.key,
      day: last === null ? today : addDays(last, 1),
      list: last === null,
    };
  });
  const complete = await deps.warehouse.completeSlices(asked);
  // A plan job replayed finds complete the slices its first turn planned, and this run read: they stay this run's.
  for (const own of await deps.runs.plannedOf(runId, [...complete])) complete.delete(own);
  if (complete.size)
    deps.log.info(
      { run: runId, phase, skipped: complete.size },
      'slices complete in the file are not read again (--skip-complete)',
    );
  return planned.filter((slice) => !complete.has(sliceId(slice.brandId, slice.stream, slice.key)));
}

/**
 * A scheduled run's slices less those another unfinished run holds, else a tick during a run of the same days reads
 * them twice. Left-out slices count per `brand|stream`; finalize moves none of their cursors (the holding run does).
 */
async function withoutHeldSlices(
  deps: LoadProcessorDeps,
  runId: string,
  phase: number,
  planned: PlannedSlice[],
): Promise<{ slices: PlannedSlice[]; held: Record<string, number> }> {
  const ids = planned.map((slice) => sliceId(slice.brandId, slice.stream, slice.key));
  const holders = await slicesHeldElsewhere(deps.runs, runId, ids);
  if (holders.size === 0) return { slices: planned, held: {} };
  const held: Record<string, number> = {};
  for (const slice of planned) {
    if (!holders.has(sliceId(slice.brandId, slice.stream, slice.key))) continue;
    const group = brandStreamId(slice.brandId, slice.stream);
    held[group] = (held[group] ?? 0) + 1;
  }
  deps.log.info(
    { run: runId, phase, held: holders.size, by: [...new Set(holders.values())] },
    'slices an unfinished run still reads are left to it, not read twice',
  );
  deps.metrics?.slicesHeld?.(holders.size);
  return { slices: planned.filter((_, index) => !holders.has(ids[index]!)), held };
}

function addCounts(into: Record<string, number>, more: Record<string, number>): Record<string, number> {
  const sum = { ...into };
  for (const [key, count] of Object.entries(more)) sum[key] = (sum[key] ?? 0) + count;
  return sum;
}
