import { ApiError, QuotaExceededError, RateLimitedError, StoppedWaitingError, isBadEnvelope } from '../../api/index.js';
import { QuotaWaitError } from '../../api/rate/request-quota.js';
import { redactSecrets } from '../../log.js';
import {
  awayVerdict,
  refusalOf,
  sightingOf,
  unavailableFailure,
  type Failure,
  type Hearing,
  type RefusalOf,
  type Sighting,
} from './availability.js';
import type { Outage } from './outage-memo.js';
import { RunCancelledError, RunGaveUpError } from '../run/run-cancel-watch.js';
import { isRunGone } from '../run/run-gone.js';
import type { SyncConfig } from '../../configuration.js';
import { errorMessage } from '../../format.js';

/** What a fetch job knows when its read has ended, read once before the outcome is classified. */
export interface FetchState {
  /** The job's attempt (1 for the first) and how many it may make. */
  attempt: number;
  attempts: number;
  /** Whether the process is stopping (its jobs draining), and whether its stop already aborted the read. */
  stopping: boolean;
  aborted: boolean;
  /** Whether the slice can go back to the queue: the job's lock is held and no hand-back failed yet. */
  canHandBack: boolean;
  /** The request budget's clock and the end of its window, when the key has a budget (docs/quota.md). */
  quota: { now: number; windowEnd: number } | undefined;
  /** The process's hearing of its key, and how long the run waits an outage out (undefined: it does not). */
  heard: Hearing;
  toleranceMs: number | undefined;
  sync: Pick<SyncConfig, 'outageToleranceMinutes'>;
  /** The run's outage, once read (`read-run`): absent until then. */
  run?: { outage: Outage | undefined };
}

/** The outcome of a read: what it returned, or what it threw. */
export type FetchOutcome = { ok: true } | { ok: false; error: unknown };

/** What the fetch job does with an outcome: each kind is carried out in one place (fetch-processor.ts's `carryOut`). */
export type FetchDecision =
  | { kind: 'commit' }
  /** Its run vanished from Redis: rethrown to the processor's wrapper, which drops the job (run-gone.ts). */
  | { kind: 'run-gone' }
  /** Waits, delayed and spending no attempt, for the request budget's next window; `spent` when the API said so. */
  | { kind: 'park'; until: number; spent: boolean }
  /** `bvsync cancel` dropped the run: nothing is loaded or recorded, its calls still counted. */
  | { kind: 'cancelled' }
  /** The run's outage record decides: read it (after recording `sighting`), then classify again. */
  | { kind: 'read-run'; sighting: Sighting | undefined }
  /** Back to the queue for whichever worker runs next, spending no attempt and pausing no queue. */
  | { kind: 'hand-back' }
  /** A wait the stop ended: never the slice's failure; BullMQ's stalled check hands it on. */
  | { kind: 'stopped-waiting' }
  /** Pauses the fetch queue and leaves the slice in it; `countRetry` when the slice's retry is counted here. */
  | { kind: 'pause'; ms: number; countRetry: boolean; cause: 'rate_limited' | 'away'; waitedMs?: number }
  /** The run stops waiting for an API that is away: the slice fails with it. */
  | { kind: 'give-up'; outage: Outage }
  /** BullMQ tries the slice again, an attempt spent. */
  | { kind: 'retry'; why: 'attempt' | 'outage-ended'; refusal?: RefusalOf | undefined }
  /** The slice is recorded failed, the run goes on. */
  | { kind: 'fail'; failure: Failure; why: 'failed' | 'stopped-by-give-up'; refusal?: RefusalOf | undefined };

/**
 * What a read's outcome means for the slice: a pure function, each branch proved in test/engine/fetch-outcome.test.ts.
 * `read-run` asks for the run's outage; classified again with `run` set, the same outcome goes on from there.
 */
export function classify(
  outcome: FetchOutcome,
  state: FetchState,
  slice: { brandId: number; stream: string },
): FetchDecision {
  if (outcome.ok) return { kind: 'commit' };
  const { error } = outcome;
  if (isRunGone(error)) return { kind: 'run-gone' };
  // The window's budget is spent (the ledger said so before a request, or a 429 of hours said so after one). docs/quota.md.
  if (state.quota && error instanceof QuotaWaitError) return { kind: 'park', until: error.resumesAt, spent: false };
  if (state.quota && error instanceof QuotaExceededError) {
    const until = error.retryAfterMs !== undefined ? state.quota.now + error.retryAfterMs : state.quota.windowEnd;
    return { kind: 'park', until, spent: true };
  }
  if (error instanceof RunCancelledError) return { kind: 'cancelled' };
  // The run gave up on the API while the slice was read: it fails as the run's queued slices do, unless another slice
  // was read back since, which means the API answers again.
  if (error instanceof RunGaveUpError) {
    if (!state.run) return { kind: 'read-run', sighting: undefined };
    const { outage } = state.run;
    if (!outage) return { kind: 'retry', why: 'outage-ended' };
    return {
      kind: 'fail',
      why: 'stopped-by-give-up',
      failure: unavailableFailure(outage, state.sync, 'stopped while read: '),
    };
  }
  // An answer of another shape than the spec's, asked twice by the client already, is not asked again per attempt.
  const permanent = (error instanceof ApiError && !error.retryable) || isBadEnvelope(error);
  // A read the stop cut short, or one worth another attempt while stopping, is not the slice's failure.
  if (state.canHandBack && (state.aborted || (!permanent && state.stopping))) return { kind: 'hand-back' };
  if (error instanceof StoppedWaitingError) return { kind: 'stopped-waiting' };
  const sighting = sightingOf(error, state.heard, state.toleranceMs);
  if (sighting && !state.run) return { kind: 'read-run', sighting };
  const away =
    sighting && state.toleranceMs !== undefined && awayVerdict(sighting, state.run?.outage, state.toleranceMs);
  if (away && away.kind === 'give-up') return { kind: 'give-up', outage: away.outage };
  // The client waits out 429s itself; one that still comes through has met many in a row.
  if (error instanceof RateLimitedError)
    return { kind: 'pause', ms: error.retryAfterMs, countRetry: false, cause: 'rate_limited' };
  if (away) return { kind: 'pause', ms: away.pauseMs, countRetry: true, cause: 'away', waitedMs: away.waitedMs };
  const refusal = refusalOf(error, slice.brandId, slice.stream, state.heard.now);
  if (!permanent && state.attempt < state.attempts) return { kind: 'retry', why: 'attempt', refusal };
  return { kind: 'fail', why: 'failed', failure: failureOf(error), refusal };
}

/** Why a slice failed on an error: an answer of another shape comes back the same, so it is `bad_answer`, not `transient`. */
function failureOf(error: unknown): Failure {
  return {
    error: redactSecrets(errorMessage(error)),
    errorCode:
      error instanceof ApiError ? (error.apiCode ?? (isBadEnvelope(error) ? 'bad_answer' : error.code)) : 'internal',
    requestId: error instanceof ApiError ? (error.requestId ?? null) : null,
  };
}
