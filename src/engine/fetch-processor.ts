import { randomUUID } from 'node:crypto';
import { WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  ApiError,
  AuthError,
  BrandAccessDeniedError,
  QuotaExceededError,
  RateLimitedError,
  StoppedWaitingError,
  TransientError,
  isBadEnvelope,
  refusesKey,
  type ApiClient,
} from '../api/index.js';
import { redactSecrets, type Logger } from '../log.js';
import type { SliceOutcomeStatus, SyncMetrics } from '../ops/sync-metrics.js';
import { getStream } from '../streams/registry.js';
import type { AccessMemo, Refusal } from './access-memo.js';
import { outageToleranceMs, processUnansweredSince, type Outage, type OutageMemo } from './outage-memo.js';
import { fetchJobSchema, parseJobData, type CommitJobData, type FetchJobData } from './job-data.js';
import { enqueueCommit, enqueueUncounted } from './enqueue.js';
import type { Queues } from './queues.js';
import { emptyTally, type RequestTallies } from './request-tally.js';
import { inlineSliceReader, type SliceReader } from './slice-reader.js';
import { RunCancelledError, RunGaveUpError } from './run-cancel-watch.js';
import { dropJobOfGoneRun, isRunGone } from './run-gone.js';
import { deleteChunks, type HeldChunk } from './chunk-store.js';
import { QuotaWaitError, withQuotaClass, type QuotaClass, type RequestQuota } from '../api/request-quota.js';
import { parkForQuota, quotaClassOf, recordSliceRequests, sliceEstimate } from './quota-parking.js';
import type { SyncConfig } from '../configuration.js';

export interface FetchProcessorDeps {
  redis: Redis;
  prefix: string;
  queues: Queues;
  client: ApiClient;
  sync: SyncConfig;
  tallies: RequestTallies;
  log: Logger;
  /** Rows per chunk handed to the loader; default 5,000. */
  chunkRows?: number;
  /** Aborted on shutdown so in-flight requests end quickly. */
  signal?: AbortSignal;
  /** Whether the process is stopping (its jobs draining, before `signal` cuts them short); default never. */
  stopping?: () => boolean;
  /** Told how each slice ended and how long it took; default none. */
  metrics?: SyncMetrics;
  /** What the API refused (the key, a brand), shared through Redis: slices it covers fail without a request; default none. */
  access?: AccessMemo;
  /** The run's memory of the API being away, shared through Redis; default none: outages spend attempts as any failure. */
  outages?: OutageMemo;
  /** When a call of this process, on any fetch thread, was last answered (not a 5xx or a 408); default never. */
  lastAnsweredAt?: () => number;
  /**
   * Since when every answer a call of this process, on any fetch thread, got was a 429: undefined after an answer of
   * anything else. Default none: a key answered nothing but 429s is waited for as long as it lasts.
   */
  rateLimitedSince?: () => number | undefined;
  /** When a call of this process was last served (src/api/key-answers.ts); default never. */
  lastServedAt?: () => number;
  /** Reads the slices: the fetch threads (`sync.fetchThreads`); default on this thread through `client`. */
  reader?: SliceReader;
  /** The key's request budget per window (`api.dailyRequestBudget`); default none: no quota. docs/quota.md. */
  quota?: RequestQuota;
}

/**
 * A fetch job reads one slice through the API client and hands its rows, in compressed chunks waiting in Redis, to a
 * commit job of the load queue. Transient failures are retried by BullMQ (attempts with jittered backoff); a 429
 * pauses the whole fetch queue for its Retry-After without spending an attempt; a permanent failure (validation,
 * auth, brand access) or the last attempt records the slice as failed, so the run goes on and reports it. Step 2
 * of a run: docs/architecture.md, "The flow".
 */
export function fetchProcessor(deps: FetchProcessorDeps) {
  // Read on this thread, the last chunk goes with the commit job's add: a round trip to Redis less per slice.
  const reader = deps.reader ?? inlineSliceReader({ ...deps, holdLastChunk: true });
  const fetch = fetchJob(deps, reader);
  return async (job: Job, lockToken?: string): Promise<void> => {
    try {
      return await fetch(job, lockToken);
    } catch (error) {
      // Its run is gone from Redis: the slice leaves no chunk, no commit job and no job of its own behind (run-gone.ts).
      if (isRunGone(error)) return dropJobOfGoneRun(deps.log, job, error as Error);
      throw error;
    }
  };
}

