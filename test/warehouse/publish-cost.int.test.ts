import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { workingPathFor } from '../../src/warehouse/paths.js';
import {
  DEFAULT_PUBLISH_RATES,
  ensurePublishCosts,
  estimatePublish,
  FULL_COPY_FIXED_MS,
  readPublishRates,
  recordPublishRate,
} from '../../src/warehouse/publish/publish-cost.js';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

/**
 * A publish brings the previous copy up to date only when that is cheaper than copying the whole file, priced by
 * the rows it would copy and the file's bytes (src/warehouse/publish/publish-cost.ts); the rates each way measured are kept.
 */

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => tmp?.remove());

const DAYS = Array.from({ length: 20 }, (_, index) => `2026-10-${String(index + 1).padStart(2, '0')}`);
const PER_DAY = 200;
/** Priced however small the file: this test's is a few MB. */
const PRICED = { pricedFromMb: 0 };

const replaceDay = (runId: string, day: string, firstId: number) =>
  sliceBatch({
    runId,
    stream: 'conversations',
    sliceKey: day,
    day,
    writes: [
      {
        table: 'conversations',
        mode: 'replace',
        scope: { brand_id: 7, day },
        rows: conversationRows(day, PER_DAY, firstId),
      },
    ],
  });

async function conversationsIn(path: string): Promise<number> {
  const db = await openReadOnly(path);
  try {
    return Number((await db.connection.runAndReadAll('SELECT count(*) FROM conversations')).getRowsJS()[0]![0]);
  } finally {
    db.close();
  }
}

