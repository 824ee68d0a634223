import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RedisDatabaseError, resolveRedis } from '../../src/engine/redis/redis.js';
import { TEST_REDIS_URL } from '../support/redis.js';

/** The database of REDIS_URL, checked before anything runs: a refused one left every key in database 0. */
describe('a REDIS_URL naming a database', () => {
  const withDatabase = (index: number) => {
    const url = new URL(TEST_REDIS_URL);
    url.pathname = `/${index}`;
    return url.toString();
  };

  it('is refused, naming it, when this Redis has no such database', async () => {
    const refused = await resolveRedis({ url: withDatabase(99) }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RedisDatabaseError);
    expect((refused as RedisDatabaseError).code).toBe('config_invalid');
    expect((refused as Error).message).toMatch(
      /names database 99, which this Redis refuses \(ERR DB index is out of range\)/,
    );
  });

  it('is taken when it exists', async () => {
    const resolved = await resolveRedis({ url: withDatabase(5) });
    expect(resolved.origin).toBe('configured');
    await resolved.stop();
  });
});

describe('a REDIS_URL whose port another service answers', () => {
  it("says so, where ioredis's words asked to report a bug of its own", async () => {
    const http = createServer((_request, response) => response.end('not redis'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `redis://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const refused = await resolveRedis({ url }).catch((error: unknown) => error);
      expect((refused as Error).message).toMatch(
        /does not speak Redis's protocol \(Protocol error, got "H" as reply type byte\.\): is it another service's port\?/,
      );
      expect((refused as Error).message).not.toMatch(/Please report this/);
    } finally {
      http.close();
    }
  });
});
