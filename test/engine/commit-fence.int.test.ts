import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { WriterLease } from '../../src/engine/writer/writer-lease.js';
import { redisKeys } from '../../src/redis-keys.js';
import { WriterFencedError } from '../../src/warehouse/load/commit-fence.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { conversationRows, sliceBatch } from '../warehouse/batches.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

/**
 * The writer lease as a fence (src/engine/writer/writer-lease.ts, src/warehouse/load/commit-fence.ts): a token that only grows
 * with every taking, and a commit that checks it inside its transaction, so a holder whose lease passed on commits
 * nothing. The same with real processes stopped past the ttl: test/e2e/lease-fence.int.test.ts.
 */

const prefix = uniquePrefix('fence');
const redis = testRedis();
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

let tmp: ReturnType<typeof tempDir> | undefined;
let wh: Warehouse | undefined;
const leases: WriterLease[] = [];
afterEach(async () => {
  for (const lease of leases.splice(0)) await lease.stop();
  await wh?.close();
  wh = undefined;
  tmp?.remove();
});

const DAY = '2026-11-20';
const conversations = (token: string) =>
  sliceBatch({
    stream: 'conversations',
    sliceKey: DAY,
    day: DAY,
    token,
    writes: [
      { table: 'conversations', mode: 'replace', scope: { brand_id: 7, day: DAY }, rows: conversationRows(DAY, 3) },
    ],
  });

function lease(name: string, events: string[] = []): WriterLease {
  const keys = redisKeys(`${prefix}-${name}`);
  const made = new WriterLease(redis, {
    key: keys.writerLease,
    fenceKey: keys.writerFence,
    ttlMs: 1_000,
    intervalMs: 100,
    onAcquired: () => void events.push('+'),
    onLost: () => void events.push('-'),
  });
  leases.push(made);
  return made;
}

describe('the writer lease fence', () => {
  it("hands out a larger token with every taking, and a holding's fence confirms nothing once it is lost", async () => {
    const keys = redisKeys(`${prefix}-grows`);
    const events: string[] = [];
    const holder = lease('grows', events);
    await holder.start();
    const first = holder.fenceToken!;
    const fence = holder.fence();
    expect(await fence.confirm()).toBe(first);
    // Another process took it (the lease expired during a stall): the next renewal sees it, the token grows.
    await redis.set(keys.writerLease, 'another-process');
    await redis.incr(keys.writerFence);
    await until('the loss', () => events.includes('-'));
    await expect(fence.confirm()).rejects.toBeInstanceOf(WriterFencedError);
    await redis.del(keys.writerLease);
    await until('the lease taken again', () => holder.isHeld);
    expect(holder.fenceToken!).toBeGreaterThan(first + 1);
    // The first holding's fence stays refused, though this process holds the lease again.
    await expect(fence.confirm()).rejects.toBeInstanceOf(WriterFencedError);
    expect(await holder.fence().confirm()).toBe(holder.fenceToken);
  });

  it('rolls back a commit whose lease expired, records the token of one that kept it, and lets go of the lease', async () => {
    const keys = redisKeys(`${prefix}-commit`);
    tmp = tempDir('commit-fence');
    const events: string[] = [];
    const holder = lease('commit', events);
    await holder.start();
    const token = holder.fenceToken!;
    wh = await openWarehouse(join(tmp.path, 'work.duckdb'), { fence: holder.fence() });
    await wh.startRun({ runId: 'run-1', kind: 'backfill', brands: [7], streams: ['conversations'] });
    await wh.loadSlice(conversations('fetch-a'));
    expect(await wh.query('SELECT token, fence_token::INTEGER AS fence FROM _slice_commits')).toEqual([
      { token: 'fetch-a', fence: token },
    ]);

    // The lease expires (the process stalled past its ttl) before the next commit reaches COMMIT: nothing of it stays.
    await redis.del(keys.writerLease);
    await expect(wh.loadSlice(conversations('fetch-b'))).rejects.toBeInstanceOf(WriterFencedError);
    expect(await wh.hasCommitted('fetch-b')).toBe(false);
    expect(await wh.query('SELECT count(*)::INTEGER AS n FROM _sync_state')).toEqual([{ n: 1 }]);
    await until('the writer to stop being the writer', () => events.includes('-'));
    // Neither a run's bookkeeping nor a publish goes through the old holding's fence.
    await expect(wh.finishRun('run-1', 'complete')).rejects.toBeInstanceOf(WriterFencedError);
    await expect(wh.publish(join(tmp.path, 'published.duckdb'))).rejects.toBeInstanceOf(WriterFencedError);
    expect(await wh.query(`SELECT status FROM _sync_runs WHERE run_id = 'run-1'`)).toEqual([{ status: 'running' }]);
  });

  it('stopping, still confirms the commit its close waits for, then lets go of the lease', async () => {
    const keys = redisKeys(`${prefix}-stop`);
    let confirmedWhileClosing: number | undefined;
    const holder: WriterLease = new WriterLease(redis, {
      key: keys.writerLease,
      fenceKey: keys.writerFence,
      ttlMs: 1_000,
      intervalMs: 100,
      onAcquired: () => {},
      // Closing the writer waits for the load job it runs, whose commit checks the fence.
      onLost: async () => void (confirmedWhileClosing = await fence.confirm()),
    });
    await holder.start();
    const fence = holder.fence();
    const token = holder.fenceToken;
    await holder.stop();
    expect(confirmedWhileClosing).toBe(token);
    await expect(fence.confirm()).rejects.toBeInstanceOf(WriterFencedError);
    expect(await redis.get(keys.writerLease)).toBeNull();
  });

  it('raises the token above the highest a file carries, so a Redis that lost its counter still gives larger ones', async () => {
    const keys = redisKeys(`${prefix}-raise`);
    await redis.set(keys.writerFence, '0');
    const holder = lease('raise');
    await holder.start();
    expect(holder.fenceToken).toBe(1);
    expect(await holder.raiseTokenAbove(41)).toBe(true);
    expect(holder.fenceToken).toBe(42);
    expect(await redis.get(keys.writerFence)).toBe('42');
    expect(await holder.fence().confirm()).toBe(42);
    // Already above: unchanged.
    expect(await holder.raiseTokenAbove(7)).toBe(true);
    expect(holder.fenceToken).toBe(42);
  });
});