function fetchJob(deps: FetchProcessorDeps, reader: SliceReader) {
  return async (job: Job, lockToken?: string): Promise<void> => {
    const data = parseJobData(fetchJobSchema, job.data, job);
    // An unknown stream fails here, before the API is asked anything.
    getStream(data.stream);
    const token = `${job.id}.${job.attemptsMade}.${randomUUID().slice(0, 8)}`;
    // Calls of earlier attempts count too: _sync_runs must show what a failing or rate-limited API cost.
    const tally = { ...emptyTally(), ...data.carried };
    const carryTally = () => job.updateData({ ...data, carried: { ...tally } }).catch(() => {});
    const bindings = { run: data.runId, brand: data.brandId, stream: data.stream, slice: data.slice.key };
    const log = deps.log.child(bindings);
    const started = performance.now();
    const fetched = (status: SliceOutcomeStatus) =>
      deps.metrics?.sliceFetched(data.stream, status, (performance.now() - started) / 1000);
    // A key, a brand or a brand's stream the API already refused (the command's preflight, or an earlier slice's 401 or
    // 403) is not asked again per slice: the slice is recorded failed with that answer, so `status` and `_sync_state` still say why.
    // Both asked at once: each is a round trip to Redis that every slice pays before its first request.
    const [denial, outageGivenUp] = await Promise.all([
      deps.access?.refusalFor(data.brandId, data.stream),
      deps.outages?.gaveUp(data.runId).catch(() => undefined),
    ]);
    if (denial) {
      fetched('failed');
      await enqueueFailedCommit(deps, data, token, job.attemptsMade + 1, tally, {
        error: skippedFor(denial),
        errorCode: denial.errorCode,
        requestId: denial.requestId,
      });
      return;
    }
    if (outageGivenUp) {
      fetched('failed');
      await enqueueFailedCommit(
        deps,
        data,
        token,
        job.attemptsMade + 1,
        tally,
        unavailableFailure(outageGivenUp, deps.sync, 'skipped without a request: '),
      );
      return;
    }
    // A slice whose estimate does not fit what its run's class may still spend in the window is not begun: it waits.
    const quotaClass: QuotaClass | undefined = deps.quota ? await quotaClassOf(deps, data.runId) : undefined;
    if (deps.quota && quotaClass) {
      const fits = await deps.quota.fits(quotaClass, await sliceEstimate(deps, data.stream));
      if (!fits.granted) return parkForQuota(deps, deps.quota, job, lockToken, fits.resumesAt, log, carryTally);
    }
    const carriedRequests = tally.requests;
    try {
      const read = () => reader.read(data, token, tally);
      const { result, chunks, held } = quotaClass ? await withQuotaClass(quotaClass, read) : await read();
      if (deps.quota)
        await recordSliceRequests(deps, data.stream, tally.requests - carriedRequests).catch(() => undefined);
      // The read came back, complete or not: the API answers, and whatever outage the run met is over. Said in the same
      // round trip as the commit job's add.
      const over = deps.outages?.over(data.runId).catch(() => undefined);
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
    } catch (error) {
      if (isRunGone(error)) throw error;
      // The window's budget is spent (the ledger said so before a request, or a 429 of hours said so after one): the slice
      // waits for the next window in the queue, not failed and spending no attempt. docs/quota.md.
      if (deps.quota && error instanceof QuotaWaitError)
        return parkForQuota(deps, deps.quota, job, lockToken, error.resumesAt, log, carryTally);
      if (deps.quota && error instanceof QuotaExceededError) {
        const now = deps.quota.clock();
        const until = error.retryAfterMs !== undefined ? now + error.retryAfterMs : deps.quota.windowAt(now).end;
        await deps.quota.spentUntil(until);
        log.warn(
          { until: new Date(until).toISOString(), err: describe(error) },
          "the API says the key's quota is spent: the slice waits for it",
        );
        return parkForQuota(deps, deps.quota, job, lockToken, until, log, carryTally);
      }
      // `bvsync cancel` dropped the run while the slice was paged: like its queued slices, this one is neither loaded nor
      // recorded (its _sync_state row stays what it was), and the reader has dropped what it wrote. Its calls still
      // count in the run's _sync_runs row, as the API counted them.
      if (error instanceof RunCancelledError) {
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
      }
      // The run gave up on the API while the slice was read: it fails as the run's queued slices do, its calls counted.
      if (error instanceof RunGaveUpError) {
        const outage = await deps.outages?.gaveUp(data.runId).catch(() => undefined);
        if (deps.outages && !outage) {
          // Another slice was read back in the second since: the API answers again, so this one is read again.
          log.warn({ requests: tally.requests }, "the run's outage ended as the slice stopped: it will be tried again");
          fetched('retry');
          await carryTally();
          throw error;
        }
        log.error({ requests: tally.requests }, 'the run stopped waiting for the API: the slice being read fails');
        fetched('failed');
        await enqueueFailedCommit(
          deps,
          data,
          token,
          job.attemptsMade + 1,
          tally,
          outage
            ? unavailableFailure(outage, deps.sync, 'stopped while read: ')
            : {
                error: error.message,
                errorCode: 'api_unavailable',
                requestId: null,
              },
        );
        return;
      }
      // Back to the queue for whichever worker runs next, without spending an attempt (four stops of a redeployed
      // worker failed a slice for good) and without pausing the queue: a pause begun while BullMQ closes the worker is
      // sat out in full, and a stop while the API was away took the whole shutdown deadline.
      const handBack = async (): Promise<void> => {
        if (!lockToken) return;
        await carryTally();
        if (
          await job.moveToWait(lockToken).then(
            () => true,
            () => false,
          )
        ) {
          log.info({ requests: tally.requests }, 'stopping: the slice goes back to the queue');
          fetched('retry');
          throw new WaitingError();
        }
      };
      // The process is stopping and cut the read short: not the slice's failure.
      if (deps.signal?.aborted) await handBack();
      // An answer of another shape than the spec's, asked twice by the client already, is not asked again per attempt.
      const permanent = (error instanceof ApiError && !error.retryable) || isBadEnvelope(error);
      // Stopping, a read that stopped waiting (a 429's, the budget's) or failed in a way worth another attempt (a 429
      // storm, an API away) goes back for the next worker, spending nothing and pausing no queue.
      if (!permanent && deps.stopping?.()) await handBack();
      // A wait the stop ended is never the slice's failure: when it could not be handed back (its lock lost), BullMQ's
      // stalled check gives it to the next worker.
      if (error instanceof StoppedWaitingError) throw new WaitingError();
      // Pauses the fetch queue and leaves the slice in it; a stop begun meanwhile hands it back instead, since the pause
      // of a worker being closed is sat out whole. `retry` counts the slice's retry once, whichever way it goes back.
      const pauseFetching = async (ms: number, count: { retry: boolean }): Promise<never> => {
        await carryTally();
        if (deps.stopping?.()) await handBack();
        await deps.queues.fetch.rateLimit(ms);
        if (deps.stopping?.()) await handBack();
        if (count.retry) fetched('retry');
        throw Worker.RateLimitError();
      };
      // The reader has dropped the chunks it wrote. The client waits out 429s itself; one that still comes through has
      // met many in a row: the slice goes back to the queue, which the host has paused, without spending an attempt.
      if (error instanceof RateLimitedError) {
        // A key answered nothing but 429s for sync.outageToleranceMinutes is an API away, as 5xx are: the run stops
        // waiting, where it had gone on for as long as the 429s did, its progress line at 0.
        const since = deps.rateLimitedSince?.();
        const tolerance = outageToleranceMs(deps.sync);
        if (deps.outages && tolerance !== undefined && since !== undefined && Date.now() - since >= tolerance) {
          const outage = await deps.outages
            .sighted(data.runId, data.sliceId, since, Date.now(), 'rate_limited')
            .catch(() => undefined);
          // One slice is enough: a 429 answers the key, not the request, so one slice left is not a request the API fails.
          if (outage && (outage.gaveUpAt !== undefined || outage.seenAt - outage.since >= tolerance)) {
            const gaveUp = (await deps.outages.giveUp(data.runId, Date.now()).catch(() => outage)) ?? outage;
            log.error(
              { err: describe(error) },
              'the API answered nothing but 429 for sync.outageToleranceMinutes: the slice fails',
            );
            fetched('failed');
            await enqueueFailedCommit(
              deps,
              data,
              token,
              job.attemptsMade + 1,
              tally,
              unavailableFailure(gaveUp, deps.sync, '', error),
            );
            return;
          }
        }
        log.warn({ retryAfterMs: error.retryAfterMs }, 'rate limited again and again: the slice waits in the queue');
        await pauseFetching(error.retryAfterMs, { retry: false });
      }
      // The API answers nothing but 5xx, or nothing (a deployment, a gateway restart): the slice goes back to the queue
      // without spending an attempt and the queue pauses, longer the longer it lasts, up to sync.outageToleranceMinutes.
      // Before, each slice in flight spent its four attempts in some 15-30 s and a restart of a minute failed the run.
      // The API is away when no call of this process (any fetch thread) was answered since this one began, or for the
      // whole tolerance, and more than one slice of the run found it so: one slice alone is a request the API fails,
      // which spends its attempts.
      const outages = deps.outages;
      const tolerance = outageToleranceMs(deps.sync);
      const callSince = error instanceof TransientError && error.apiUnavailable ? error.unansweredSince : undefined;
      const lastAnsweredAt = deps.lastAnsweredAt?.() ?? Number.NEGATIVE_INFINITY;
      const unansweredSince =
        callSince !== undefined && tolerance !== undefined
          ? processUnansweredSince(callSince, lastAnsweredAt, tolerance, Date.now())
          : undefined;
      if (outages && tolerance !== undefined && unansweredSince !== undefined) {
        const outage = await outages
          .sighted(data.runId, data.sliceId, unansweredSince, Date.now())
          .catch(() => undefined);
        const waitedMs = outage ? outage.seenAt - outage.since : 0;
        if (outage && outage.gaveUpAt === undefined && outage.slices > 1 && waitedMs < tolerance) {
          const pauseMs = outagePauseMs(waitedMs);
          log.warn(
            {
              err: describe(error),
              unavailableForS: Math.round(waitedMs / 1000),
              pauseMs,
              toleranceMin: deps.sync.outageToleranceMinutes,
            },
            'the API is not answering: the slice waits in the queue, without spending an attempt',
          );
          await pauseFetching(pauseMs, { retry: true });
        }
        if (outage && (outage.gaveUpAt !== undefined || (outage.slices > 1 && waitedMs >= tolerance))) {
          // Waited out as long as the run may: this slice and the run's others fail, without asking an API that is away.
          const gaveUp = (await outages.giveUp(data.runId, Date.now()).catch(() => outage)) ?? outage;
          log.error(
            { err: describe(error), unavailableForS: Math.round(waitedMs / 1000) },
            'the API did not come back within sync.outageToleranceMinutes: the slice fails',
          );
          fetched('failed');
          await enqueueFailedCommit(
            deps,
            data,
            token,
            job.attemptsMade + 1,
            tally,
            unavailableFailure(gaveUp, deps.sync, '', error as TransientError),
          );
          return;
        }
      }
      if (
        error instanceof BrandAccessDeniedError ||
        error instanceof AuthError ||
        error instanceof QuotaExceededError
      ) {
        // A 401, a 403 naming the key or a spent quota refuses the key itself; any other 403 is this endpoint's answer
        // (a plan without it), for this brand.
        const wholeKey = error instanceof QuotaExceededError || (error instanceof AuthError && refusesKey(error));
        const scope =
          error instanceof BrandAccessDeniedError
            ? { brandId: data.brandId }
            : wholeKey
              ? { brandId: null }
              : { brandId: data.brandId, stream: data.stream };
        await deps.access
          ?.remember({
            ...scope,
            errorCode: error.apiCode ?? error.code,
            message: error.message,
            requestId: error.requestId ?? null,
            at: new Date().toISOString(),
          })
          .catch((failure: Error) => log.warn({ err: failure.message }, 'could not remember the refusal'));
      }
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (!permanent && !lastAttempt) {
        log.warn({ err: describe(error), attempt: job.attemptsMade + 1 }, 'slice failed; it will be tried again');
        fetched('retry');
        await carryTally();
        throw error;
      }
      log.error({ err: describe(error) }, 'slice failed');
      fetched('failed');
      await enqueueFailedCommit(deps, data, token, job.attemptsMade + 1, tally, {
        error: redactSecrets(error instanceof Error ? error.message : String(error)),
        // An answer of another shape comes back the same: 'transient' told a user to wait for it.
        errorCode:
          error instanceof ApiError
            ? (error.apiCode ?? (isBadEnvelope(error) ? 'bad_answer' : error.code))
            : 'internal',
        requestId: error instanceof ApiError ? (error.requestId ?? null) : null,
      });
    }
  };
}

