import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeLine, lakeStatus } from '../../src/cli/status/lake-line.js';
import { addDays } from '../../src/days.js';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import { readManifest } from '../../src/warehouse/publish/parquet-lake.js';
import { identityOf } from '../../src/warehouse/publish/published-identity.js';
import { engineFixture, runInProcess, type EngineFixture } from '../support/engine.js';
import { lakeDifferences } from '../support/lake.js';

/**
 * `publish.parquet`: after every publish of incremental syncs on the simulator, each table read back from the lake
 * with read_parquet(hive_partitioning) holds exactly the published file's rows; a partition no sync touched keeps its
 * file; a lake write stopped half-way (a partition's folder it cannot create, leaving the lake as a crash would) is
 * repaired by the next.
 */

// A sync of every stream took 35 s on a loaded 2-core box; the test waits for the syncs, not for a clock.
const SYNCS_TIMEOUT_MS = 300_000;

let fx: EngineFixture;
let lake: string;

const metrics = new PrometheusMetrics({ processMetrics: false });

function sync(): Promise<RunProgress> {
  return runInProcess(fx, { kind: 'sync', today: fx.sim.truth.today(), worker: { metrics } });
}

async function lakeWrites(outcome: 'ok' | 'failed'): Promise<number> {
  const counter = (await metrics.registry.getSingleMetric('bvsync_lake_writes_total')!.get()).values;
  return Number(counter.find((value) => value.labels.outcome === outcome)?.value);
}

async function expectLakeEqualsPublished(): Promise<void> {
  const found = await lakeDifferences(fx.config.db, lake);
  expect(found.filter((t) => t.onlyFile || t.onlyLake)).toEqual([]);
  expect(found.find((t) => t.table === 'conversations')!.rows).toBeGreaterThan(0);
  const manifest = readManifest(lake)!;
  expect(manifest.publishId).toBe(identityOf(fx.config.db));
  for (const { table, rows } of found) expect(manifest.tables[table]?.rows, table).toBe(rows);
  // Nothing half-written is left: no staging folder, no plan of an unfinished write.
  expect(readdirSync(lake).filter((name) => name.startsWith('.') || name === '_writing.json')).toEqual([]);
}

/** The file of one conversations partition, as the file system knows it: a rewrite renames a new file over it. */
function partitionFile(brandId: number, day: string): string {
  const path = join(lake, 'conversations', `brand_id=${brandId}`, `day=${day}`, 'data_0.parquet');
  const stats = statSync(path, { bigint: true });
  return `${stats.ino}:${stats.mtimeNs}`;
}

beforeAll(async () => {
  fx = await engineFixture('parquet-lake', {
    sim: { brands: 1, scale: 20 },
    config: { sync: { initialDays: 5, lookbackDays: 2 } },
  });
  lake = join(fx.dir, 'lake');
  fx.config.publish = { parquet: lake };
});
afterAll(async () => fx?.cleanup());

describe('the Parquet lake of each publish', () => {
  const brand = () => fx.config.brands[0]!;
  let oldDay: string;
  let before: { old: string; recent: string };

  it(
    'a first sync writes every table, partitioned by brand and day, with a manifest',
    async () => {
      expect((await sync()).meta.status).toBe('complete');
      await expectLakeEqualsPublished();
      const manifest = readManifest(lake)!;
      expect(manifest.tables.conversations!.partitionBy).toEqual(['brand_id', 'day']);
      expect(manifest.tables.citation_window_totals?.partitionBy).toEqual(['brand_id', 'window_start', 'window_end']);
      expect(manifest.tables.competitors!.partitionBy).toEqual(['brand_id']);
      expect(manifest.tables._sync_runs!.partitionBy).toEqual([]);
      const today = fx.sim.truth.today();
      oldDay = addDays(today, -4);
      before = { old: partitionFile(brand(), oldDay), recent: partitionFile(brand(), today) };
    },
    SYNCS_TIMEOUT_MS,
  );

  it(
    'incremental syncs rewrite only the partitions they changed',
    async () => {
      for (let i = 0; i < 2; i++) {
        fx.sim.advanceClock(1);
        expect((await sync()).meta.status).toBe('complete');
        await expectLakeEqualsPublished();
      }
      const manifest = readManifest(lake)!;
      expect(
        manifest.tables.conversations!.partitions[`brand_id=${brand()}/day=${fx.sim.truth.today()}`],
      ).toBeDefined();
      // The oldest day is past every lookback since: its file is the first sync's; a day read again has a new one.
      expect(partitionFile(brand(), oldDay)).toBe(before.old);
      expect(partitionFile(brand(), addDays(oldDay, 4))).not.toBe(before.recent);
    },
    SYNCS_TIMEOUT_MS,
  );

  it(
    'a lake write stopped half-way leaves the run published, and the next publish repairs the lake',
    async () => {
      const publishedBefore = readManifest(lake)!.publishId;
      fx.sim.advanceClock(1);
      // A file where the new day's conversations folder goes: the write stops there, after the tables sorted before it.
      const blocker = join(lake, 'conversations', `brand_id=${brand()}`, `day=${fx.sim.truth.today()}`);
      mkdirSync(join(blocker, '..'), { recursive: true });
      writeFileSync(blocker, 'not a folder');
      // Tables sorted before it are renamed into place first: a bookkeeping table's file is a new one.
      const runs = join(lake, '_sync_runs', 'data_0.parquet');
      const runsBefore = statSync(runs).ino;
      expect((await sync()).meta.status).toBe('complete');
      rmSync(blocker);
      expect(statSync(runs).ino).not.toBe(runsBefore);
      // The manifest is the last complete write's; the plan of the stopped one is there for the next to repair from.
      expect(readManifest(lake)!.publishId).toBe(publishedBefore);
      expect(readManifest(lake)!.publishId).not.toBe(identityOf(fx.config.db));
      expect(existsSync(join(lake, '_writing.json'))).toBe(true);
      // bvsync status and the metrics say so.
      expect(await lakeWrites('failed')).toBe(1);
      expect(lakeLine(lakeStatus(lake, fx.config.db)!)).toMatch(/is behind the published file .*could not be written/);

      expect((await sync()).meta.status).toBe('complete');
      await expectLakeEqualsPublished();
      expect(lakeStatus(lake, fx.config.db)).toMatchObject({ current: true, tables: expect.any(Number) });
      expect(await lakeWrites('ok')).toBe(4);
      expect(lakeLine(lakeStatus(lake, fx.config.db)!)).toMatch(/is current with the published file/);
      // Repaired from the journal, which the publishes kept for the lake, not by rewriting it whole.
      expect(partitionFile(brand(), oldDay)).toBe(before.old);
    },
    SYNCS_TIMEOUT_MS,
  );
});
