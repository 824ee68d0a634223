import { describe, expect, it } from 'vitest';
import { isRedisConnectionError } from '../../src/engine/redis/redis-fault-watch.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isRedisConnectionError', () => {
  it('takes a refused, closed, reset or timed-out connection for Redis being away', () => {
    expect(isRedisConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisConnectionError(withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'))).toBe(true);
    expect(isRedisConnectionError(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isRedisConnectionError(withCode('write EPIPE', 'EPIPE'))).toBe(true);
    expect(isRedisConnectionError(withCode('connect ETIMEDOUT', 'ETIMEDOUT'))).toBe(true);
  });

  it("keeps an error Redis answered, or bvsync's own, for what it is", () => {
    expect(isRedisConnectionError(new Error("ERR unknown command 'FOO'"))).toBe(false);
    expect(isRedisConnectionError(new Error('Missing lock for job 12. moveToFinished'))).toBe(false);
  });
});
