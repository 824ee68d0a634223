import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OtherWarehouseFileError, prefixWarehouse } from '../../src/engine/writer/prefix-warehouse.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { enqueueRun, runToEnd } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { identityOf } from '../../src/warehouse/publish/published-identity.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { engineFixture, queryFile, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * The working file of a prefix swapped under its writers between two of them: a copy restored from an older backup (the
 * same warehouse id, fewer commits) is caught when the run finalizes; a new file at the same path (another id) is
 * refused before anything is loaded into it or published.
 */

const TODAY = '2026-11-20';
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('restored-warehouse', { sim: { brands: 1, days: 12, scale: 3, today: TODAY } });
});
afterAll(async () => {
  await fx?.cleanup();
});

/** Runs a first backfill to its end, so the prefix records the file and a published copy exists. */
async function firstRun(config = fx.config) {
  const first = await runToEnd({
    config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: TODAY,
    from: '2026-11-19',
    to: TODAY,
    worker: { leaseTtlMs: 1_500 },
  });
  expect(first.meta.status).toBe('complete');
}

/** Enqueues a backfill of eleven days and lets a writer of one fetch at a time commit a few of its slices, then stops it. */
async function partOfRun(config = fx.config): Promise<{ runId: string; done: number }> {
  fx.sim.setKnobs({ latencyMs: 150 });
  const { runId } = await enqueueRun({
    config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations', 'visibility'],
    today: TODAY,
    from: '2026-11-10',
    to: TODAY,
  });
  const writer = new WorkerHost({
    config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    leaseTtlMs: 1_500,
    fetchThreads: 0,
    fetchConcurrency: 1,
    commitBatchSlices: 1,
  });
  const admin = connectRedis(fx.redisUrl);
  const runs = new RunStore(admin, config.redisPrefix);
  try {
    await writer.start();
    await until('a few slices committed', async () => (await runs.progress(runId)).done >= 3);
  } finally {
    await writer.stop(0);
    fx.sim.setKnobs({ latencyMs: 0 });
  }
  const { done, planned } = await runs.progress(runId);
  admin.disconnect();
  expect(done).toBeLessThan(planned);
  return { runId, done };
}

async function runEnd(config: typeof fx.config, runId: string): Promise<RunMeta> {
  const admin = connectRedis(fx.redisUrl);
  const runs = new RunStore(admin, config.redisPrefix);
  try {
    let meta: RunMeta | null = null;
    await until(
      'the run to end',
      async () =>
        ['complete', 'incomplete', 'failed', 'cancelled'].includes((meta = await runs.get(runId))?.status ?? ''),
      60_000,
    );
    return meta!;
  } finally {
    admin.disconnect();
  }
}

describe('a working file restored from an older copy', () => {
  it('ends the run incomplete, names the slices the file lacks, and records the run as the backfill it was', async () => {
    await firstRun();
    const working = workingPathFor(fx.config.db);
    const backup = join(fx.dir, 'backup.duckdb');
    copyFileSync(working, backup);
    const { runId, done } = await partOfRun();

    // The backup comes back in place of the file that holds the run's first slices; the next writer loads the rest.
    copyFileSync(backup, working);
    rmSync(`${working}.wal`, { force: true });
    const writer = new WorkerHost({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log: fx.log,
      leaseTtlMs: 1_500,
      fetchThreads: 0,
    });
    await writer.start();
    try {
      const meta = await runEnd(fx.config, runId);
      expect(meta.status).toBe('incomplete');
      expect(meta.error).toMatch(
        new RegExp(
          `but the working file ${working} \\(warehouse [0-9a-f-]{36}\\) holds \\d+ of them: the file was restored from an older copy`,
        ),
      );
      // Every slice the stopped writer committed is missing from the restored file; those loaded since are in it.
      const [, committed, held] = /committed (\d+) slices, .* holds (\d+) of them/.exec(meta.error!)!.map(Number);
      expect(held).toBe(committed! - done);
      expect(meta.published).toBe(fx.config.db);
    } finally {
      await writer.stop(1_000);
    }
    const [run] = await queryFile(fx.config.db, 'SELECT kind, status FROM _sync_runs WHERE run_id = $1', [runId]);
    expect(run).toEqual({ kind: 'backfill', status: 'incomplete' });
  });
});

describe("a new file at the path of the prefix's warehouse", () => {
  it('is refused: nothing is loaded into it or published, and the unfinished run ends failed naming both ids and the path', async () => {
    const config = {
      ...fx.config,
      redisPrefix: `${fx.config.redisPrefix}-new`,
      db: join(fx.dir, 'second', 'bv.duckdb'),
    };
    const admin = connectRedis(fx.redisUrl);
    try {
      await firstRun(config);
      const recorded = (await prefixWarehouse(admin, config.redisPrefix))!;
      const published = identityOf(config.db);
      const { runId } = await partOfRun(config);

      // Another disk at the same path: here, the file moved away and a new one made in its place by the next writer.
      const working = workingPathFor(config.db);
      rmSync(working);
      rmSync(`${working}.wal`, { force: true });
      const writer = new WorkerHost({ config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 1_500, fetchThreads: 0 });
      await writer.start();
      try {
        const meta = await runEnd(config, runId);
        expect(meta.status).toBe('failed');
        expect(meta.error).toContain(`the working file ${working} is warehouse `);
        expect(meta.error).toContain(`keeps its committed slices in warehouse ${recorded.id}`);
        expect(meta.error).toMatch(/other storage at the same path .* or the file was replaced/);
        expect(meta.error).toContain('shared storage');
        expect(meta.error).toContain('bvsync adopt-warehouse');
        expect(writer.writerProblem()?.cause).toBeInstanceOf(OtherWarehouseFileError);
        expect(writer.isWriter).toBe(false);
      } finally {
        await writer.stop(1_000);
      }
      // The published copy is the first run's, untouched; the prefix still records the first file.
      expect(identityOf(config.db)).toBe(published);
      expect((await prefixWarehouse(admin, config.redisPrefix))!.id).toBe(recorded.id);
      expect(await queryFile(working, 'SELECT count(*)::INTEGER AS n FROM _sync_state')).toEqual([{ n: 0 }]);
    } finally {
      const keys = await admin.keys(`${config.redisPrefix}:*`);
      if (keys.length) await admin.del(...keys);
      admin.disconnect();
    }
  });
});
