import { DelayedError, UnrecoverableError, WaitingError, type Job } from 'bullmq';
import { addDays, todayUtc } from '../../days.js';
import { groupBy } from '../../group-by.js';
import { endpointMapping } from '../../api/param-names.js';
import type { Logger } from '../../log.js';
import { NO_DIMENSIONS, readDimensions, warehouseDimensions, type Dimensions } from '../../streams/dimensions.js';
import { STREAMS, getStream, selectStreams } from '../../streams/registry.js';
import type { SliceChunk } from '../../streams/run-slice.js';
import {
  appliedQuery,
  engineNotApplied,
  enginesDropped,
  rangeNotApplied,
  sentEnginesQuery,
} from '../../warehouse/provenance.js';
import { screenWrites } from '../../warehouse/load/row-screen.js';
import { attemptIsWorse, type Row, type SliceBatch, type TableWrite } from '../../warehouse/load/slice-batch.js';
import { planTable, type TablePlan } from '../../warehouse/load/table-plan.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { isWriterFault, type WriterFault } from '../../warehouse/file/writer-fault.js';
import { isWriterFenced } from '../../warehouse/load/commit-fence.js';
import { dropJobOfGoneRun, isRunGone, RunGoneError } from '../run/run-gone.js';
import { runStatusOfSlices, type SliceStatus } from '../../vocabulary.js';
import { recordCancelled, recordUncounted } from '../run/cancel-run.js';
import { reportPublished } from './published-log.js';
import { warnOfDaysUnderOtherEngines } from '../plan/engines-check.js';
import { warnOfDaysReadOtherwise } from '../plan/read-settings-check.js';
import { warnOfDaysNeverRead } from '../plan/unread-days-check.js';
import type { DescribeBackfill } from '../plan/skip-complete-backfill.js';
import { removeWaitingJobs, takeWaitingCommits, type WaitingCommit } from './waiting-commits.js';
import { redisKeys } from '../../redis-keys.js';
import { CommitLookups } from './commit-lookups.js';
import { isKeyConflict, withMovedRecordsSetAside } from './moved-records.js';
import { chunkKeys, readChunks } from '../fetch/chunk-store.js';
import { enqueueFetch, enqueueFetches, enqueueFinalize, enqueueHeal, enqueuePlan } from '../jobs/enqueue.js';
import { healAfter, healSlices, type HealDeps } from '../schedule/heal.js';
import {
  commitJobSchema,
  parseJobData,
  planJobSchema,
  runJobSchema,
  uncountedJobSchema,
  type CommitJobData,
  type FetchJobData,
} from '../jobs/job-data.js';
import {
  completeThrough,
  describeGap,
  firstIncrementalDay,
  lastPhase,
  needsOf,
  nextCursor,
  phaseOf,
  planPhase,
  type PlanMode,
  type PlannedPhase,
  type PlannedSlice,
} from '../plan/plan.js';
import { claimRunEndNotice, claimStaleNotice, sendRunEndNotices } from '../run/run-notices.js';
import { claimPrefixWarehouse } from './prefix-warehouse.js';
import { slicesHeldElsewhere } from '../run/held-slices.js';
import { claimDriftNotice, recordRunDrift } from './schema-drift-notice.js';
import type { DriftEntry } from '../../warehouse/schema-drift.js';
import { runStartOf, type RunMeta } from '../run/run-store.js';
import { brandStreamId, sliceId } from '../../slice-ids.js';

/** What the writer's jobs need: heal's jobs run on the same worker, so they take the same dependencies (heal.ts). */
export interface LoadProcessorDeps extends HealDeps {
  /** Most slices committed in one transaction (the job's own and others waiting); default COMMIT_BATCH_SLICES, 1: each alone. */
  commitBatchSlices?: number;
  /** Most rows of one transaction; default COMMIT_BATCH_ROWS (waiting-commits.ts). */
  commitBatchRows?: number;
  /** Told of a full disk or an invalidated database (src/warehouse/file/writer-fault.ts), before the job goes back to wait. */
  onWriterFault?: (fault: WriterFault) => void;
  /** The process clock's UTC day; default the real one. Tests pin it to the simulator's today. */
  today?: () => string;
  /** Words the backfills the engine advises as commands (src/cli/run/skip-complete-command.ts); default their fields. */
  describeBackfill?: DescribeBackfill;
}

