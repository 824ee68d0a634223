import { describe, expect, it } from 'vitest';
import { RedisDatabaseError, resolveRedis } from '../../src/engine/redis.js';
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
    expect((refused as Error).message).toMatch(/names database 99, which this Redis refuses \(ERR DB index is out of range\)/);
  });

  it('is taken when it exists', async () => {
    const resolved = await resolveRedis({ url: withDatabase(5) });
    expect(resolved.origin).toBe('configured');
    await resolved.stop();
  });
});
