import { describe, expect, it } from 'vitest';
import {
  NotFoundError,
  PagingError,
  PermanentError,
  QuotaExceededError,
  RateLimitedError,
  TransientError,
} from '../../src/api/errors.js';
import { isNoAnswer, isUnreadableAnswer } from '../../src/cli/doctor/no-answer.js';

/** Which failures leave an endpoint unread, for doctor's "no request doctor sent was answered" line. */
const at = { endpoint: 'GET /customer/v1/brands/1/templates' };

describe('a failure that leaves an endpoint unread', () => {
  it('is nothing, a 5xx, a redirect or a 404', () => {
    expect(isNoAnswer(new TransientError('HTTP 502', { ...at, status: 502 }, 'server_error'))).toBe(true);
    expect(isNoAnswer(new TransientError('reset', at, 'network'))).toBe(true);
    expect(isNoAnswer(new PermanentError('HTTP 301 to /v2', { ...at, status: 301 }))).toBe(true);
    expect(isNoAnswer(new NotFoundError('HTTP 404 not_found', { ...at, status: 404, apiCode: 'not_found' }))).toBe(
      true,
    );
  });

  it('is not the API answering with a refusal of its own: a 429 or a spent quota had failed an endpoint asked once', () => {
    expect(isNoAnswer(new RateLimitedError('HTTP 429', { ...at, status: 429 }, 1_000))).toBe(false);
    expect(isNoAnswer(new QuotaExceededError('HTTP 429 monthly_quota_exceeded', { ...at, status: 429 }))).toBe(false);
    expect(isNoAnswer(new PagingError('asked for page 2, the API answered page 1', at))).toBe(false);
    expect(isNoAnswer(new Error('a bug'))).toBe(false);
  });
});

/** Which failures are the API answering what bvsync cannot read, for doctor's line of a page that fails a sync. */
describe('an unreadable answer', () => {
  it('tells the API answering what bvsync cannot read (a page 2 of HTML, data: null) from a refusal or an absence', () => {
    expect(
      isUnreadableAnswer(
        new TransientError('HTTP 200 with a body that is not JSON', { ...at, status: 200 }, 'bad_body'),
      ),
    ).toBe(true);
    expect(
      isUnreadableAnswer(
        new TransientError(
          'HTTP 200 with a body that is not JSON (text/html ...)',
          { ...at, status: 200 },
          'other_format',
        ),
      ),
    ).toBe(true);
    expect(
      isUnreadableAnswer(new TransientError("the answer's envelope does not match the spec", at, 'bad_envelope')),
    ).toBe(true);
    expect(isUnreadableAnswer(new TransientError('HTTP 502', { ...at, status: 502 }, 'server_error'))).toBe(false);
    expect(
      isUnreadableAnswer(
        new TransientError('HTTP 500 whose body could not be read', { ...at, status: 500 }, 'bad_body'),
      ),
    ).toBe(false);
    expect(isUnreadableAnswer(new TransientError('reset', at, 'network'))).toBe(false);
    expect(isUnreadableAnswer(new RateLimitedError('HTTP 429', { ...at, status: 429 }, 1_000))).toBe(false);
  });
});
