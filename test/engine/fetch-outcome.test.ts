import { describe, expect, it } from 'vitest';
import {
  AuthError,
  BrandAccessDeniedError,
  QuotaExceededError,
  RateLimitedError,
  StoppedWaitingError,
  TransientError,
  ValidationError,
} from '../../src/api/index.js';
import { QuotaWaitError } from '../../src/api/rate/request-quota.js';
import { classify, type FetchState } from '../../src/engine/fetch/fetch-outcome.js';
import type { Outage } from '../../src/engine/fetch/outage-memo.js';
import { RunCancelledError, RunGaveUpError } from '../../src/engine/run/run-cancel-watch.js';
import { RunGoneError } from '../../src/engine/run/run-gone.js';

/**
 * What a fetch job does with the outcome of its read, decided by one pure function: every case the job tells apart,
 * from the read that came back to the run that gave up on an API that is away.
 */

const MINUTE = 60_000;
const NOW = 100 * MINUTE;
const TOLERANCE = 10 * MINUTE;
const SLICE = { brandId: 2, stream: 'conversations' };
const AT = { endpoint: 'GET /x' };

/** The first of four attempts, the process not stopping, nothing heard, a run that waits outages out 10 minutes. */
function state(overrides: Partial<FetchState> = {}): FetchState {
  return {
    attempt: 1,
    attempts: 4,
    stopping: false,
    aborted: false,
    canHandBack: true,
    quota: undefined,
    heard: { now: NOW, lastAnsweredAt: Number.NEGATIVE_INFINITY, rateLimitedSince: undefined },
    toleranceMs: TOLERANCE,
    sync: { outageToleranceMinutes: 10 },
    ...overrides,
  };
}

const failed = (error: unknown, at: Partial<FetchState> = {}) => classify({ ok: false, error }, state(at), SLICE);

/** A call that met the API away, unanswered since `since`. */
function away(since: number): TransientError {
  const error = new TransientError('no answer from the API', AT, 'network');
  error.apiUnavailable = true;
  error.unansweredSince = since;
  return error;
}

function outage(fields: Partial<Outage> = {}): Outage {
  return { since: NOW - 2 * MINUTE, seenAt: NOW, slices: 2, gaveUpAt: undefined, cause: undefined, ...fields };
}

describe('a read that came back', () => {
  it('is committed, complete or not', () => {
    expect(classify({ ok: true }, state(), SLICE)).toEqual({ kind: 'commit' });
  });
});

describe('a read whose run is gone, cancelled or parked', () => {
  it('is dropped when its run is gone from Redis', () => {
    expect(failed(new RunGoneError('r'))).toEqual({ kind: 'run-gone' });
  });

  it('stops without a commit when the run was cancelled', () => {
    expect(failed(new RunCancelledError('cancelled'))).toEqual({ kind: 'cancelled' });
  });

  it("waits for the request budget's next window when the ledger says it is spent", () => {
    const quota = { now: NOW, windowEnd: NOW + 60 * MINUTE };
    expect(failed(new QuotaWaitError(NOW + 5 * MINUTE), { quota })).toEqual({
      kind: 'park',
      until: NOW + 5 * MINUTE,
      spent: false,
    });
  });

  it('waits for the Retry-After of a 429 that says the quota is spent, else for the end of the window', () => {
    const quota = { now: NOW, windowEnd: NOW + 60 * MINUTE };
    expect(failed(new QuotaExceededError('quota', AT, 30 * MINUTE), { quota })).toEqual({
      kind: 'park',
      until: NOW + 30 * MINUTE,
      spent: true,
    });
    expect(failed(new QuotaExceededError('quota', AT), { quota })).toEqual({
      kind: 'park',
      until: NOW + 60 * MINUTE,
      spent: true,
    });
  });
});

describe('a read its run stopped, having given up on the API', () => {
  const stopped = new RunGaveUpError('run r stopped waiting');

  it('first reads what the run gave up on', () => {
    expect(failed(stopped)).toEqual({ kind: 'read-run', sighting: undefined });
  });

  it('fails as api_unavailable, or rate_limited, when the run still gives up', () => {
    expect(failed(stopped, { run: { outage: outage({ gaveUpAt: NOW }) } })).toMatchObject({
      kind: 'fail',
      why: 'stopped-by-give-up',
      failure: {
        errorCode: 'api_unavailable',
        error: expect.stringMatching(/^stopped while read: the API has not answered since /),
      },
    });
    expect(failed(stopped, { run: { outage: outage({ gaveUpAt: NOW, cause: 'rate_limited' }) } })).toMatchObject({
      kind: 'fail',
      failure: { errorCode: 'rate_limited' },
    });
  });

  it('is tried again when another slice was read back since: the outage is over', () => {
    expect(failed(stopped, { run: { outage: undefined } })).toEqual({ kind: 'retry', why: 'outage-ended' });
  });
});

