import { describe, expect, it } from 'vitest';
import {
  AuthError,
  BrandAccessDeniedError,
  NotFoundError,
  PermanentError,
  QuotaExceededError,
  RateLimitedError,
  TransientError,
  ValidationError,
  classifyNetworkError,
  classifyResponse,
  refusesKey,
} from '../../src/api/errors.js';

const endpoint = 'GET /customer/v1/brands/7/conversations';
const envelope = (code: string, extra: Record<string, unknown> = {}) => ({
  error: { code, message: `m-${code}`, request_id: '0b7e6c1a-1111-4222-8333-444455556666', ...extra },
});

describe('classifyResponse', () => {
  it('429 is rate limited with the parsed Retry-After', () => {
    const error = classifyResponse({
      status: 429,
      headers: { 'retry-after': '7' },
      body: envelope('rate_limited'),
      endpoint,
    });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7000);
    expect(error.retryable).toBe(true);
    expect(error.code).toBe('rate_limited');
  });

  it('429 whose code names a quota or a period is a spent quota, not retried: a wait of seconds does not cure it', () => {
    for (const code of [
      'monthly_quota_exceeded',
      'insufficient_quota',
      'DailyLimitExceeded',
      'billing_hard_limit_reached',
    ]) {
      for (const headers of [{}, { 'retry-after': '3600' }]) {
        const error = classifyResponse({ status: 429, headers, body: envelope(code), endpoint });
        expect(error, code).toBeInstanceOf(QuotaExceededError);
        expect(error.retryable).toBe(false);
        expect(error.apiCode).toBe(code);
      }
    }
    // A Retry-After of a minute at most says the wait cures it; and a code is read word by word ("ai" is no "daily").
    const hourly = classifyResponse({
      status: 429,
      headers: { 'retry-after': '30' },
      body: envelope('hourly_rate_limit'),
      endpoint,
    });
    expect((hourly as RateLimitedError).retryAfterMs).toBe(30_000);
    for (const code of ['too_many_requests', 'throttled_ai_requests', 'rate_limited_ai_engine', 'explained_limit']) {
      expect(classifyResponse({ status: 429, headers: {}, body: envelope(code), endpoint }), code).toBeInstanceOf(
        RateLimitedError,
      );
    }
  });

  it('429 whose Retry-After is an hour or more is a spent quota, with its whole wait, whatever its code', () => {
    for (const code of ['rate_limited', 'daily_quota_exceeded']) {
      const error = classifyResponse({
        status: 429,
        headers: { 'retry-after': '64800' },
        body: envelope(code),
        endpoint,
      });
      expect(error, code).toBeInstanceOf(QuotaExceededError);
      expect((error as QuotaExceededError).retryAfterMs).toBe(64_800_000);
    }
    const minutes = classifyResponse({
      status: 429,
      headers: { 'retry-after': '3599' },
      body: envelope('rate_limited'),
      endpoint,
    });
    expect(minutes).toBeInstanceOf(RateLimitedError);
  });

  it('429 with an HTTP date, and without any header', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    const dated = classifyResponse(
      { status: 429, headers: { 'retry-after': 'Sat, 21 Nov 2026 12:00:02 GMT' }, body: undefined, endpoint },
      now,
    );
    expect((dated as RateLimitedError).retryAfterMs).toBe(2000);
    const bare = classifyResponse({ status: 429, headers: {}, body: undefined, endpoint });
    expect((bare as RateLimitedError).retryAfterMs).toBe(1000);
  });

  it('5xx and 408 are transient', () => {
    for (const status of [500, 502, 503, 504, 408]) {
      const error = classifyResponse({ status, headers: {}, body: undefined, endpoint });
      expect(error).toBeInstanceOf(TransientError);
      expect(error.retryable).toBe(true);
    }
  });

  it('400 is a validation error carrying code, details and request id', () => {
    const error = classifyResponse({
      status: 400,
      headers: {},
      body: envelope('validation_error', { details: [{ field: 'page_size', message: 'must be at most 100' }] }),
      endpoint,
    });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.retryable).toBe(false);
    expect(error.code).toBe('validation_error');
    expect(error.apiCode).toBe('validation_error');
    expect(error.details).toEqual([{ field: 'page_size', message: 'must be at most 100' }]);
    expect(error.requestId).toBe('0b7e6c1a-1111-4222-8333-444455556666');
    expect(error.message).toContain('page_size: must be at most 100');
    expect(error.endpoint).toBe(endpoint);
  });

  it('401 is an auth error; 403 brand_access_denied is its own class; other 403s are auth errors', () => {
    expect(classifyResponse({ status: 401, headers: {}, body: envelope('unauthorized'), endpoint })).toBeInstanceOf(
      AuthError,
    );
    const denied = classifyResponse({ status: 403, headers: {}, body: envelope('brand_access_denied'), endpoint });
    expect(denied).toBeInstanceOf(BrandAccessDeniedError);
    expect(denied.code).toBe('brand_access_denied');
    expect(denied.retryable).toBe(false);
    expect(classifyResponse({ status: 403, headers: {}, body: envelope('forbidden'), endpoint })).toBeInstanceOf(
      AuthError,
    );
  });

  it('a refusal is of the key when it is a 401 or a 403 naming the key; another 403 is of one endpoint', () => {
    const refusal = (status: number, code?: string) =>
      classifyResponse({ status, headers: {}, body: code ? envelope(code) : {}, endpoint }) as AuthError;
    for (const [status, code] of [
      [401, 'unauthorized'],
      [401, 'forbidden'],
      [401, undefined],
      [403, 'invalid_api_key'],
      [403, 'AuthenticationFailed'],
      [403, 'invalid_token'],
      [403, 'unauthenticated'],
    ] as const) {
      expect(refusesKey(refusal(status, code)), `${status} ${code}`).toBe(true);
    }
    for (const code of ['forbidden', 'insufficient_scope', 'feature_not_in_plan', 'endpoint_not_enabled', undefined]) {
      expect(refusesKey(refusal(403, code)), `403 ${code}`).toBe(false);
    }
  });

  it('brand_access_denied is a refused brand whatever its status, as the spec names the code and not the status', () => {
    for (const status of [401, 403, 404, 400]) {
      const denied = classifyResponse({ status, headers: {}, body: envelope('brand_access_denied'), endpoint });
      expect(denied, `HTTP ${status}`).toBeInstanceOf(BrandAccessDeniedError);
      expect(denied.status).toBe(status);
    }
    // Without the code, the status decides as before.
    expect(classifyResponse({ status: 401, headers: {}, body: undefined, endpoint })).toBeInstanceOf(AuthError);
    expect(classifyResponse({ status: 404, headers: {}, body: undefined, endpoint })).toBeInstanceOf(NotFoundError);
  });

  it('a 403 with a Retry-After, or any 4xx whose code names a rate limit, is throttling: rate limited, not a refused key', () => {
    const gateway = classifyResponse({
      status: 403,
      headers: { 'retry-after': '4' },
      body: { message: 'Forbidden' },
      endpoint,
    });
    expect(gateway).toBeInstanceOf(RateLimitedError);
    expect((gateway as RateLimitedError).retryAfterMs).toBe(4000);
    const throttles = [
      [403, 'RateLimitExceeded'],
      [400, 'rate_limit_exceeded'],
      [403, 'Throttling'],
      [401, 'too-many-requests'],
      [403, 'rate_limit_error'],
      [403, 'ThrottlingException'],
      [400, 'TooManyRequestsException'],
      [403, 'request_throttled'],
      // A 5xx that names a rate limit is one too: asked again call by call, it cost 23 of 59 requests in a mock's run.
      [503, 'rate_limited'],
      [500, 'TooManyRequests'],
    ] as const;
    for (const [status, code] of throttles) {
      const error = classifyResponse({ status, headers: {}, body: envelope(code), endpoint });
      expect(error, `${status} ${code}`).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterMs).toBe(1000);
      expect(error.apiCode).toBe(code);
    }
    // A generic code whose message names a rate limit, its window said spent (GitHub's way): before, a refused endpoint.
    const spent = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' };
    const github = { error: { code: 'forbidden', message: 'API rate limit exceeded' } };
    expect(classifyResponse({ status: 403, headers: spent, body: github, endpoint })).toBeInstanceOf(RateLimitedError);
    expect(classifyResponse({ status: 403, headers: { 'retry-after': '60' }, body: github, endpoint })).toBeInstanceOf(
      RateLimitedError,
    );
    // Without the headers, or with a message naming a period, the code says what it is.
    expect(classifyResponse({ status: 403, headers: {}, body: github, endpoint })).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({
        status: 403,
        headers: spent,
        body: { error: { code: 'forbidden', message: 'Monthly rate limit exceeded' } },
        endpoint,
      }),
    ).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({
        status: 403,
        headers: spent,
        body: { error: { code: 'forbidden', message: 'Not allowed' } },
        endpoint,
      }),
    ).toBeInstanceOf(AuthError);
    // A Retry-After that is no wait, or beside a code that names a refusal, stays what its status and code say.
    expect(
      classifyResponse({ status: 403, headers: { 'retry-after': 'later' }, body: { message: 'Forbidden' }, endpoint }),
    ).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({
        status: 403,
        headers: { 'retry-after': '4' },
        body: envelope('brand_access_denied'),
        endpoint,
      }),
    ).toBeInstanceOf(BrandAccessDeniedError);
    expect(
      classifyResponse({ status: 403, headers: { 'retry-after': '30' }, body: envelope('invalid_api_key'), endpoint }),
    ).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({ status: 403, headers: { 'retry-after': '120' }, body: envelope('api_key_revoked'), endpoint }),
    ).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({ status: 401, headers: { 'retry-after': '4' }, body: envelope('unauthorized'), endpoint }),
    ).toBeInstanceOf(AuthError);
    // A code that only contains a rate limit's words names something a wait does not cure.
    expect(
      classifyResponse({ status: 403, headers: {}, body: envelope('monthly_rate_limit_exceeded'), endpoint }),
    ).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({ status: 403, headers: {}, body: envelope('rate_limit_quota_exhausted'), endpoint }),
    ).toBeInstanceOf(AuthError);
    // The API's envelope without a code is the API speaking, not a gateway: a suspended key with a Retry-After stays refused.
    expect(
      classifyResponse({
        status: 403,
        headers: { 'retry-after': '5' },
        body: { error: { message: 'Your key has been suspended' } },
        endpoint,
      }),
    ).toBeInstanceOf(AuthError);
    expect(
      classifyResponse({ status: 400, headers: {}, body: envelope('too_many_requests_in_batch'), endpoint }),
    ).toBeInstanceOf(ValidationError);
    // A 5xx with another code, or a quota's, stays a server failure, retried with backoff.
    expect(classifyResponse({ status: 503, headers: {}, body: envelope('unavailable'), endpoint })).toBeInstanceOf(
      TransientError,
    );
    expect(
      classifyResponse({ status: 503, headers: {}, body: envelope('monthly_rate_limit_exceeded'), endpoint }),
    ).toBeInstanceOf(TransientError);
  });

  it('422 is a validation error, as 400 is', () => {
    const error = classifyResponse({
      status: 422,
      headers: {},
      body: envelope('validation_error', { details: [{ field: 'start_date', message: 'bad' }] }),
      endpoint,
    });
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.details).toEqual([{ field: 'start_date', message: 'bad' }]);
  });

  it('404 is not found; other 4xx are permanent', () => {
    expect(classifyResponse({ status: 404, headers: {}, body: envelope('not_found'), endpoint })).toBeInstanceOf(
      NotFoundError,
    );
    const conflict = classifyResponse({ status: 409, headers: {}, body: envelope('conflict'), endpoint });
    expect(conflict).toBeInstanceOf(PermanentError);
    expect(conflict.code).toBe('permanent');
    expect(conflict.apiCode).toBe('conflict');
  });

  it('survives a missing or malformed envelope', () => {
    const error = classifyResponse({ status: 500, headers: {}, body: { error: 'boom' }, endpoint });
    expect(error.apiCode).toBeUndefined();
    expect(error.message).toBe(`${endpoint}: HTTP 500`);
  });

  it('serialises to JSON with its fields', () => {
    const error = classifyResponse({ status: 403, headers: {}, body: envelope('brand_access_denied'), endpoint });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      code: 'brand_access_denied',
      status: 403,
      apiCode: 'brand_access_denied',
      retryable: false,
    });
  });
});

describe('classifyNetworkError', () => {
  it('resets are transient network errors', () => {
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const error = classifyNetworkError(reset, endpoint);
    expect(error).toBeInstanceOf(TransientError);
    expect(error.reason).toBe('network');
    expect(error.message).toContain('UND_ERR_SOCKET');
  });

  it('undici timeouts and the overall deadline are transient timeouts', () => {
    expect(
      classifyNetworkError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), endpoint).reason,
    ).toBe('timeout');
    expect(classifyNetworkError(Object.assign(new Error('x'), { code: 'UND_ERR_BODY_TIMEOUT' }), endpoint).reason).toBe(
      'timeout',
    );
    expect(classifyNetworkError(new Error('aborted'), endpoint, true).reason).toBe('timeout');
  });

  it('keeps no reference to the original error', () => {
    const original = Object.assign(new Error('x'), { code: 'ECONNRESET', socket: { secret: 1 } });
    const error = classifyNetworkError(original, endpoint);
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify(error)).not.toContain('socket');
  });
});
