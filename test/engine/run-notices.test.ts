import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/api/errors.js';
import { RedisUnavailableError } from '../../src/engine/redis/redis.js';
import { runEventOf, staleOf } from '../../src/engine/run/run-notices.js';
import { noticeOfFailure } from '../../src/notify/index.js';

/** Which runs, data and failures people are told of: the pure rules behind the notices (docs/operations.md, "Notifications"). */

describe('the event of a run', () => {
  it('is run_failed or run_incomplete for those ends, and none for a complete or cancelled run', () => {
    expect(['failed', 'incomplete', 'complete', 'cancelled'].map(runEventOf)).toEqual([
      'run_failed',
      'run_incomplete',
      undefined,
      undefined,
    ]);
  });
});

describe('stale data', () => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  const meta = { brands: [1, 2], streams: ['visibility', 'conversations'] };

  it('is a brand and stream of the run whose newest complete day ended more than staleAfterHours ago', () => {
    const rows = [
      // Ended 2026-11-20 00:00: 12 hours ago.
      { brand: 1, stream: 'visibility', newestCompleteDay: '2026-11-19' },
      // Ended 2026-11-18 00:00: 60 hours ago.
      { brand: 1, stream: 'conversations', newestCompleteDay: '2026-11-17' },
      // Not a brand or a stream of the run, or never complete: not told of here.
      { brand: 3, stream: 'visibility', newestCompleteDay: '2026-11-01' },
      { brand: 2, stream: 'swot', newestCompleteDay: '2026-11-01' },
      { brand: 2, stream: 'visibility', newestCompleteDay: null },
    ];
    expect(staleOf(rows, meta, 48, now)).toEqual([
      { brand: 1, stream: 'conversations', newestCompleteDay: '2026-11-17', ageHours: 60 },
    ]);
    expect(staleOf(rows, meta, 72, now)).toEqual([]);
  });
});

describe("the notice of a command's failure", () => {
  it('is key_refused for a refused key, also when a clearer error wraps it', () => {
    const refusal = new AuthError('invalid api key', { status: 401, endpoint: 'GET /customer/v1/brands' });
    expect(noticeOfFailure(refusal)).toMatchObject({ event: 'key_refused', code: 'unauthorized' });
    expect(noticeOfFailure(new Error('the API refused the key', { cause: refusal }))).toMatchObject({
      event: 'key_refused',
      message: 'the API refused the key',
    });
  });

  it('is machine_fault for Redis away and a full disk, and none for a mistake of the command line', () => {
    expect(noticeOfFailure(new RedisUnavailableError('redis://127.0.0.1:1: connect ECONNREFUSED'))).toMatchObject({
      event: 'machine_fault',
      component: 'redis',
      code: 'redis_unavailable',
    });
    expect(noticeOfFailure(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))).toMatchObject({
      event: 'machine_fault',
      component: 'disk',
    });
    expect(noticeOfFailure(Object.assign(new Error('--today is after today'), { code: 'usage' }))).toBeUndefined();
    expect(noticeOfFailure(new Error('a bug'))).toBeUndefined();
  });
});
