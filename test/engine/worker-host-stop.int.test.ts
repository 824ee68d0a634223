import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueues, writerLeaseKey } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { createLogger } from '../../src/log.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { engineFixture, queryFile, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * A worker host stopping, or losing the writer lease, hands its work on: a slice cut short by a stop goes back to the
 * queue without spending an attempt, and a load worker dropped for closing late takes no connection but its own.
 */

const TODAY = '2026-11-20';
const log = createLogger({ level: 'silent', pretty: false });
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('worker-host-stop', { sim: { brands: 1, days: 3, scale: 5, today: TODAY } });
});
afterAll(async () => {
  await fx.cleanup();
});

describe('a worker host', () => {
  it('stopped mid-read hands the slice back without spending an attempt', async () => {
    const admin = connectRedis(fx.redisUrl);
    const queues = openQueues(admin, fx.config.redisPrefix);
    try {
      await enqueueRun({
        config: fx.config,
        redisUrl: fx.redisUrl,
        log,
        kind: 'backfill',
        brands: [1],
        streams: ['conversations'],
        today: TODAY,
        from: TODAY,
        to: TODAY,
      });
      fx.sim.setKnobs({ latencyMs: 3_000 });
      for (let round = 1; round <= 2; round++) {
        const host = new WorkerHost({
          config: fx.config,
          redisUrl: fx.redisUrl,
          log,
          leaseTtlMs: 1_500,
          fetchThreads: 0,
        });
        await host.start();
        await until('the slice to be read', async () => (await queues.fetch.getActiveCount()) > 0);
        await host.stop(200);
        const [job] = await queues.fetch.getJobs(['waiting', 'delayed', 'active', 'failed']);
        expect(job!.attemptsMade).toBe(0);
        expect(await job!.getState()).toBe('waiting');
      }
      fx.sim.setKnobs({ latencyMs: 0 });
      const host = new WorkerHost({
        config: fx.config,
        redisUrl: fx.redisUrl,
        log,
        leaseTtlMs: 1_500,
        fetchThreads: 0,
      });
      await host.start();
      try {
        await until('the slice to load', async () => {
          const rows = await queryFile(
            fx.config.db.replace(/\.duckdb$/, '.work.duckdb'),
            `SELECT status FROM _sync_state WHERE slice_key = '${TODAY}'`,
          ).catch(() => []);
          return rows[0]?.status === 'complete';
        });
      } finally {
        await host.stop(1_000);
      }
    } finally {
      fx.sim.setKnobs({ latencyMs: 0 });
      await queues.close();
      admin.disconnect();
    }
  }, 60_000);

  it('that lost the lease during a load it could not close in time still has Redis, and takes the lease again', async () => {
    const admin = connectRedis(fx.redisUrl);
    let held = true;
    const host = new WorkerHost({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log,
      leaseTtlMs: 1_000,
      fetchThreads: 0,
      // The lease's fence, wrapped: in the first slice load, just before it is confirmed, the lease key vanishes
      // (expired while the process was paused) in a load that outlasts the worker's close.
      openWarehouse: (path, options) =>
        openWarehouse(path, {
          ...options,
          fence: {
            async confirm(slices) {
              if (held && slices?.length) {
                held = false;
                await admin.del(writerLeaseKey(fx.config.redisPrefix));
                await new Promise((resolve) => setTimeout(resolve, 12_000));
              }
              return options.fence!.confirm(slices);
            },
          },
        }),
    });
    try {
      await host.start();
      await until('the writer lease', async () => host.isWriter);
      await enqueueRun({
        config: fx.config,
        redisUrl: fx.redisUrl,
        log,
        kind: 'backfill',
        brands: [1],
        streams: ['conversations'],
        today: TODAY,
        from: '2026-11-18',
        to: '2026-11-18',
      });
      await until('the lease to be lost', async () => !held && !host.isWriter, 20_000);
      await until('the lease to be taken again', async () => host.isWriter, 25_000);
      expect(await admin.ping()).toBe('PONG');
    } finally {
      await host.stop(1_000);
      admin.disconnect();
    }
  }, 60_000);
});
