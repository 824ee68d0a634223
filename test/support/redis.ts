import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../src/engine/redis/redis.js';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix for one test file, so files run in parallel without seeing each other's queues. */
export function uniquePrefix(name: string): string {
  return `bvsync-test-${name}-${randomUUID().slice(0, 8)}`;
}

export function testRedis(): Redis {
  return new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** Deletes every key under a prefix. */
export function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  return deleteKeysWithPrefix(redis, prefix);
}
