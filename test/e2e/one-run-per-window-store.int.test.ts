import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun } from '../../src/engine/run/cancel-run.js';
import { enqueueCommit, enqueueFetches } from '../../src/engine/jobs/enqueue.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { enqueueRun, runWindowIdentity, type StartRunOptions } from '../../src/engine/run/start-run.js';
import { createLogger } from '../../src/log.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { redisKeys } from '../../src/redis-keys.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * One run per window, at the level of Redis: enqueueing a run finds the unfinished run of the same kind, window,
 * brands and streams instead of making a second one, even when many enqueue at once; a finished, cancelled or
 * vanished run frees its window.
 */

const prefix = uniquePrefix('one-run-store');
const config = parseConfig({
  api: { url: 'http://127.0.0.1:9', apiKey: 'not-used' },
  brands: [1, 2],
  redisPrefix: prefix,
});
const log = createLogger({ level: 'silent', pretty: false });
const redis = connectRedis(TEST_REDIS_URL);
const runs = new RunStore(redis, prefix);

let day = 0;
/** A backfill of a window no other test uses. */
function backfillOf(overrides: Partial<StartRunOptions> = {}): StartRunOptions {
  day += 1;
  const from = `2026-10-${String(day).padStart(2, '0')}`;
  return {
    config,
    redisUrl: TEST_REDIS_URL,
    log,
    kind: 'backfill',
    brands: [1, 2],
    streams: ['conversations', 'visibility'],
    today: '2026-11-20',
    from,
    to: from,
    ...overrides,
  };
}

beforeAll(async () => {
  await deletePrefix(redis, prefix);
});
afterAll(async () => {
  const cleaner = testRedis();
  await deletePrefix(cleaner, prefix);
  cleaner.disconnect();
  redis.disconnect();
});

describe('the window of a run', () => {
  it('is the same for brands and streams in another order, and differs by kind, days, brands and streams', () => {
    const base = {
      kind: 'backfill' as const,
      brands: [2, 1],
      streams: ['visibility', 'conversations'],
      today: '2026-11-20',
      from: '2026-11-01',
      to: '2026-11-05',
    };
    expect(runWindowIdentity(base)).toBe(
      runWindowIdentity({ ...base, brands: [1, 2], streams: ['conversations', 'visibility'] }),
    );
    expect(runWindowIdentity(base)).not.toBe(runWindowIdentity({ ...base, to: '2026-11-06' }));
    expect(runWindowIdentity(base)).not.toBe(runWindowIdentity({ ...base, brands: [1] }));
    expect(runWindowIdentity(base)).not.toBe(runWindowIdentity({ ...base, streams: ['visibility'] }));
    expect(runWindowIdentity(base)).not.toBe(runWindowIdentity({ ...base, kind: 'sync' }));
    // --skip-complete reads less than the plain backfill of the window: neither stands in for the other.
    expect(runWindowIdentity(base)).not.toBe(runWindowIdentity({ ...base, skipComplete: true }));
    expect(runWindowIdentity({ ...base, skipComplete: false })).toBe(runWindowIdentity(base));
    // A backfill never fetches past its today: --to tomorrow is --to today.
    expect(runWindowIdentity({ ...base, to: '2026-11-25' })).toBe(runWindowIdentity({ ...base, to: '2026-11-20' }));
    // An incremental sync's window is its today.
    const sync = { kind: 'sync' as const, brands: [1], streams: ['visibility'], today: '2026-11-20' };
    expect(runWindowIdentity(sync)).not.toBe(runWindowIdentity({ ...sync, today: '2026-11-21' }));
  });
});