function clockDay(deps: LoadProcessorDeps): string {
  return deps.today ? deps.today() : todayUtc();
}

/** How long a load job put back by a writer fault waits before another writer may take it (ms). */
const FAULT_REQUEUE_DELAY_MS = 1_000;

/** A slice whose chunks are gone from Redis (expired, or Redis lost its data) is fetched again, this often. */
const MAX_REFETCHES = 2;

/**
 * The load queue's jobs, run one at a time by the process holding the writer lease: `plan` (a phase of a run into
 * fetch jobs), `commit` (one slice into DuckDB, in one transaction with its state) and `finalize` (the run's
 * cursors, its record, and the published copy): steps 1, 3, 4 and 5 of docs/architecture.md, "The flow". `cancel`
 * and `uncounted` record a run dropped by `bvsync cancel` and the calls no slice of it carried (cancel-run.ts).
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
        deps.onWriterFault?.(error);
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

async function runMeta(deps: LoadProcessorDeps, runId: string): Promise<RunMeta> {
  const meta = await deps.runs.get(runId);
  if (!meta) throw new RunGoneError(runId);
  return meta;
}

async function plan(deps: LoadProcessorDeps, { runId, phase }: { runId: string; phase: number }): Promise<void> {
  const meta = await runMeta(deps, runId);
  const streams = selectStreams(meta.streams);
  const mode: PlanMode =
    meta.kind === 'backfill' || meta.kind === 'heal'
      ? { kind: 'backfill', from: meta.from!, to: meta.to!, today: meta.today }
      : { kind: 'incremental', today: meta.today };
  const cursors = new Map<string, string>();
  if (mode.kind === 'incremental') {
    const stored = await deps.warehouse.cursors();
    for (const brandId of meta.brands) {
      for (const stream of streams) {
        const day =
          stored.get(brandStreamId(brandId, stream.name)) ??
          (await completeFromState(deps, brandId, stream.name, mode.today));
        if (day) cursors.set(brandStreamId(brandId, stream.name), day);
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
    readDay: clockDay(deps),
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
 * `backfill --skip-complete`: the planned slices less those the file has complete, read once their window was over.
 * A full-refresh list counts complete only if read today by the process clock, since it files rows under its read day.
 * Anything else (failed, incomplete, never read, read while its day was today) is read again.
 */