/** The fetch queue's pause while the API is away: as long as it has been away so far, between 5 s and a minute. */
export function outagePauseMs(waitedMs: number): number {
  return Math.min(60_000, Math.max(5_000, waitedMs));
}

/** Why a slice failed when the run stopped waiting for the API. */
function unavailableFailure(
  outage: Outage,
  sync: SyncConfig,
  lead: string,
  error?: ApiError,
): Pick<CommitFields, 'error' | 'errorCode' | 'requestId'> {
  const minutes = Math.max(1, Math.round((outage.seenAt - outage.since) / 60_000));
  const last = error ? ` (last: ${error.message})` : '';
  const what = outage.cause === 'rate_limited' ? 'answered this key nothing but 429 (rate limited)' : 'not answered';
  return {
    error: redactSecrets(
      `${lead}the API has ${what} since ${new Date(outage.since).toISOString()} (${minutes} min, sync.outageToleranceMinutes is ${sync.outageToleranceMinutes})${last}; the next run asks again`,
    ),
    errorCode: outage.cause === 'rate_limited' ? 'rate_limited' : 'api_unavailable',
    requestId: error?.requestId ?? null,
  };
}

type CommitFields = Omit<CommitJobData, 'runId' | 'brandId' | 'stream' | 'sliceId' | 'slice' | 'refetch'>;

