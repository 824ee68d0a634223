import {
  type ApiError,
  AuthError,
  BrandAccessDeniedError,
  QuotaExceededError,
  RateLimitedError,
  TransientError,
  refusesKey,
  type KeyAnswers,
} from '../../api/index.js';
import type { Redis } from 'ioredis';
import { redactSecrets } from '../../log.js';
import { AccessMemo, type Refusal } from './access-memo.js';
import { OutageMemo, outageToleranceMs, processUnansweredSince, type Outage } from './outage-memo.js';
import type { SyncConfig } from '../../configuration.js';

/**
 * Whether a slice may start: the API answers (as far as the run knows), or it refused the key, the brand or the brand's
 * stream (AccessMemo), or the run gave up on it being away (OutageMemo). A slice that may not start fails without a request.
 */
export type StartVerdict =
  | { kind: 'answering' }
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'given-up'; outage: Outage };

/** What this process heard on its key at one moment (src/api/key-answers.ts), every fetch thread's calls together. */
export interface Hearing {
  now: number;
  /** When any call was last answered, a 429 included. */
  lastAnsweredAt: number;
  /** Since when every answer was a 429: the key is rate limited since then; undefined after any other answer. */
  rateLimitedSince: number | undefined;
}

/** A failing call's evidence that the API is away for the run: unanswered since `since`, or answered only 429s since. */
export interface Sighting {
  since: number;
  cause?: 'rate_limited';
}

/** What the run's outage means for a slice that met the API away: wait in the paused queue, or fail with the run. */
export type AwayVerdict = { kind: 'wait'; pauseMs: number; waitedMs: number } | { kind: 'give-up'; outage: Outage };

/** What the API refused, remembered for the slices it covers (AccessMemo), from the error that said so. */
export type RefusalOf = Omit<Refusal, 'stream'> & { stream?: string | null };

/**
 * The fetch job's one view of the API: what this process's calls heard (KeyAnswers), and per run in Redis its outage
 * (OutageMemo) and refusals (AccessMemo). Pure functions below judge a failure (test/engine/fetch-outcome.test.ts).
 */
export class Availability {
  private readonly outages: OutageMemo;
  private readonly access: AccessMemo;

  /** The availability of the API to the calls `heard` hears, for the key `apiKey`, through Redis under `prefix`. */
  constructor(
    redis: Redis,
    prefix: string,
    apiKey: string,
    private readonly heard: KeyAnswers,
    private readonly sync: Pick<SyncConfig, 'outageToleranceMinutes'>,
  ) {
    this.outages = new OutageMemo(redis, prefix);
    this.access = new AccessMemo(redis, prefix, apiKey);
  }

  /** How long the run waits an outage out; undefined when it does not (`sync.outageToleranceMinutes` 0). */
  get toleranceMs(): number | undefined {
    return outageToleranceMs(this.sync);
  }

  /** May this slice start? Both memos are asked at once: each is a round trip that every slice pays before its first request. */
  async mayStart(runId: string, brandId: number, stream: string): Promise<StartVerdict> {
    const [refusal, outage] = await Promise.all([
      this.access.refusalFor(brandId, stream),
      this.outages.gaveUp(runId).catch(() => undefined),
    ]);
    if (refusal) return { kind: 'refused', refusal };
    if (outage) return { kind: 'given-up', outage };
    return { kind: 'answering' };
  }

  /** What this process heard on its key, as of `now`: read once per outcome, so `classify` stays pure. */
  hearing(now = Date.now()): Hearing {
    return { now, lastAnsweredAt: this.heard.lastAnsweredAt, rateLimitedSince: this.heard.rateLimitedSince(now) };
  }

  /**
   * Records a slice's sighting of the API away and answers the run's outage after it; with no sighting, the outage the
   * run gave up on, if any. Undefined when Redis does not answer: the slice is then judged as if the API failed it alone.
   */
  async runOutage(
    runId: string,
    sliceId: string,
    sighting: Sighting | undefined,
    now: number,
  ): Promise<Outage | undefined> {
    if (!sighting) return this.outages.gaveUp(runId).catch(() => undefined);
    return this.outages.sighted(runId, sliceId, sighting.since, now, sighting.cause).catch(() => undefined);
  }

  /** The run stops waiting for the API: the outage it gave up on, or `outage` when it ended meanwhile or Redis failed. */
  async giveUp(runId: string, outage: Outage): Promise<Outage> {
    return (await this.outages.giveUp(runId, Date.now()).catch(() => outage)) ?? outage;
  }

  /** A slice of the run was read back: the API answers, and whatever outage the run met is over. */
  answered(runId: string): Promise<void> {
    return this.outages.over(runId).catch(() => undefined);
  }

  /** The API refused the key, a brand or a brand's stream: every process's slices it covers fail without a request. */
  remember(refusal: RefusalOf): Promise<void> {
    return this.access.remember(refusal);
  }

