import { randomUUID } from 'node:crypto';
import { WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { ApiError, type ApiClient } from '../../api/index.js';
import { redactSecrets, type Logger } from '../../log.js';
import type { SliceOutcomeStatus, SyncMetrics } from '../../ops/sync-metrics.js';
import { getStream } from '../../streams/registry.js';
import { startFailure, unavailableFailure, type Availability, type Failure, type RefusalOf } from './availability.js';
import { classify, type FetchDecision, type FetchOutcome, type FetchState } from './fetch-outcome.js';
import {
  fetchJobSchema,
  parseJobData,
  sliceLogFields,
  type CommitJobData,
  type FetchJobData,
} from '../jobs/job-data.js';
import { enqueueCommit, enqueueUncounted } from '../jobs/enqueue.js';
import type { Queues } from '../jobs/queues.js';
import { emptyTally, type RequestTallies } from '../run/request-tally.js';
import { inlineSliceReader, type SliceRead, type SliceReader } from './slice-reader.js';
import { dropJobOfGoneRun, isRunGone } from '../run/run-gone.js';
import { deleteChunks, type HeldChunk } from './chunk-store.js';
import { withQuotaClass, type QuotaClass, type RequestQuota } from '../../api/rate/request-quota.js';
import { parkForQuota, quotaClassOf, recordSliceRequests, sliceEstimate } from './quota-parking.js';
import type { SyncConfig } from '../../configuration.js';
import { errorMessage } from '../../format.js';

export interface FetchProcessorDeps {
  redis: Redis;
  prefix: string;
  queues: Queues;
  client: ApiClient;
  sync: SyncConfig;
  tallies: RequestTallies;
  log: Logger;
  /** The API's availability: what the process heard on its key, the run's outage, what the API refused. */
  availability: Availability;
  /** Aborted on shutdown so in-flight requests end quickly. */
  signal: AbortSignal;
  /** Whether the process is stopping (its jobs draining, before `signal` cuts them short). */
  stopping: () => boolean;
  /** Told how each slice ended and how long it took; default none. */
  metrics?: SyncMetrics;
  /** Reads the slices: the fetch threads (`sync.fetchThreads`); default on this thread through `client`. */
  reader?: SliceReader;
  /** The key's request budget per window (`api.dailyRequestBudget`); default none: no quota. docs/quota.md. */
  quota?: RequestQuota;
}

/**
 * Step 2 of a run (docs/architecture.md): read one slice, hand its rows as compressed chunks in Redis to a commit job.
 * The outcome is classified (fetch-outcome.ts) and acted on here alone; a failed slice is recorded and the run goes on.
 */
export function fetchProcessor(deps: FetchProcessorDeps) {
  // Read on this thread, the last chunk goes with the commit job's add: a round trip to Redis less per slice.
  const reader = deps.reader ?? inlineSliceReader({ ...deps, holdLastChunk: true });
  return async (job: Job, lockToken?: string): Promise<void> => {
    try {
      return await fetchJob(deps, reader, job, lockToken);
    } catch (error) {
      // Its run is gone from Redis: the slice leaves no chunk, no commit job and no job of its own behind (run-gone.ts).
      if (isRunGone(error)) return dropJobOfGoneRun(deps.log, job, error as Error);
      throw error;
    }
  };
}

async function fetchJob(deps: FetchProcessorDeps, reader: SliceReader, job: Job, lockToken?: string): Promise<void> {
  const { availability } = deps;
  const data = parseJobData(fetchJobSchema, job.data, job);
  // An unknown stream fails here, before the API is asked anything.
  getStream(data.stream);
  const token = `${job.id}.${job.attemptsMade}.${randomUUID().slice(0, 8)}`;
  // Calls of earlier attempts count too: _sync_runs must show what a failing or rate-limited API cost.
  const tally = { ...emptyTally(), ...data.carried };
  const carryTally = () => job.updateData({ ...data, carried: { ...tally } }).catch(() => {});
  const log = deps.log.child(sliceLogFields(data));
  const started = performance.now();
  const fetched = (status: SliceOutcomeStatus) =>
    deps.metrics?.sliceFetched(data.stream, status, (performance.now() - started) / 1000);
  /** The one failed commit: the loader records why the slice failed and keeps any rows it held. */
  const fail = (why: Failure): Promise<void> => {
    fetched('failed');
    return sendToCommit(deps, data, {
      token,
      chunks: 0,
      status: 'failed',
      records: 0,
      rows: 0,
      rejects: 0,
      totalRows: null,
      attempts: job.attemptsMade + 1,
      ...tally,
      ...why,
    });
  };
  // A key, brand or stream the API refused, or an outage the run gave up on, is not asked again per slice: the slice
  // is recorded failed with that answer, so `status` and `_sync_state` still say why.
  const start = await availability.mayStart(data.runId, data.brandId, data.stream);
  if (start.kind !== 'answering') return fail(startFailure(start, deps.sync));
  // A slice whose estimate does not fit what its run's class may still spend in the window is not begun: it waits.
  const quotaClass: QuotaClass | undefined = deps.quota ? await quotaClassOf(deps, data.runId) : undefined;
  if (deps.quota && quotaClass) {
    const fits = await deps.quota.fits(quotaClass, await sliceEstimate(deps, data.stream));
    if (!fits.granted) return parkForQuota(deps, deps.quota, job, lockToken, fits.resumesAt, log, carryTally);
  }
  const carriedRequests = tally.requests;
  let read: SliceRead | undefined;
  let outcome: FetchOutcome;
  try {
    const reading = () => reader.read(data, token, tally);
    read = quotaClass ? await withQuotaClass(quotaClass, reading) : await reading();
    if (deps.quota)
      await recordSliceRequests(deps, data.stream, tally.requests - carriedRequests).catch(() => undefined);
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  /** What the job knows once an outcome is in, read once: classify is pure. */
  const stateAfter = (outcome: FetchOutcome): FetchState => ({
    attempt: job.attemptsMade + 1,
    attempts: job.opts.attempts ?? 1,
    stopping: deps.stopping(),
    aborted: deps.signal.aborted,
    canHandBack: lockToken !== undefined,
    quota: deps.quota && !outcome.ok ? quotaNow(deps.quota) : undefined,
    heard: availability.hearing(),
    toleranceMs: availability.toleranceMs,
    sync: deps.sync,
  });

  // Back to the queue for whichever worker runs next, without spending an attempt and without pausing the queue: a
  // pause begun while BullMQ closes the worker is sat out in full. False when the slice could not go back.
  const handBack = async (): Promise<boolean> => {
    if (!lockToken) return false;
    await carryTally();
    const moved = await job.moveToWait(lockToken).then(
      () => true,
      () => false,
    );
    if (!moved) return false;
    log.info({ requests: tally.requests }, 'stopping: the slice goes back to the queue');
    fetched('retry');
    throw new WaitingError();
  };
  // Pauses the fetch queue and leaves the slice in it; a stop begun meanwhile hands it back instead.
  const pauseFetching = async (ms: number, countRetry: boolean): Promise<never> => {
    await carryTally();
    if (deps.stopping()) await handBack();
    await deps.queues.fetch.rateLimit(ms);
    if (deps.stopping()) await handBack();
    if (countRetry) fetched('retry');
    throw Worker.RateLimitError();
  };

  const remember = async (refusal: RefusalOf | undefined): Promise<void> => {
    if (!refusal) return;
    await availability
      .remember(refusal)
      .catch((failure: Error) => log.warn({ err: failure.message }, 'could not remember the refusal'));
  };
  const commit = async ({ result, chunks, held }: SliceRead): Promise<void> => {
    // The read came back, complete or not: the API answers. Said in the same round trip as the commit job's add.
    const over = availability.answered(data.runId);
    if (result.status !== 'complete')
      log.warn({ status: result.status, problem: result.problem }, `slice ${result.status}`);
    fetched(result.status);
    const sent = sendToCommit(
      deps,
      data,
      {
        token,
        chunks,
        status: result.status,
        records: result.records,
        rows: result.rows,
        rejects: result.rejects,
        totalRows: result.totalRows,
        attempts: job.attemptsMade + 1,
        ...tally,
        error: result.problem,
        errorCode: result.status === 'complete' ? null : (result.problemCode ?? 'incomplete'),
        requestId: null,
        query: result.query,
        sentEngines: result.sentEngines,
        readWith: result.readWith,
      },
      held,
    );
    await Promise.all([over, sent]);
  };
  const settle = (outcome: FetchOutcome, state = stateAfter(outcome)): Promise<void> =>
    carryOut(classify(outcome, state, data), outcome, state);
  const carryOut = async (decision: FetchDecision, outcome: FetchOutcome, state: FetchState): Promise<void> => {
    const error = outcome.ok ? undefined : outcome.error;
    switch (decision.kind) {
      case 'commit': {
        // A commit job that could not be added is a failure of the slice's job as a read's is.
        return commit(read!).catch((failure: unknown) => settle({ ok: false, error: failure }));
      }
      case 'run-gone':
        throw error;
      case 'park': {
        const quota = deps.quota!;
        if (decision.spent) {
          await quota.spentUntil(decision.until);
          log.warn(
            { until: new Date(decision.until).toISOString(), err: describe(error) },
            "the API says the key's quota is spent: the slice waits for it",
          );
        }
        return parkForQuota(deps, quota, job, lockToken, decision.until, log, carryTally);
      }
      case 'cancelled':
        // Like its queued slices, this one is neither loaded nor recorded (its _sync_state row stays what it was); the
        // reader has dropped what it wrote. Its calls still count in the run's _sync_runs row, as the API counted them.
        log.info({ requests: tally.requests }, 'run cancelled: the slice stopped reading and is not loaded');
        fetched('cancelled');
        if (tally.requests > 0) {
          const source = `slice ${data.brandId}/${data.stream}/${data.slice.key} stopped by bvsync cancel (fetch job ${job.id})`;
          // Not thrown: the job tried again would read the cancelled slice once more only to stop.
          await enqueueUncounted(deps.queues, { runId: data.runId, source, ...tally, commits: [] }).catch(
            (failure: Error) =>
              log.warn(
                { err: failure.message, requests: tally.requests },
                "could not hand the stopped slice's calls to the writer; _sync_runs leaves them out",
              ),
          );
        }
        return;
      case 'read-run': {
        const outage = await availability.runOutage(data.runId, data.sliceId, decision.sighting, Date.now());
        return settle(outcome, { ...state, run: { outage } });
      }
      case 'hand-back':
        await handBack();
        return settle(outcome, { ...state, canHandBack: false });
      case 'stopped-waiting':
        // When it could not be handed back (its lock lost), BullMQ's stalled check gives it to the next worker.
        throw new WaitingError();
      case 'pause':
        if (decision.cause === 'rate_limited')
          log.warn({ retryAfterMs: decision.ms }, 'rate limited again and again: the slice waits in the queue');
        else
          log.warn(
            {
              err: describe(error),
              unavailableForS: Math.round((decision.waitedMs ?? 0) / 1000),
              pauseMs: decision.ms,
              toleranceMin: deps.sync.outageToleranceMinutes,
            },
            'the API is not answering: the slice waits in the queue, without spending an attempt',
          );
        return pauseFetching(decision.ms, decision.countRetry);
      case 'give-up': {
        // Waited out as long as the run may: this slice and the run's others fail, without asking an API that is away.
        const outage = await availability.giveUp(data.runId, decision.outage);
        log.error(
          { err: describe(error), unavailableForS: Math.round((outage.seenAt - outage.since) / 1000) },
          outage.cause === 'rate_limited'
            ? 'the API answered nothing but 429 for sync.outageToleranceMinutes: the slice fails'
            : 'the API did not come back within sync.outageToleranceMinutes: the slice fails',
        );
        return fail(unavailableFailure(outage, deps.sync, '', error instanceof ApiError ? error : undefined));
      }
      case 'retry':
        await remember(decision.refusal);
        if (decision.why === 'outage-ended')
          log.warn({ requests: tally.requests }, "the run's outage ended as the slice stopped: it will be tried again");
        else log.warn({ err: describe(error), attempt: job.attemptsMade + 1 }, 'slice failed; it will be tried again');
        fetched('retry');
        await carryTally();
        throw error;
      case 'fail':
        await remember(decision.refusal);
        if (decision.why === 'stopped-by-give-up')
          log.error({ requests: tally.requests }, 'the run stopped waiting for the API: the slice being read fails');
        else log.error({ err: describe(error) }, 'slice failed');
        return fail(decision.failure);
    }
  };
  return settle(outcome);
}

/** The request budget's clock and the end of its current window. */
function quotaNow(quota: RequestQuota): { now: number; windowEnd: number } {
  const now = quota.clock();
  return { now, windowEnd: quota.windowAt(now).end };
}

type CommitFields = Omit<CommitJobData, 'runId' | 'brandId' | 'stream' | 'sliceId' | 'slice' | 'refetch'>;

async function sendToCommit(
  deps: FetchProcessorDeps,
  data: FetchJobData,
  fields: CommitFields,
  held?: HeldChunk,
): Promise<void> {
  const { runId, brandId, stream, sliceId, slice, refetch } = data;
  const commit: CommitJobData = { runId, brandId, stream, sliceId, slice, refetch, ...fields };
  try {
    await enqueueCommit(deps.queues, commit, held ? [held] : []);
  } catch (error) {
    // No commit job will read the chunks of a run gone from Redis.
    if (isRunGone(error))
      await deleteChunks(deps.redis, deps.prefix, fields.token, fields.chunks).catch(() => undefined);
    throw error;
  }
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) return error.toJSON();
  return { message: redactSecrets(errorMessage(error)) };
}