describe('a read of a process that stops', () => {
  it('goes back to the queue when the stop cut it short, whatever the error', () => {
    expect(failed(new ValidationError('bad', AT), { aborted: true })).toEqual({ kind: 'hand-back' });
  });

  it('goes back to the queue on a failure worth another attempt while stopping, not on a permanent one', () => {
    expect(failed(new TransientError('503', AT, 'server_error'), { stopping: true })).toEqual({ kind: 'hand-back' });
    expect(failed(new ValidationError('bad', AT), { stopping: true })).toMatchObject({ kind: 'fail' });
  });

  it('goes on as any read when it could not be handed back', () => {
    expect(failed(new TransientError('503', AT, 'server_error'), { stopping: true, canHandBack: false })).toMatchObject(
      { kind: 'retry', why: 'attempt' },
    );
  });

  it('leaves a wait the stop ended to BullMQ, never failed', () => {
    expect(failed(new StoppedWaitingError('stopped waiting'), { canHandBack: false })).toEqual({
      kind: 'stopped-waiting',
    });
  });
});

describe('a read rate limited again and again', () => {
  const limited = new RateLimitedError('HTTP 429', AT, 30_000);

  it("pauses the queue for the 429's wait, its retry not counted here", () => {
    expect(failed(limited)).toEqual({ kind: 'pause', ms: 30_000, countRetry: false, cause: 'rate_limited' });
  });

  it('pauses while the key has had nothing but 429s for less than the tolerance, or outages are not waited out', () => {
    const heard = { now: NOW, lastAnsweredAt: NOW, rateLimitedSince: NOW - TOLERANCE + 1 };
    expect(failed(limited, { heard })).toMatchObject({ kind: 'pause', ms: 30_000 });
    const longer = { ...heard, rateLimitedSince: NOW - 60 * MINUTE };
    expect(failed(limited, { heard: longer, toleranceMs: undefined })).toMatchObject({ kind: 'pause' });
  });

  it('is a sighting of the API away once the key had nothing but 429s for the tolerance; one slice is enough', () => {
    const heard = { now: NOW, lastAnsweredAt: NOW, rateLimitedSince: NOW - TOLERANCE };
    expect(failed(limited, { heard })).toEqual({
      kind: 'read-run',
      sighting: { since: NOW - TOLERANCE, cause: 'rate_limited' },
    });
    const run = { outage: outage({ since: NOW - TOLERANCE, slices: 1, cause: 'rate_limited' }) };
    expect(failed(limited, { heard, run })).toEqual({ kind: 'give-up', outage: run.outage });
  });

  it('pauses when the run has not met the 429s as long (its record began later), until it gave up', () => {
    const heard = { now: NOW, lastAnsweredAt: NOW, rateLimitedSince: NOW - TOLERANCE };
    const recent = { outage: outage({ since: NOW - MINUTE, cause: 'rate_limited' }) };
    expect(failed(limited, { heard, run: recent })).toMatchObject({ kind: 'pause', cause: 'rate_limited' });
    const gaveUp = { outage: outage({ since: NOW - MINUTE, gaveUpAt: NOW }) };
    expect(failed(limited, { heard, run: gaveUp })).toMatchObject({ kind: 'give-up' });
    // Redis did not answer: nothing is known of the run's outage.
    expect(failed(limited, { heard, run: { outage: undefined } })).toMatchObject({ kind: 'pause' });
  });
});

