import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Redis } from 'ioredis';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { RunGoneError } from '../../src/engine/run/run-gone.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

/**
 * The run store's scripts that fold a read and a write into one command (run-store.ts): a run's creation, a phase's
 * planned slices with its record, and the unfinished runs with their records. Each is one command sent to Redis.
 */

const prefix = uniquePrefix('run-store-scripts');
const redis: Redis = testRedis();
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function metaOf(runId: string, startedAt = '2026-11-20T00:00:00.000Z'): RunMeta {
  return {
    runId,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: '2026-11-20',
    from: '2026-11-19',
    to: '2026-11-20',
    status: 'planning',
    startedAt,
    finishedAt: null,
    phase: 0,
    published: null,
    error: null,
  };
}

const slices = [
  { sliceId: '1|conversations|2026-11-19', brandId: 1, stream: 'conversations' },
  { sliceId: '1|conversations|2026-11-20', brandId: 1, stream: 'conversations' },
];

/** The commands `work` sends through the store's connection. */
async function commandsOf(work: () => Promise<unknown>): Promise<number> {
  // The connection's own handshake is not the store's.
  await redis.ping();
  const sent = vi.spyOn(redis, 'sendCommand');
  try {
    await work();
    return sent.mock.calls.length;
  } finally {
    sent.mockRestore();
  }
}

describe('a run store', () => {
  it('creates a run once, indexed and kept, in one command', async () => {
    const store = new RunStore(redis, prefix);
    const started = new Date().toISOString();
    expect(await commandsOf(() => store.create(metaOf('run-new', started)))).toBe(1);
    expect(await store.create({ ...metaOf('run-new', started), phase: 3 })).toBe(false);
    expect((await store.get('run-new'))?.phase).toBe(0);
    expect(await redis.zscore(redisKeys(prefix).runs, 'run-new')).toBe(String(Date.parse(started)));
    expect(await redis.ttl(redisKeys(prefix).run('run-new'))).toBeGreaterThan(0);
  });

  it('records a phase planned and its record in one command when it remembers the record', async () => {
    const store = new RunStore(redis, prefix);
    await store.create(metaOf('run-plan'));
    await store.get('run-plan');
    const patch = { phase: 1, status: 'running' as const };
    expect(await commandsOf(() => store.recordPlannedThenUpdate('run-plan', slices, patch))).toBe(1);
    expect(await store.progress('run-plan')).toEqual({ planned: 2, done: 0 });
    expect(await new RunStore(redis, prefix).get('run-plan')).toMatchObject(patch);
    // Planned again (a plan job replayed): the slices count once.
    await store.recordPlannedThenUpdate('run-plan', slices, { phase: 1 });
    expect((await store.counters('run-plan')).get('1|conversations')?.planned).toBe(2);
  });

  it('keeps what another store wrote since it remembered the record', async () => {
    const mine = new RunStore(redis, prefix);
    const theirs = new RunStore(redis, prefix);
    await mine.create(metaOf('run-raced'));
    await mine.get('run-raced');
    await theirs.update('run-raced', { error: 'said by the other' });
    const next = await mine.recordPlannedThenUpdate('run-raced', slices, { phase: 1, status: 'running' });
    expect(next).toMatchObject({ phase: 1, status: 'running', error: 'said by the other' });
    expect(await theirs.get('run-raced')).toEqual(next);
    expect(await mine.progress('run-raced')).toEqual({ planned: 2, done: 0 });
  });

  it('leaves a finished run finished, and plans nothing for a run gone', async () => {
    const mine = new RunStore(redis, prefix);
    await mine.create(metaOf('run-ended'));
    await mine.get('run-ended');
    await new RunStore(redis, prefix).update('run-ended', { status: 'cancelled' });
    expect((await mine.recordPlannedThenUpdate('run-ended', slices, { status: 'running' })).status).toBe('cancelled');
    await expect(mine.recordPlannedThenUpdate('run-none', slices, { phase: 1 })).rejects.toBeInstanceOf(RunGoneError);
    expect(await mine.progress('run-none')).toEqual({ planned: 0, done: 0 });
  });

  it("deletes a slice's chunks with its outcome, once it is recorded, and not for a run gone", async () => {
    const store = new RunStore(redis, prefix);
    await store.create(metaOf('run-outcome'));
    const chunkKeys = [`${prefix}:chunk:t-1:0`, `${prefix}:chunk:t-1:1`];
    for (const key of chunkKeys) await redis.set(key, 'rows');
    const outcome = {
      sliceId: slices[0]!.sliceId,
      brandId: 1,
      stream: 'conversations',
      status: 'complete' as const,
      rows: 3,
      rejects: 0,
      requests: 1,
      retries: 0,
      rateLimited: 0,
    };
    await redis.set(`${prefix}:chunk:t-2:0`, 'rows');
    await expect(
      store.recordOutcome('run-gone', { ...outcome, chunkKeys: [`${prefix}:chunk:t-2:0`] }),
    ).rejects.toBeInstanceOf(RunGoneError);
    expect(await redis.exists(`${prefix}:chunk:t-2:0`)).toBe(1);
    expect(await commandsOf(() => store.recordOutcome('run-outcome', { ...outcome, chunkKeys }))).toBe(1);
    expect(await redis.exists(...chunkKeys)).toBe(0);
    expect(await store.progress('run-outcome')).toEqual({ planned: 0, done: 1 });
    // A replay counts nothing twice.
    expect(await store.recordOutcome('run-outcome', { ...outcome, chunkKeys })).toBe(false);
    expect((await store.counters('run-outcome')).get('1|conversations')?.rows).toBe(3);
  });

  it('lists the unfinished runs, newest first, with their records in one command', async () => {
    const own = uniquePrefix('run-store-unfinished');
    const store = new RunStore(redis, own);
    try {
      await store.create(metaOf('run-old', new Date(Date.now() - 60_000).toISOString()));
      await store.create(metaOf('run-young', new Date().toISOString()));
      await store.create(metaOf('run-done', new Date().toISOString()));
      await store.update('run-done', { status: 'complete' });
      await store.create(metaOf('run-lost', new Date().toISOString()));
      await redis.del(redisKeys(own).run('run-lost'));
      let listed: RunMeta[] = [];
      expect(await commandsOf(async () => (listed = await store.unfinished()))).toBe(1);
      expect(listed.map((meta) => meta.runId)).toEqual(['run-young', 'run-old']);
    } finally {
      await deletePrefix(redis, own);
    }
  });
});
