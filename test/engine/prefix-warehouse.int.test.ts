import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  claimPrefixWarehouse,
  OtherWarehouseError,
  OtherWarehouseFileError,
  prefixWarehouse,
} from '../../src/engine/writer/prefix-warehouse.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { writerLeaseKey } from '../../src/engine/jobs/queues.js';
import { createLogger } from '../../src/log.js';
import { engineFixture, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/** One Redis prefix, one warehouse: a command for another file meeting the prefix's writer is refused before it enqueues. */

const TODAY = '2026-11-20';
const log = createLogger({ level: 'silent', pretty: false });
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('prefix-warehouse', { sim: { brands: 1, days: 2, scale: 3, today: TODAY } });
});
afterAll(async () => {
  await fx.cleanup();
});

describe('a Redis prefix whose writer writes another warehouse', () => {
  it('refuses runs and workers for another file, and takes those for its own', async () => {
    const admin = connectRedis(fx.redisUrl);
    const host = new WorkerHost({ config: fx.config, redisUrl: fx.redisUrl, log, leaseTtlMs: 1_500, fetchThreads: 0 });
    await host.start();
    try {
      await until(
        'the writer lease',
        async () => (await admin.get(writerLeaseKey(fx.config.redisPrefix)))?.endsWith(fx.config.db) === true,
      );
      const other = { ...fx.config, db: join(fx.config.db, '..', 'other.duckdb') };
      const start = {
        redisUrl: fx.redisUrl,
        log,
        kind: 'backfill' as const,
        brands: [1],
        streams: ['conversations'],
        today: TODAY,
        from: TODAY,
        to: TODAY,
      };

      const refused = await enqueueRun({ ...start, config: other }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OtherWarehouseError);
      expect((refused as Error).message).toContain(`writes ${fx.config.db}, not ${other.db}`);
      expect(await admin.keys(`${fx.config.redisPrefix}:run:*`)).toEqual([]);

      const otherHost = new WorkerHost({ config: other, redisUrl: fx.redisUrl, log, fetchThreads: 0 });
      await expect(otherHost.start()).rejects.toBeInstanceOf(OtherWarehouseError);
      await otherHost.stop(100);

      // A process that only fetches writes no file, and a run for the writer's own file goes ahead.
      const fetcher = new WorkerHost({ config: other, redisUrl: fx.redisUrl, log, load: false, fetchThreads: 0 });
      await fetcher.start();
      await fetcher.stop(100);
      const own = await enqueueRun({ ...start, config: fx.config });
      expect(own.created).toBe(true);
    } finally {
      await host.stop(1_000);
      admin.disconnect();
    }
  });

  it('refuses a run or a writer for another file while a run queued for the first is unfinished, with no writer live', async () => {
    const admin = connectRedis(fx.redisUrl);
    const prefix = `${fx.config.redisPrefix}-queued`;
    const mine = { ...fx.config, redisPrefix: prefix };
    const other = { ...mine, db: join(fx.config.db, '..', 'queued-other.duckdb') };
    const start = {
      redisUrl: fx.redisUrl,
      log,
      kind: 'backfill' as const,
      brands: [1],
      streams: ['conversations'],
      today: TODAY,
      from: TODAY,
      to: TODAY,
    };
    try {
      // Enqueued only, as a backfill stopped with Ctrl-C before its writer loaded it leaves it.
      const queued = await enqueueRun({ ...start, config: mine });
      expect(queued.meta.db).toBe(fx.config.db);
      const refused = await enqueueRun({ ...start, config: other, streams: ['visibility'] }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(OtherWarehouseError);
      expect((refused as Error).message).toContain(
        `the unfinished run ${queued.runId} under the Redis prefix "${prefix}" was started for ${fx.config.db}, not ${other.db}`,
      );
      expect((refused as Error).message).toContain(`bvsync cancel ${queued.runId}`);
      const otherHost = new WorkerHost({ config: other, redisUrl: fx.redisUrl, log, fetchThreads: 0 });
      await expect(otherHost.start()).rejects.toBeInstanceOf(OtherWarehouseError);
      await otherHost.stop(100);
      // The file it was started for still attaches to it.
      expect((await enqueueRun({ ...start, config: mine })).runId).toBe(queued.runId);
    } finally {
      const keys = await admin.keys(`${prefix}:*`);
      if (keys.length) await admin.del(...keys);
      admin.disconnect();
    }
  });
});

describe('the warehouse a Redis prefix records', () => {
  it("is the first writer's file; the same id at another path is taken (a moved warehouse), another id is refused", async () => {
    const admin = connectRedis(fx.redisUrl);
    const prefix = `${fx.config.redisPrefix}-ids`;
    try {
      expect(await prefixWarehouse(admin, prefix)).toBeUndefined();
      const first = { id: 'id-first', path: '/data/a/bv.work.duckdb' };
      expect((await claimPrefixWarehouse(admin, prefix, first)).db).toBe(first.path);
      // Moved: the same file at a new path is the prefix's warehouse still, recorded there.
      const moved = { id: 'id-first', path: '/data/b/bv.work.duckdb' };
      expect((await claimPrefixWarehouse(admin, prefix, moved)).db).toBe(moved.path);
      expect((await prefixWarehouse(admin, prefix))!.db).toBe(moved.path);

      const samePath = await claimPrefixWarehouse(admin, prefix, { id: 'id-new', path: moved.path }).catch(
        (error: unknown) => error,
      );
      expect(samePath).toBeInstanceOf(OtherWarehouseFileError);
      expect((samePath as Error).message).toContain(
        `the working file ${moved.path} is warehouse id-new, but the Redis prefix "${prefix}" keeps its committed slices in warehouse id-first (${moved.path} on host `,
      );
      expect((samePath as Error).message).toContain('other storage at the same path');
      const otherPath = await claimPrefixWarehouse(admin, prefix, {
        id: 'id-other',
        path: '/data/c/bv.work.duckdb',
      }).catch((error: unknown) => error);
      expect((otherPath as Error).message).toContain("This is another file than the prefix's warehouse");
      expect((await prefixWarehouse(admin, prefix))!.id).toBe('id-first');
    } finally {
      await admin.del(`${prefix}:warehouse`);
      admin.disconnect();
    }
  });
});