async function withoutCompleteSlices(
  deps: LoadProcessorDeps,
  runId: string,
  phase: number,
  planned: PlannedSlice[],
): Promise<PlannedSlice[]> {
  const today = clockDay(deps);
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
 * A scheduled run's slices less those another unfinished run holds (planned, not yet done): a tick that fires while an
 * earlier run of the same days still reads them would otherwise send every request of those slices twice. The slices
 * left out are counted per `brand|stream`; finalize moves no cursor of those (the holding run moves it when it ends).
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

/** For a stream with no cursor yet: the days slices already loaded (by a backfill) have complete, unbroken. */
async function completeFromState(
  deps: LoadProcessorDeps,
  brandId: number,
  stream: string,
  today: string,
): Promise<string | undefined> {
  const first = firstIncrementalDay(today, deps.config.sync);
  return completeThrough(first, await deps.warehouse.completeDays(brandId, stream, first, today));
}

/** A commit job's slice made ready to load: the batch for the warehouse and what its outcome records afterwards. */
interface PreparedCommit {
  data: CommitJobData;
  batch: SliceBatch;
  /** Loaded by this run already, then stopped before its outcome was recorded: only the outcome is left to record. */
  loadedByRun: boolean;
  keptStatus: SliceStatus | undefined;
  screenedRejects: number;
  started: number;
}

async function commit(deps: LoadProcessorDeps, data: CommitJobData, job: Job): Promise<void> {
  // A commit replayed after it finished (a stalled job, a lease that moved, or one committed with another job's slice)
  // has nothing left to do, and its chunks are gone: reading them would look like lost rows and fetch the slice again.
  // Preparing has no effect of its own, so it runs while that is asked; a replay throws what it read away.
  const done = deps.runs.isDone(data.runId, data.sliceId);
  const preparing = prepareCommit(deps, data);
  const taking = takeWaitingCommits({
    redis: deps.redis,
    prefix: deps.prefix,
    queue: deps.queues.load,
    job,
    own: data,
    maxSlices: deps.commitBatchSlices,
    maxRows: deps.commitBatchRows,
    prepare: (other, chunks) => prepareCommit(deps, other, chunks),
  });
  const prepared = Promise.allSettled([preparing, taking]);
  if (await done) {
    await prepared;
    return advanceIfPhaseDone(deps, data.runId);
  }
  // The run publishes when it ends: its clone of the published file is copied meanwhile, not after the last load.
  void deps.warehouse.preparePublish(deps.config.db);
  await prepared;
  const own = await preparing;
  if (own === 'chunks-lost') return refetchOrFail(deps, data);
  const companions = await taking;
  const together = [own, ...companions.map((companion) => companion.prepared)];
  let committed = together;
  let ownFailure: unknown;
  try {
    const batches = together.filter((prepared) => !prepared.loadedByRun).map((prepared) => prepared.batch);
    for (const runId of new Set(batches.map((batch) => batch.runId))) await describedRun(deps, runId);
    if (batches.length) await deps.warehouse.loadSlices(batches);
  } catch (error) {
    // A full disk fails every slice alone as it failed them together; a writer that lost the lease loads nothing more.
    if (isWriterFault(error) || isWriterFenced(error)) throw error;
    if (!companions.length) {
      if (!(await loadWithMovedRecordsSetAside(deps, own, error))) throw error;
    } else {
      // One slice's rows must not take the others down: each is loaded again alone. A companion that fails alone is left
      // to its own job (its attempts, its error); this job's slice failing alone fails this job, once the others are in.
      deps.log.warn(
        { run: data.runId, slices: together.length, err: (error as Error).message },
        'slices committed together failed; loading each alone',
      );
      committed = [];
      for (const prepared of together) {
        try {
          if (!prepared.loadedByRun)
            await deps.warehouse.loadSlice(prepared.batch).catch(async (alone: unknown) => {
              if (!(await loadWithMovedRecordsSetAside(deps, prepared, alone))) throw alone;
            });
          committed.push(prepared);
        } catch (alone) {
          if (prepared === own) ownFailure = alone;
        }
      }
    }
  }
  await afterCommit(deps, committed, companions);
  if (ownFailure !== undefined) throw ownFailure;
}

/**
 * The outcomes of the slices committed, their chunks' deletion, the companions' removal and each run's progress, sent
 * in one round trip. The run store's reads follow its outcome scripts on its connection, so they count them. A
 * companion's job is removed only once its slice is done, so a job left behind finds its slice done and does nothing
 * (test/engine/commit-batch.int.test.ts).
 */
async function afterCommit(
  deps: LoadProcessorDeps,
  committed: PreparedCommit[],
  companions: WaitingCommit<PreparedCommit>[],
): Promise<void> {
  const recording = Promise.all(committed.map((prepared) => recordCommitted(deps, prepared)));
  const removed = companions.filter((candidate) => committed.includes(candidate.prepared));
  const keys = redisKeys(deps.prefix);
  const removing = removeWaitingJobs(
    deps.redis,
    deps.queues.load,
    removed.map((companion) => companion.job),
    removed.map(({ prepared }) => ({ doneKey: keys.run(prepared.data.runId, 'done'), sliceId: prepared.data.sliceId })),
  ).catch(() => undefined);
  const runIds = [...new Set(committed.map((prepared) => prepared.data.runId))];
  const advancing = runIds.map((runId) => advanceIfPhaseDone(deps, runId));
  const settled = await Promise.allSettled([recording, removing, ...advancing]);
  const failure = settled.find((each) => each.status === 'rejected');
  if (failure) throw failure.reason;
}

/** The chunks of the job's slice are gone from Redis (expired, or Redis lost its data): fetch it again, a few times. */
async function refetchOrFail(deps: LoadProcessorDeps, data: CommitJobData): Promise<void> {
  if (data.refetch < MAX_REFETCHES) {
    deps.log.warn(
      { run: data.runId, brand: data.brandId, stream: data.stream, slice: data.slice.key, refetch: data.refetch + 1 },
      'the chunks of a slice are gone from Redis: fetching it again',
    );
    const { runId, brandId, stream, sliceId, slice } = data;
    return enqueueFetch(deps.queues, { runId, brandId, stream, sliceId, slice, refetch: data.refetch + 1 });
  }
  // A failed slice reads its chunks only for the rejects they may hold, so it is never short of chunks.
  const failed = (await prepareCommit(deps, {
    ...data,
    status: 'failed',
    error: 'the fetched rows were lost from Redis before they could be loaded',
  })) as PreparedCommit;
  if (!failed.loadedByRun) {
    await describedRun(deps, data.runId);
    await deps.warehouse.loadSlice(failed.batch);
  }
  await recordCommitted(deps, failed);
  await advanceIfPhaseDone(deps, data.runId);
}

/** Reads the slice's chunks, unless given, and builds its batch; has no effect of its own, so a slice prepared and not loaded is untouched. */
async function prepareCommit(
  deps: LoadProcessorDeps,
  data: CommitJobData,
  ...given: [chunks: SliceChunk[] | undefined] | []
): Promise<PreparedCommit | 'chunks-lost'> {
  const started = performance.now();
  const stream = getStream(data.stream);
  let status = data.status;
  let error = data.error;
  let errorCode = data.errorCode;
  // The echo holds the query under the names it was sent with: this endpoint's.
  const params = endpointMapping(deps.config.api.params, deps.config.api.endpointParams, stream.endpoint.name);
  const asked = (data.slice.params as { engine?: unknown } | undefined)?.engine;
  const notApplied =
    typeof asked === 'string' && data.query && status !== 'failed'
      ? engineNotApplied(data.query, params.engines ?? 'engines', asked)
      : undefined;
  // A day slice's rows are filed under its day; a window's rows carry their own dates.
  const rangeWrong =
    data.query && data.slice.day !== null && status !== 'failed' && !notApplied
      ? rangeNotApplied(data.query, data.slice, {
          start: params.start_date ?? 'start_date',
          end: params.end_date ?? 'end_date',
        })
      : undefined;
  const unapplied = notApplied ?? rangeWrong;
  if (unapplied) {
    status = 'failed';
    error = unapplied;
    errorCode = notApplied ? 'engine_not_applied' : 'range_not_applied';
  }
  let chunks: SliceChunk[] = [];
  // Read while the file is asked what it holds of the slice: reading has no effect, and costs no round trip of its own.
  // Chunks given were read with the job (waiting-commits.ts), undefined when one was gone.
  const reading = given.length
    ? given[0]
    : status !== 'failed' || data.chunks > 0
      ? readChunks(deps.redis, deps.prefix, data.token, data.chunks)
      : undefined;
  // A replay of a commit that went in (slice-commits.ts): only its outcome is left to record, even once its chunks are
  // gone. Asked before any other await, so the slices prepared together share one lookup (commit-lookups.ts).
  const [{ committed, stored }, read] = await Promise.all([
    commitLookups(deps.warehouse).of({
      brandId: data.brandId,
      stream: data.stream,
      sliceKey: data.slice.key,
      token: data.token,
    }),
    reading,
  ]);
  // A failed slice brings no rows, but may bring the records it quarantined (a first page the API numbered otherwise).
  if (status === 'failed' && data.chunks > 0) {
    chunks = (read ?? []).map((chunk) => ({ tables: {}, rejects: chunk.rejects }));
  } else if (status !== 'failed') {
    if (!read && !committed) return 'chunks-lost';
    chunks = read ?? [];
  }
  const context = { brandId: data.brandId, slice: data.slice };
  const tables = mergeChunks(chunks);
  const targets = stream.targets(context);
  const stray = Object.keys(tables).filter((table) => !targets.some((target) => target.table === table));
  if (stray.length)
    throw new UnrecoverableError(
      `stream ${data.stream} made rows for ${stray.join(', ')}, which are not among its targets`,
    );
  // A failed slice leaves its earlier rows as they were: only its state says it failed.
  let writes: TableWrite[] =
    status === 'failed' ? [] : targets.map((target) => ({ ...target, rows: tables[target.table] ?? [] }));
  let rejects = chunks.flatMap((chunk) => chunk.rejects);
  // Data never fails a commit: rows the loader would refuse are set aside here, and the slice says it is incomplete.
  const screened = screenWrites(
    writes,
    planLookup(deps.warehouse),
    data.brandId,
    `load of ${data.stream} brand ${data.brandId} slice ${data.slice.key}`,
  );
  if (screened.problem) {
    writes = screened.writes;
    rejects = [...rejects, ...screened.rejects];
    if (status === 'complete') status = 'incomplete';
    error = error ? `${error}; ${screened.problem}` : screened.problem;
    errorCode ??= screened.problemCode;
  }
  if (status === 'complete' && data.rejects > 0) {
    const first = rejects[0]?.issues[0];
    const failed = `failed validation${first ? ` (the first: ${first})` : ''}`;
    let short: string | undefined;
    // Every record the read brought failed validation: nothing of the slice is in the tables, so it is not complete.
    if (data.records === 0)
      short = `every record of this read (${data.rejects}) ${failed}: they are in _rejected_records, not in the tables`;
    // A complete read that rejected records and brings fewer rows than the slice holds must not replace them:
    // it is an incomplete attempt, which leaves the stored rows (below).
    else if (stored?.status === 'complete' && data.records < stored.rows)
      short = `${data.rejects} record(s) of this read ${failed}, leaving ${data.records} where the slice holds ${stored.rows}: its rows are kept`;
    if (short) {
      status = 'incomplete';
      error = error ? `${error}; ${short}` : short;
      errorCode = 'row_invalid';
    }
  }
  // Loaded already, then stopped before its outcome was recorded: loading again would count the slice twice in
  // _sync_runs and overwrite later commits. The state's run id covers replays the commit ledger no longer keeps.
  const loadedByRun =
    committed || (stored !== undefined && (stored.runId === data.runId || stored.attemptRunId === data.runId));
  // A re-fetch that came out worse than what the slice holds (a wrong key, a 5xx storm, an incomplete read of a
  // complete day) keeps the rows and the state, and is recorded beside them: docs/tables.md, "How a slice loads".
  const attemptOnly = attemptIsWorse(status, stored?.status);
  const batch: SliceBatch = {
    runId: data.runId,
    brandId: data.brandId,
    stream: data.stream,
    sliceKey: data.slice.key,
    day: data.slice.day,
    writes: attemptOnly ? [] : writes,
    rejects: attemptOnly ? [] : rejects,
    attemptOnly,
    appliedQuery: data.query
      ? appliedQuery(data.query, data.slice, params.engines, data.sentEngines)
      : data.sentEngines && sentEnginesQuery(data.sentEngines, data.slice),
    ...(data.readWith !== undefined ? { readWith: data.readWith } : {}),
    token: data.token,
    state: {
      status,
      rows: status === 'failed' ? 0 : data.records,
      totalRows: data.totalRows,
      attempts: data.attempts,
      requests: data.requests,
      // Summed into _sync_runs by the loader, so its retries and rate_limited counts come from here.
      retries: data.retries,
      rateLimited: data.rateLimited,
      lastError: error,
      errorCode: status === 'complete' ? errorCode : (errorCode ?? 'incomplete'),
      requestId: data.requestId,
    },
  };
  return { data, batch, loadedByRun, keptStatus: stored?.status, screenedRejects: screened.rejects.length, started };
}

/**
 * Loads a slice again with the records other slices' rows hold the keys of set aside (moved-records.ts), when that is
 * why its load failed; false when it was not. An attempt that this makes worse than the slice's stored state is
 * recorded beside it, as any worse attempt is.
 */
async function loadWithMovedRecordsSetAside(
  deps: LoadProcessorDeps,
  prepared: PreparedCommit,
  failure: unknown,
): Promise<boolean> {
  if (!isKeyConflict(failure)) return false;
  const moved = await withMovedRecordsSetAside(deps.warehouse, prepared.batch);
  if (!moved) return false;
  const attemptOnly = attemptIsWorse(moved.batch.state.status, prepared.keptStatus);
  prepared.batch = attemptOnly ? { ...moved.batch, writes: [], rejects: [], attemptOnly } : moved.batch;
  prepared.screenedRejects += moved.setAside;
  deps.log.warn(
    {
      run: prepared.data.runId,
      stream: prepared.data.stream,
      slice: prepared.data.slice.key,
      setAside: moved.setAside,
    },
    'records filed under another slice now were set aside',
  );
  await deps.warehouse.loadSlice(prepared.batch);
  return true;
}

/** After the slice's transaction committed: metrics, its log line, its outcome in the run, and its chunks deleted. */
async function recordCommitted(deps: LoadProcessorDeps, prepared: PreparedCommit): Promise<void> {
  const { data, batch } = prepared;
  const status = batch.state.status;
  const attemptOnly = batch.attemptOnly === true;
  const log = deps.log.child({ run: data.runId, brand: data.brandId, stream: data.stream, slice: data.slice.key });
  for (const write of batch.writes) deps.metrics?.rowsLoaded(write.table, write.rows.length);
  deps.metrics?.rowsRejected(data.stream, batch.rejects.length);
  deps.metrics?.sliceCommitted(data.stream, status, (performance.now() - prepared.started) / 1000);
  const logged = {
    status,
    rows: batch.writes.reduce((sum, write) => sum + write.rows.length, 0),
    rejects: batch.rejects.length,
    ms: Math.round(performance.now() - prepared.started),
  };
  if (attemptOnly)
    log.warn(
      { ...logged, kept: prepared.keptStatus, error: batch.state.lastError },
      'slice attempt recorded beside the better state it keeps',
    );
  else log.debug(logged, 'slice committed');
  // A failed slice loaded nothing, and says why itself (a per-engine slice answered for other engines is one).
  if (!attemptOnly && status !== 'failed' && batch.appliedQuery)
    warnOfDroppedEngines(log, data, enginesDropped(batch.appliedQuery));
  await deps.runs.recordOutcome(data.runId, {
    sliceId: data.sliceId,
    brandId: data.brandId,
    stream: data.stream,
    status,
    rows: status === 'failed' || attemptOnly ? 0 : data.rows - prepared.screenedRejects,
    rejects: attemptOnly ? 0 : data.rejects + prepared.screenedRejects,
    requests: data.requests,
    retries: data.retries,
    rateLimited: data.rateLimited,
    chunkKeys: chunkKeys(deps.prefix, data.token, data.chunks),
  });
}

/** Runs, streams and ids already warned of, so a run says it once per stream and not once per day. */
const droppedEnginesWarned = new Set<string>();

/**
 * An engines filter the API read only part of: the slice loads, as its rows are what the API answered for the engines
 * it applied (`_slice_queries` records both lists), but a run that ends complete must not pass for covering every
 * engine of `api.engines`.
 */
function warnOfDroppedEngines(log: Logger, data: CommitJobData, dropped: string[]): void {
  if (dropped.length === 0) return;
  const said = `${data.runId}\u0000${data.stream}\u0000${dropped.join(',')}`;
  if (droppedEnginesWarned.has(said)) return;
  if (droppedEnginesWarned.size >= 1_000) droppedEnginesWarned.clear();
  droppedEnginesWarned.add(said);
  log.warn(
    { dropped },
    `the API did not apply engine(s) ${dropped.map((engine) => JSON.stringify(engine)).join(', ')} of api.engines (its info.query leaves them out): ` +
      "the stream's rows cover only the engines it names (_slice_queries: engines beside sent_engines); said once per run, stream and set of ids; " +
      'check the ids with `bvsync doctor`, then correct or remove them in api.engines',
  );
}

/** What `make` builds of a warehouse, once per open file. */
function perWarehouse<T>(make: (warehouse: Warehouse) => T): (warehouse: Warehouse) => T {
  const made = new WeakMap<Warehouse, T>();
  return (warehouse) => {
    let value = made.get(warehouse);
    if (value === undefined) made.set(warehouse, (value = make(warehouse)));
    return value;
  };
}

/** The lookup batcher of the warehouse's commits. */
const commitLookups = perWarehouse((warehouse) => new CommitLookups(warehouse));

/** Table plans from the warehouse's catalog, built once: the screen converts values as the loader will. */
const planLookup = perWarehouse((warehouse) => {
  const plans = new Map(
    warehouse.tables().map((info) => [info.name, planTable(info, warehouse.promotedFields(info.name))]),
  );
  return (table: string): TablePlan => {
    const plan = plans.get(table);
    if (!plan)
      throw new UnrecoverableError(
        `no table "${table}" in the warehouse for the rows of a slice; the stream and the migrations disagree`,
      );
    return plan;
  };
});

function mergeChunks(chunks: SliceChunk[]): Record<string, Row[]> {
  const tables: Record<string, Row[]> = {};
  for (const chunk of chunks) {
    for (const [table, rows] of Object.entries(chunk.tables)) {
      const target = (tables[table] ??= []);
      for (const row of rows) target.push(row);
    }
  }
  return tables;
}

/** When every slice planned so far is done: plan phase 2, or finalize after it. Idempotent through job ids. */
async function advanceIfPhaseDone(deps: LoadProcessorDeps, runId: string): Promise<void> {
  const [meta, progress] = await Promise.all([runMeta(deps, runId), deps.runs.progress(runId)]);
  if (meta.status !== 'running') return;
  if (progress.done < progress.planned) return;
  if (meta.phase < lastPhase(deps.config.sync)) await enqueuePlan(deps.queues, { runId, phase: meta.phase + 1 });
  else await enqueueFinalize(deps.queues, { runId });
}

async function finalize(deps: LoadProcessorDeps, runId: string): Promise<void> {
  const meta = await runMeta(deps, runId);
  if (meta.status !== 'running' && meta.status !== 'finalizing') return;
  await deps.runs.update(runId, { status: 'finalizing' });
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
  const publish = { mode, ms: Math.round(ms), reason, estimate: roundedEstimate(estimate) };
  deps.log.info({ run: runId, status, failed, incomplete, published: published.path, publish }, 'run finished');
}

/** Both ways' prices in whole milliseconds, for the run's log line: the publish took the cheaper (publish-cost.ts). */
function roundedEstimate(
  estimate: { incrementalMs: number; fullMs: number; rows: number; scanMs: number } | undefined,
) {
  return (
    estimate && {
      incrementalMs: Math.round(estimate.incrementalMs),
      fullMs: Math.round(estimate.fullMs),
      rows: estimate.rows,
      scanMs: Math.round(estimate.scanMs),
    }
  );
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
      deps.warehouse.newestCompletePastDays(clockDay(deps)),
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
 * Why the working file lacks slices the run counts as committed, or undefined when it holds them all: each commit
 * records its fetch's token in `_slice_commits` in its own transaction, one per slice, so a file restored from an older
 * copy (same warehouse id, fewer commits) is caught here. Proved by test/engine/restored-warehouse.int.test.ts.
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

/** Runs whose `_sync_runs` row this writer has described, per open file: one lookup per run, not per commit. */
const describedRuns = perWarehouse(() => new Set<string>());

/**
 * Gives the run its `_sync_runs` row from its record in Redis unless the file has it. A file that missed the run's plan
 * (restored, or opened by another writer than the one that planned it) otherwise had the row made by the loader's
 * counters, under the column's default kind `sync`, whatever ran. Proved by test/engine/restored-warehouse.int.test.ts.
 */
async function describedRun(deps: LoadProcessorDeps, runId: string, meta?: RunMeta): Promise<void> {
  const known = describedRuns(deps.warehouse);
  if (known.has(runId)) return;
  if (!(await deps.warehouse.hasRun(runId)))
    await deps.warehouse.startRun(runStartOf(meta ?? (await runMeta(deps, runId))));
  if (known.size >= 1_000) known.clear();
  known.add(runId);
}
