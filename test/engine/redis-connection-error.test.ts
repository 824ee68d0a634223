import { describe, expect, it } from 'vitest';
import { isRedisConnectionError } from '../../src/engine/redis/redis-fault-watch.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isRedisConnectionError', () => {
  it('takes a refused, closed, reset, timed-out or unreachable connection for Redis being away', () => {
    expect(isRedisConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisConnectionError(withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'))).toBe(true);
    expect(isRedisConnectionError(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isRedisConnectionError(withCode('write EPIPE', 'EPIPE'))).toBe(true);
    expect(isRedisConnectionError(withCode('connect ETIMEDOUT', 'ETIMEDOUT'))).toBe(true);
    expect(isRedisConnectionError(withCode('getaddrinfo ENOTFOUND redis.internal', 'ENOTFOUND'))).toBe(true);
    expect(isRedisConnectionError(withCode('getaddrinfo EAI_AGAIN redis.internal', 'EAI_AGAIN'))).toBe(true);
    expect(isRedisConnectionError(withCode('connect EHOSTUNREACH 10.0.0.9:6379', 'EHOSTUNREACH'))).toBe(true);
    expect(isRedisConnectionError(withCode('connect ENETUNREACH 10.0.0.9:6379', 'ENETUNREACH'))).toBe(true);
  });

  it("keeps an error Redis answered, or bvsync's own, for what it is", () => {
    expect(isRedisConnectionError(new Error("ERR unknown command 'FOO'"))).toBe(false);
    expect(isRedisConnectionError(new Error('Missing lock for job 12. moveToFinished'))).toBe(false);
  });
});
