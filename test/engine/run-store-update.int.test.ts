import { afterAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { RunGoneError } from '../../src/engine/run/run-gone.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

/**
 * A store's update tries the record it last read or wrote before reading it again (run-store.ts, `seen`): whatever
 * another store changed meanwhile is kept, a finished run stays finished, and a run gone stays gone.
 */

const prefix = uniquePrefix('run-store-update');
const redis: Redis = testRedis();
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function metaOf(runId: string): RunMeta {
  return {
    runId,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: '2026-11-20',
    from: '2026-11-19',
    to: '2026-11-20',
    status: 'planning',
    startedAt: '2026-11-20T00:00:00.000Z',
    finishedAt: null,
    phase: 0,
    published: null,
    error: null,
  };
}

describe('a run store updating a record it remembers', () => {
  it('keeps what another store wrote since', async () => {
    const mine = new RunStore(redis, prefix);
    const theirs = new RunStore(redis, prefix);
    await mine.create(metaOf('run-a'));
    await mine.update('run-a', { phase: 1 });
    await theirs.update('run-a', { error: 'said by the other' });
    const next = await mine.update('run-a', { status: 'running' });
    expect(next).toMatchObject({ phase: 1, status: 'running', error: 'said by the other' });
    expect(await theirs.get('run-a')).toEqual(next);
  });

  it('leaves a run another store finished as it finished it', async () => {
    const mine = new RunStore(redis, prefix);
    const theirs = new RunStore(redis, prefix);
    await mine.create(metaOf('run-b'));
    expect((await mine.get('run-b'))?.status).toBe('planning');
    await theirs.update('run-b', { status: 'cancelled', finishedAt: '2026-11-20T01:00:00.000Z' });
    expect((await mine.update('run-b', { status: 'running', phase: 1 })).status).toBe('cancelled');
    expect((await theirs.get('run-b'))?.phase).toBe(0);
  });

  it('throws RunGoneError for a run gone from Redis since it was remembered', async () => {
    const mine = new RunStore(redis, prefix);
    await mine.create(metaOf('run-c'));
    await mine.update('run-c', { phase: 1 });
    await redis.del(redisKeys(prefix).run('run-c'));
    await expect(mine.update('run-c', { status: 'running' })).rejects.toBeInstanceOf(RunGoneError);
  });
});