describe('a read that met the API away', () => {
  it('is a sighting since the call was unanswered, when no call of the process was answered since', () => {
    expect(failed(away(NOW - 2 * MINUTE))).toEqual({ kind: 'read-run', sighting: { since: NOW - 2 * MINUTE } });
  });

  it("is this request's failure, spending an attempt, when another call was answered within the tolerance", () => {
    const heard = { now: NOW, lastAnsweredAt: NOW - MINUTE, rateLimitedSince: undefined };
    expect(failed(away(NOW - 2 * MINUTE), { heard })).toMatchObject({ kind: 'retry', why: 'attempt' });
  });

  it('is a sighting since the last answer when that came after the call began, the whole tolerance ago', () => {
    const heard = { now: NOW, lastAnsweredAt: NOW - TOLERANCE - MINUTE, rateLimitedSince: undefined };
    expect(failed(away(NOW - TOLERANCE - 2 * MINUTE), { heard })).toEqual({
      kind: 'read-run',
      sighting: { since: NOW - TOLERANCE - MINUTE + 1 },
    });
  });

  it('is no sighting when outages are not waited out: it spends attempts', () => {
    expect(failed(away(NOW - 2 * MINUTE), { toleranceMs: undefined })).toMatchObject({ kind: 'retry' });
  });

  it('pauses the queue as long as the API has been away, 5 s to a minute, while more than one slice met it', () => {
    const wait = (waitedMs: number) =>
      failed(away(NOW - waitedMs), { run: { outage: outage({ since: NOW - waitedMs, seenAt: NOW }) } });
    expect(wait(2 * MINUTE)).toEqual({
      kind: 'pause',
      ms: 60_000,
      countRetry: true,
      cause: 'away',
      waitedMs: 2 * MINUTE,
    });
    expect(wait(1_000)).toMatchObject({ kind: 'pause', ms: 5_000 });
    expect(wait(20_000)).toMatchObject({ kind: 'pause', ms: 20_000 });
  });

  it('gives up once more than one slice met it for the tolerance, or the run already gave up', () => {
    const long = outage({ since: NOW - TOLERANCE, seenAt: NOW });
    expect(failed(away(NOW - TOLERANCE), { run: { outage: long } })).toEqual({ kind: 'give-up', outage: long });
    const given = outage({ slices: 1, gaveUpAt: NOW - MINUTE });
    expect(failed(away(NOW - 2 * MINUTE), { run: { outage: given } })).toEqual({ kind: 'give-up', outage: given });
  });

  it('spends an attempt when it is the only slice that met it, or Redis did not answer', () => {
    const alone = outage({ since: NOW - TOLERANCE, slices: 1 });
    expect(failed(away(NOW - TOLERANCE), { run: { outage: alone } })).toMatchObject({ kind: 'retry', why: 'attempt' });
    expect(failed(away(NOW - TOLERANCE), { run: { outage: undefined } })).toMatchObject({ kind: 'retry' });
  });
});

describe('a read the API refused', () => {
  it('fails the slice and remembers the brand on brand_access_denied', () => {
    const error = new BrandAccessDeniedError('HTTP 403', { ...AT, status: 403, apiCode: 'brand_access_denied' });
    expect(failed(error)).toMatchObject({
      kind: 'fail',
      failure: { errorCode: 'brand_access_denied' },
      refusal: { brandId: 2, errorCode: 'brand_access_denied', at: new Date(NOW).toISOString() },
    });
  });

  it('remembers the key on a 401, a 403 naming the key, or a spent quota with no budget to wait for', () => {
    expect(failed(new AuthError('HTTP 401', { ...AT, status: 401 }))).toMatchObject({ refusal: { brandId: null } });
    const named = new AuthError('HTTP 403', { ...AT, status: 403, apiCode: 'invalid_api_key' });
    expect(failed(named)).toMatchObject({ refusal: { brandId: null } });
    expect(failed(new QuotaExceededError('quota', AT))).toMatchObject({ kind: 'fail', refusal: { brandId: null } });
  });

  it("remembers only the brand's stream on another 403: one endpoint the plan lacks", () => {
    const error = new AuthError('HTTP 403', { ...AT, status: 403, apiCode: 'forbidden' });
    expect(failed(error)).toMatchObject({ refusal: { brandId: 2, stream: 'conversations' } });
  });
});

describe('a read that failed otherwise', () => {
  it('is tried again on a transient failure until the last attempt, then fails with its code', () => {
    const error = new TransientError('HTTP 503', { ...AT, status: 503 }, 'server_error');
    expect(failed(error)).toEqual({ kind: 'retry', why: 'attempt', refusal: undefined });
    expect(failed(error, { attempt: 4 })).toMatchObject({
      kind: 'fail',
      why: 'failed',
      failure: { errorCode: 'transient', error: 'HTTP 503' },
    });
  });

  it("fails at once on an answer whose envelope is not the spec's, as bad_answer", () => {
    const error = new TransientError('envelope', AT, 'bad_envelope');
    expect(failed(error)).toMatchObject({ kind: 'fail', failure: { errorCode: 'bad_answer' } });
  });

  it('fails at once on a permanent error, and an error not of the API is internal on the last attempt', () => {
    expect(failed(new ValidationError('bad record', AT))).toMatchObject({ kind: 'fail' });
    expect(failed(new Error('boom'))).toMatchObject({ kind: 'retry' });
    expect(failed(new Error('boom'), { attempt: 4 })).toMatchObject({
      kind: 'fail',
      failure: { errorCode: 'internal', error: 'boom', requestId: null },
    });
  });

  it('is tried again on a budget wait when the key has no budget', () => {
    expect(failed(new QuotaWaitError(NOW))).toMatchObject({ kind: 'retry' });
  });
});