describe('the cheaper way to publish', () => {
  it('brings the copy up to date after a small change and copies the file after one touching most of it', async () => {
    tmp = tempDir('publish-cost');
    const published = join(tmp.path, 'bv.duckdb');
    const working = workingPathFor(published);
    const wh = await openWarehouse(working);
    try {
      for (const [index, day] of DAYS.entries()) await wh.loadSlice(replaceDay('run-1', day, 1 + index * PER_DAY));
      expect((await wh.publish(published)).mode).toBe('full');
      // Rates as if measured: 1 ms a row, scans free, and the whole file copied in ~2 s, whatever size DuckDB made it.
      const msPerMb = (2_000 - FULL_COPY_FIXED_MS) / (statSync(working).size / 2 ** 20);
      await wh.query(
        `INSERT OR REPLACE INTO _publish_costs VALUES ('incremental', 0, now()), ('row', 1, now()), ('full', ${msPerMb}, now())`,
      );

      // One day re-loaded: ~200 rows and the bookkeeping; the clone made during the run costs nothing more.
      await wh.loadSlice(replaceDay('run-2', DAYS[0]!, 1));
      expect(await wh.preparePublish(published)).toBe(true);
      const small = await wh.publish(published, PRICED);
      expect(small.mode).toBe('incremental');
      expect(small.estimate!.rows).toBeGreaterThanOrEqual(PER_DAY);
      expect(small.estimate!.rows).toBeLessThan(2 * PER_DAY);
      expect(small.estimate!.incrementalMs).toBeLessThan(small.estimate!.fullMs);

      // Eighteen of twenty days re-loaded: 3,600 rows at 1 ms cost more than the ~2 s copy.
      for (const [index, day] of DAYS.slice(2).entries())
        await wh.loadSlice(replaceDay('run-3', day, 1 + (index + 2) * PER_DAY));
      expect(await wh.preparePublish(published)).toBe(true);
      const large = await wh.publish(published, PRICED);
      expect(large.mode).toBe('full');
      expect(large.fullCopyReason).toMatch(
        /^a full copy is cheaper: ~\d+ ms against ~\d+ ms to bring the copy up to date \([\d,]+ rows\)$/,
      );
      expect(large.estimate!.rows).toBeGreaterThanOrEqual(18 * PER_DAY);
      // Priced on the file as it is now, grown a little by the re-loads.
      expect(large.estimate!.fullMs).toBeGreaterThan(1_900);
      expect(large.estimate!.fullMs).toBeLessThan(3_000);
      expect(await conversationsIn(published)).toBe(DAYS.length * PER_DAY);
      // The clone the run prepared is dropped with the way it was for: no copy is left beside the published file.
      expect(readdirSync(tmp.path).filter((name) => name.includes('.tmp-'))).toEqual([]);

      // The full copy holds the journal's head: the next small change is brought up to date again.
      await wh.loadSlice(replaceDay('run-4', DAYS[1]!, 1 + PER_DAY));
      expect(await wh.preparePublish(published)).toBe(true);
      expect((await wh.publish(published, PRICED)).mode).toBe('incremental');
      // Without a clone made during the run, cloning the file costs what copying it does, and the copy wins.
      await wh.loadSlice(replaceDay('run-5', DAYS[1]!, 1 + PER_DAY));
      expect((await wh.publish(published, PRICED)).fullCopyReason).toMatch(/^a full copy is cheaper/);
      expect(await conversationsIn(published)).toBe(DAYS.length * PER_DAY);
    } finally {
      await wh.close();
    }
  });

  it('brings a small file up to date unpriced', async () => {
    tmp = tempDir('publish-cost');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(replaceDay('run-1', DAYS[0]!, 1));
      await wh.publish(published);
      // Whatever the rates say, a file under PRICED_FROM_MB is not priced.
      await wh.query(`INSERT OR REPLACE INTO _publish_costs VALUES ('row', 1000, now())`);
      await wh.loadSlice(replaceDay('run-2', DAYS[0]!, 1));
      const result = await wh.publish(published);
      expect(result.mode).toBe('incremental');
      expect(result.estimate).toBeUndefined();
    } finally {
      await wh.close();
    }
  });

  it('prices the scans, the rows, and the clone when none was prepared during the run', () => {
    const rates = { perScanMs: 4, msPerRow: 0.005, msPerMb: 6 };
    const prepared = estimatePublish({ rows: 30_000, scanMs: 100, workingMb: 425, cloneMb: 0, rates });
    const cloned = estimatePublish({ rows: 30_000, scanMs: 100, workingMb: 425, cloneMb: 425, rates });
    expect(prepared.incrementalMs).toBeCloseTo(400 + 150);
    expect(cloned.incrementalMs).toBeCloseTo(400 + 150 + 2_550);
    expect(prepared.fullMs).toBeCloseTo(FULL_COPY_FIXED_MS + 2_550);
  });

  it('keeps the mean of the rate before and the one measured, and drops measures of too little work', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await ensurePublishCosts(connection);
      expect(await readPublishRates(connection)).toEqual(DEFAULT_PUBLISH_RATES);
      const estimate = (scanMs: number) =>
        estimatePublish({ rows: 20_000, scanMs, workingMb: 100, cloneMb: 0, rates: DEFAULT_PUBLISH_RATES });
      // 20,000 rows at 0.005 ms are 100 ms of the 1,100; the other 1,000 over 100 ms of scans: 10 x, the first measure.
      await recordPublishRate(connection, { way: 'incremental', ms: 1_100, estimate: estimate(100) });
      await recordPublishRate(connection, { way: 'full', ms: FULL_COPY_FIXED_MS + 400, mb: 100 });
      expect(await readPublishRates(connection)).toEqual({ perScanMs: 10, msPerRow: 0.005, msPerMb: 4 });
      await recordPublishRate(connection, { way: 'incremental', ms: 2_100, estimate: estimate(100) });
      expect((await readPublishRates(connection)).perScanMs).toBeCloseTo(15);
      // Little work is mostly fixed costs: not kept.
      await recordPublishRate(connection, { way: 'incremental', ms: 5_000, estimate: estimate(10) });
      await recordPublishRate(connection, { way: 'full', ms: 900, mb: 2 });
      expect(await readPublishRates(connection)).toEqual({
        perScanMs: expect.closeTo(15) as number,
        msPerRow: 0.005,
        msPerMb: 4,
      });
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
