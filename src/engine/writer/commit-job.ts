import { UnrecoverableError, type Job } from 'bullmq';
import { endpointMapping } from '../../api/param-names.js';
import type { Logger } from '../../log.js';
import { getStream } from '../../streams/registry.js';
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
import { isWriterFault } from '../../warehouse/file/writer-fault.js';
import { isWriterFenced } from '../../warehouse/load/commit-fence.js';
import type { SliceStatus } from '../../vocabulary.js';
import { removeWaitingJobs, takeWaitingCommits, type WaitingCommit } from './waiting-commits.js';
import { redisKeys } from '../../redis-keys.js';
import { CommitLookups } from './commit-lookups.js';
import { isKeyConflict, withMovedRecordsSetAside } from './moved-records.js';
import { chunkKeys, deleteChunks, readChunks } from '../fetch/chunk-store.js';
import { recordUncounted } from '../run/cancel-run.js';
import { enqueueFetches } from '../jobs/enqueue.js';
import { sliceLogFields, type CommitJobData } from '../jobs/job-data.js';
import { type LoadProcessorDeps, perWarehouse, describedRun } from './load-context.js';
import { advanceIfPhaseDone } from './finalize-job.js';

/** A slice whose chunks are gone from Redis (expired, or Redis lost its data) is fetched again, this often. */
const MAX_REFETCHES = 2;

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

/** Job `commit`: its slice, with others waiting, into the working file in one transaction (step 3 of the flow). */
export async function commit(deps: LoadProcessorDeps, data: CommitJobData, job: Job): Promise<void> {
  // A commit replayed after it finished has no chunks: reading them would look like lost rows and refetch the slice.
  // Preparing has no effect of its own, so it runs while that is asked; a replay throws what it read away.
  const done = deps.runs.isDone(data.runId, data.sliceId);
  const cancelled = cancelledRuns(deps, [data.runId]);
  cancelled.catch(() => undefined); // awaited below, unless `done` throws first
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
  if ((await cancelled).size) {
    await prepared;
    return dropCancelledSlice(deps, data);
  }
  // The run publishes when it ends: its clone of the published file is copied meanwhile, not after the last load.
  void deps.warehouse.preparePublish(deps.config.db);
  await prepared;
  const own = await preparing;
  if (own === 'chunks-lost') return refetchOrFail(deps, data);
  // A companion of a cancelled run stays queued: its own job drops it. This job's run was asked above.
  const taken = await taking;
  const ofCancelledRuns = await cancelledRuns(
    deps,
    taken.map((companion) => companion.prepared.data.runId).filter((runId) => runId !== data.runId),
  );
  const companions = taken.filter((companion) => !ofCancelledRuns.has(companion.prepared.data.runId));
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

/** The runs among `runIds` that `bvsync cancel` dropped. */
async function cancelledRuns(deps: LoadProcessorDeps, runIds: string[]): Promise<Set<string>> {
  const distinct = [...new Set(runIds)];
  const metas = await Promise.all(distinct.map((runId) => deps.runs.get(runId)));
  return new Set(distinct.filter((_, i) => metas[i]?.status === 'cancelled'));
}

/**
 * A slice of a cancelled run, read to its end after the cancel removed the queued jobs: it is not loaded, as the
 * slices the cancel stopped mid-read are not, and its calls still count (test/engine/cancel-late-commit.int.test.ts).
 */
async function dropCancelledSlice(deps: LoadProcessorDeps, data: CommitJobData): Promise<void> {
  await deleteChunks(deps.redis, deps.prefix, data.token, data.chunks);
  const { runId, requests, retries, rateLimited } = data;
  const source = `slice ${data.sliceId}, read to its end after bvsync cancel`;
  await recordUncounted(deps, { runId, source, requests, retries, rateLimited, commits: [] });
  deps.log.info(sliceLogFields(data), 'run cancelled: a slice read after the cancel is not loaded');
}

/**
 * Outcomes, chunk deletion, companions' removal and progress in one round trip, the progress reads counting the
 * outcomes on the same connection. A companion goes only once its slice is done (test/engine/commit-batch.int.test.ts).
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
      { ...sliceLogFields(data), refetch: data.refetch + 1 },
      'the chunks of a slice are gone from Redis: fetching it again',
    );
    const { runId, brandId, stream, sliceId, slice } = data;
    // Its `refetch` counts up, so the fetch job's id is new.
    await enqueueFetches(deps.queues, [{ runId, brandId, stream, sliceId, slice, refetch: data.refetch + 1 }]);
    return;
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
  const tables = mergeChunks(chunks);
  const targets = stream.targets({ brandId: data.brandId, slice: data.slice });
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
 * When a load failed on keys other slices' rows hold, loads it again with those records set aside (moved-records.ts).
 * False when that was not why. An attempt worse than the slice's stored state is recorded beside it, as any worse is.
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
    { ...sliceLogFields(prepared.data), setAside: moved.setAside },
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
  const log = deps.log.child(sliceLogFields(data));
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
 * An engines filter the API applied in part: the slice loads, its rows being the applied engines' (`_slice_queries` has
 * both lists), but a complete run must not pass for covering every engine of `api.engines`.
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
