import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix for one test file, so files run in parallel without seeing each other's queues. */
export function uniquePrefix(name: string): string {
  return `bvsync-test-${name}-${randomUUID().slice(0, 8)}`;
}

export function testRedis(): Redis {
  return new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** Deletes every key under a prefix (SCAN, not KEYS, so a shared Redis is not blocked). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