  /**
   * The outage that stops a read of the run in flight: one the run gave up on, unless this process was served since it
   * began, as its answered read then ends it for the run (`answered`). test/engine/outage-memo.int.test.ts.
   */
  async stopsRead(runId: string): Promise<Outage | undefined> {
    const outage = await this.outages.gaveUp(runId);
    return outage && this.heard.lastServedAt <= outage.since ? outage : undefined;
  }
}

/**
 * The sighting a failure is, if any: a key answered only 429s for the whole tolerance is away, as an API answering
 * only 5xx or nothing is; per `processUnansweredSince`, another thread answered lately means this request failed alone.
 */
export function sightingOf(error: unknown, heard: Hearing, toleranceMs: number | undefined): Sighting | undefined {
  if (toleranceMs === undefined) return undefined;
  if (error instanceof RateLimitedError) {
    const since = heard.rateLimitedSince;
    return since !== undefined && heard.now - since >= toleranceMs ? { since, cause: 'rate_limited' } : undefined;
  }
  if (!(error instanceof TransientError) || !error.apiUnavailable || error.unansweredSince === undefined)
    return undefined;
  const since = processUnansweredSince(error.unansweredSince, heard.lastAnsweredAt, toleranceMs, heard.now);
  return since === undefined ? undefined : { since };
}

/**
 * The run's outage for the slice, undefined if none: given up, every slice fails; a 429 answers the key, so one slice
 * may give up; an API away needs a second slice, paused till the tolerance (test/engine/fetch-outcome.test.ts).
 */
export function awayVerdict(
  sighting: Sighting,
  outage: Outage | undefined,
  toleranceMs: number,
): AwayVerdict | undefined {
  if (!outage) return undefined;
  const waitedMs = outage.seenAt - outage.since;
  if (sighting.cause === 'rate_limited')
    return outage.gaveUpAt !== undefined || waitedMs >= toleranceMs ? { kind: 'give-up', outage } : undefined;
  if (outage.gaveUpAt !== undefined) return { kind: 'give-up', outage };
  if (outage.slices <= 1) return undefined;
  // The fetch queue pauses as long as the API has been away so far, between 5 s and a minute.
  return waitedMs < toleranceMs
    ? { kind: 'wait', pauseMs: Math.min(60_000, Math.max(5_000, waitedMs)), waitedMs }
    : { kind: 'give-up', outage };
}

/**
 * What a 401, a 403 or a spent quota refused, for the slices it covers. A 401, a 403 naming the key or a spent quota
 * refuses the key itself; any other 403 is this endpoint's answer (a plan without it), for this brand.
 */
export function refusalOf(error: unknown, brandId: number, stream: string, now: number): RefusalOf | undefined {
  if (!(error instanceof BrandAccessDeniedError || error instanceof AuthError || error instanceof QuotaExceededError))
    return undefined;
  const wholeKey = error instanceof QuotaExceededError || (error instanceof AuthError && refusesKey(error));
  const scope =
    error instanceof BrandAccessDeniedError ? { brandId } : wholeKey ? { brandId: null } : { brandId, stream };
  return { ...scope, ...refusalAnswer(error, now) };
}

/** The API's answer that refused, as a refusal remembers it. */
export function refusalAnswer(error: ApiError, now: number): Omit<Refusal, 'brandId' | 'stream'> {
  return {
    errorCode: error.apiCode ?? error.code,
    message: error.message,
    requestId: error.requestId ?? null,
    at: new Date(now).toISOString(),
  };
}

/** Why a slice failed, as its commit records it. */
export interface Failure {
  error: string;
  errorCode: string;
  requestId: string | null;
}

/** Why a slice failed when the run stopped waiting for the API: `lead` says how the slice met it. */
export function unavailableFailure(
  outage: Outage,
  sync: Pick<SyncConfig, 'outageToleranceMinutes'>,
  lead: string,
  error?: ApiError,
): Failure {
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

/**
 * Why a slice was recorded failed without a request: what the API refused, then the answer that said so. That answer
 * was to another slice, of another brand for a refused key: quoted alone, brand 2's slices read as brand 1's failure.
 */
function refusedFailure(refusal: Refusal): Failure {
  const refused =
    refusal.brandId === null
      ? 'the key'
      : refusal.stream === null
        ? `brand ${refusal.brandId}`
        : `${refusal.stream} of brand ${refusal.brandId}`;
  return {
    error: `skipped without a request: the API refused ${refused} at ${refusal.at}; its answer then: ${refusal.message}`,
    errorCode: refusal.errorCode,
    requestId: refusal.requestId,
  };
}

/** Why a slice that may not start fails. */
export function startFailure(
  verdict: Exclude<StartVerdict, { kind: 'answering' }>,
  sync: Pick<SyncConfig, 'outageToleranceMinutes'>,
): Failure {
  return verdict.kind === 'refused'
    ? refusedFailure(verdict.refusal)
    : unavailableFailure(verdict.outage, sync, 'skipped without a request: ');
}