describe('enqueueing a run', () => {
  it('eight at once make one run: one creates it, seven attach to it', async () => {
    const options = backfillOf();
    const results = await Promise.all(Array.from({ length: 8 }, () => enqueueRun(options)));
    expect(new Set(results.map((result) => result.runId)).size).toBe(1);
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(results.filter((result) => result.attached)).toHaveLength(7);
    const queues = openQueues(redis, prefix);
    try {
      const plans = (await queues.load.getJobs(['waiting'])).filter((job) => job.data.runId === results[0]!.runId);
      expect(plans.map((job) => job.name)).toEqual(['plan']);
    } finally {
      await queues.close();
    }
  });

  it('another window, kind, brand list or stream list is another run', async () => {
    const options = backfillOf();
    const first = await enqueueRun(options);
    const others = await Promise.all([
      enqueueRun({ ...options, brands: [1] }),
      enqueueRun({ ...options, streams: ['conversations'] }),
      enqueueRun({ ...options, to: '2026-10-30' }),
      enqueueRun({ ...options, kind: 'sync' }),
    ]);
    for (const other of others) {
      expect(other.created).toBe(true);
      expect(other.runId).not.toBe(first.runId);
    }
  });

  it('a finished run frees its window, and so does a run gone from Redis', async () => {
    const options = backfillOf();
    const first = await enqueueRun(options);
    await runs.update(first.runId, { status: 'complete', finishedAt: new Date().toISOString() });
    const second = await enqueueRun(options);
    expect(second.created).toBe(true);
    expect(second.runId).not.toBe(first.runId);
    // Expired or lost: the window key outlived its run.
    await redis.del(redisKeys(prefix).run(second.runId));
    const third = await enqueueRun(options);
    expect(third.created).toBe(true);
    expect(third.runId).not.toBe(second.runId);
  });

  it('a cancelled run frees its window and keeps its status, whatever its jobs still write', async () => {
    const options = backfillOf();
    const first = await enqueueRun(options);
    const queues = openQueues(redis, prefix);
    try {
      const outcome = await cancelRun(runs, queues, redis, prefix, first.runId);
      expect(outcome).toMatchObject({ outcome: 'cancelled', removed: { fetch: 0, load: 1 } });
      // A plan job that was running when the run was cancelled cannot bring it back.
      await runs.update(first.runId, { status: 'running', phase: 1 });
      expect((await runs.get(first.runId))?.status).toBe('cancelled');
      expect((await runs.unfinished()).map((run) => run.runId)).not.toContain(first.runId);
      const again = await enqueueRun(options);
      expect(again.created).toBe(true);
      expect(again.runId).not.toBe(first.runId);
      expect(await cancelRun(runs, queues, redis, prefix, first.runId)).toMatchObject({ outcome: 'already-cancelled' });
      expect(await cancelRun(runs, queues, redis, prefix, 'no-such-run')).toEqual({ outcome: 'unknown' });
    } finally {
      await queues.close();
    }
  });

  it('a cancel hands the calls of the jobs it removes to the writer, ahead of the cancel job', async () => {
    const options = backfillOf();
    const { runId } = await enqueueRun(options);
    const queues = openQueues(redis, prefix);
    try {
      const slice = { key: options.from!, day: options.from!, from: options.from!, to: options.from!, params: {} };
      const ref = {
        runId,
        brandId: 1,
        stream: 'conversations',
        sliceId: `1/conversations/${options.from}`,
        slice,
        refetch: 0,
      };
      // A fetch job waiting out a backoff after two failed attempts, and a fetched slice waiting for the writer.
      await enqueueFetches(queues, [{ ...ref, carried: { requests: 3, retries: 1, rateLimited: 1 } }]);
      await enqueueCommit(queues, {
        ...ref,
        token: 'removed-by-cancel',
        chunks: 0,
        status: 'complete',
        records: 0,
        rows: 0,
        rejects: 0,
        totalRows: 0,
        attempts: 1,
        requests: 5,
        retries: 0,
        rateLimited: 2,
        error: null,
        errorCode: null,
        requestId: null,
      });
      const outcome = await cancelRun(runs, queues, redis, prefix, runId);
      expect(outcome).toMatchObject({
        outcome: 'cancelled',
        removed: {
          fetch: 1,
          load: 2,
          calls: { requests: 3, retries: 1, rateLimited: 1 },
          commits: [{ sliceId: ref.sliceId, requests: 5, retries: 0, rateLimited: 2 }],
        },
      });
      const left = (await queues.load.getJobs(['waiting'], 0, -1, true)).filter((job) => job.data.runId === runId);
      expect(left.map((job) => job.name)).toEqual(['uncounted', 'cancel']);
      // The commit's calls apart: the writer counts them only if it has not committed the slice meanwhile.
      expect(left[0]!.data).toMatchObject({
        requests: 3,
        retries: 1,
        rateLimited: 1,
        commits: [{ sliceId: ref.sliceId, requests: 5 }],
      });
    } finally {
      await queues.close();
    }
  });

  it('a scheduled run recorded but never planned (its scheduler died in between) is planned when its slot is enqueued again', async () => {
    const options = backfillOf({
      kind: 'scheduled',
      runId: 'scheduled-daily-20261121T020000',
      from: undefined,
      to: undefined,
    });
    const first = await enqueueRun(options);
    const queues = openQueues(redis, prefix);
    try {
      const plans = async () =>
        (await queues.load.getJobs(['waiting'])).filter((job) => job.name === 'plan' && job.data.runId === first.runId);
      // The plan job lost, as if the scheduler had died after recording the run.
      for (const job of await plans()) await job.remove();
      expect(await plans()).toHaveLength(0);
      const again = await enqueueRun(options);
      expect(again).toMatchObject({ created: false, runId: first.runId });
      expect(await plans()).toHaveLength(1);
      // Enqueued once more, the plan job there is not doubled.
      await enqueueRun(options);
      expect(await plans()).toHaveLength(1);
    } finally {
      await queues.close();
    }
  });

  it('a scheduled run keeps its slot-derived id: the same slot twice is one run, with no window involved', async () => {
    const options = backfillOf({
      kind: 'scheduled',
      runId: 'scheduled-daily-20261120T020000',
      from: undefined,
      to: undefined,
    });
    const [a, b] = [await enqueueRun(options), await enqueueRun(options)];
    expect([a.created, b.created]).toEqual([true, false]);
    expect(b.runId).toBe(a.runId);
    expect(a.meta.windowKey).toBeUndefined();
  });
});

describe('the status words in DuckDB', () => {
  it('a run an earlier version recorded `partial` reads `incomplete` after migration 007', async () => {
    const dir = tempDir('one-run-words');
    try {
      const path = `${dir.path}/old.duckdb`;
      const old = await openWarehouse(path, { migrationTarget: 5 });
      await old.startRun({ runId: 'old-run', kind: 'backfill', brands: [1], streams: ['visibility'] });
      await old.query("UPDATE _sync_runs SET status = 'partial' WHERE run_id = 'old-run'");
      await old.close();
      const upgraded = await openWarehouse(path);
      try {
        expect(upgraded.migrationsApplied.map((migration) => migration.version)).toContain(7);
        expect((await upgraded.recentRuns()).map((run) => [run.runId, run.status])).toEqual([
          ['old-run', 'incomplete'],
        ]);
      } finally {
        await upgraded.close();
      }
    } finally {
      dir.remove();
    }
  });
});
