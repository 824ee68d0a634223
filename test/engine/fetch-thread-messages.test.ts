import { describe, expect, it } from 'vitest';
import {
  type ApiError,
  AuthError,
  QuotaExceededError,
  RateLimitedError,
  TransientError,
  ValidationError,
} from '../../src/api/index.js';
import { reviveError, serializeError } from '../../src/engine/fetch/fetch-thread-messages.js';
import { QuotaWaitError } from '../../src/api/rate/request-quota.js';

/** A fetch thread's error crosses to the main thread as a structured clone: it keeps what the fetch processor reads. */
function acrossThreads(error: unknown): Error {
  return reviveError(structuredClone(serializeError(error)));
}

const FIELDS = { endpoint: 'GET /x', status: 429, apiCode: 'daily_quota', requestId: 'req-1' };

describe('an error from a fetch thread', () => {
  it('keeps its class and every field its class is built from', () => {
    const unavailable = new TransientError('HTTP 503', { ...FIELDS, status: 503 }, 'server_error', 30_000);
    unavailable.apiUnavailable = true;
    unavailable.unansweredSince = 1_000;
    const errors: ApiError[] = [
      new QuotaExceededError('quota spent', FIELDS, 3_600_000),
      new QuotaExceededError('quota spent', FIELDS),
      new RateLimitedError('slow down', FIELDS, 2_000),
      unavailable,
      new AuthError('refused', { ...FIELDS, status: 401 }),
      new ValidationError('bad date', { ...FIELDS, status: 422, details: [{ field: 'from', message: 'not a date' }] }),
    ];
    for (const error of errors) {
      const revived = acrossThreads(error);
      expect(revived.constructor).toBe(error.constructor);
      expect((revived as ApiError).toJSON()).toEqual(error.toJSON());
    }
  });

  it("keeps a spent quota's wait, which decides when its key is tried again", () => {
    const revived = acrossThreads(new QuotaExceededError('quota spent', FIELDS, 3_600_000));
    expect((revived as QuotaExceededError).retryAfterMs).toBe(3_600_000);
  });

  it('keeps when a slice that found the request budget spent may go on', () => {
    const revived = acrossThreads(new QuotaWaitError(86_400_000));
    expect(revived).toBeInstanceOf(QuotaWaitError);
    expect((revived as QuotaWaitError).resumesAt).toBe(86_400_000);
  });
});