async function sendToCommit(
  deps: FetchProcessorDeps,
  data: FetchJobData,
  fields: CommitFields,
  held?: HeldChunk,
): Promise<void> {
  const commit: CommitJobData = {
    runId: data.runId,
    brandId: data.brandId,
    stream: data.stream,
    sliceId: data.sliceId,
    slice: data.slice,
    refetch: data.refetch,
    ...fields,
  };
  try {
    await enqueueCommit(deps.queues, commit, held ? [held] : []);
  } catch (error) {
    // No commit job will read the chunks of a run gone from Redis.
    if (isRunGone(error))
      await deleteChunks(deps.redis, deps.prefix, fields.token, fields.chunks).catch(() => undefined);
    throw error;
  }
}

/** A commit of a slice that read nothing: the loader records why it failed and keeps any rows the slice held. */
function enqueueFailedCommit(
  deps: FetchProcessorDeps,
  data: FetchJobData,
  token: string,
  attempts: number,
  tally: Pick<CommitFields, 'requests' | 'retries' | 'rateLimited'>,
  why: Pick<CommitFields, 'error' | 'errorCode' | 'requestId'>,
): Promise<void> {
  return sendToCommit(deps, data, {
    token,
    chunks: 0,
    status: 'failed',
    records: 0,
    rows: 0,
    rejects: 0,
    totalRows: null,
    attempts,
    ...tally,
    ...why,
  });
}

function describe(error: unknown): Record<string, unknown> {
  if (error instanceof ApiError) return error.toJSON();
  return { message: redactSecrets(error instanceof Error ? error.message : String(error)) };
}

/**
 * Why a slice was recorded failed without a request: what the API refused, then the answer that said so. That answer
 * was to another slice, of another brand for a refused key: quoted alone, brand 2's slices read as brand 1's failure.
 */
function skippedFor(denial: Refusal): string {
  const refused =
    denial.brandId === null
      ? 'the key'
      : denial.stream === null
        ? `brand ${denial.brandId}`
        : `${denial.stream} of brand ${denial.brandId}`;
  return `skipped without a request: the API refused ${refused} at ${denial.at}; its answer then: ${denial.message}`;
}
