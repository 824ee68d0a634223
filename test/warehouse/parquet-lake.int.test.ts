import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/warehouse/publish/parquet-lake.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import type { PublishResult } from '../../src/warehouse/publish/publish.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { lakeDifferences } from '../support/lake.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

/**
 * The Parquet lake of a publish (src/warehouse/publish/parquet-lake.ts) on slices loaded directly: partitions whose rows are
 * gone are removed, a merged row that changed day leaves no copy behind, a lake the journal no longer reaches is
 * rewritten whole, and a lake that cannot be written fails nothing of the publish.
 */

let tmp: ReturnType<typeof tempDir>;
afterEach(() => tmp?.remove());

const DAY_1 = '2026-11-18';
const DAY_2 = '2026-11-19';
const DAY_3 = '2026-11-20';

const replaceDay = (runId: string, day: string, n: number, firstId: number) =>
  sliceBatch({
    runId,
    stream: 'conversations',
    sliceKey: day,
    day,
    writes: [
      { table: 'conversations', mode: 'replace', scope: { brand_id: 7, day }, rows: conversationRows(day, n, firstId) },
    ],
  });

const mergeRows = (runId: string, day: string, n: number, firstId: number) =>
  sliceBatch({
    runId,
    stream: 'conversations',
    sliceKey: `topic-3/${day}`,
    day,
    writes: [{ table: 'conversations', mode: 'merge', rows: conversationRows(day, n, firstId) }],
  });

function paths() {
  tmp = tempDir('parquet-lake');
  const published = join(tmp.path, 'bv.duckdb');
  return { published, working: workingPathFor(published), lake: join(tmp.path, 'lake') };
}

async function expectEqual(published: string, lake: string): Promise<void> {
  const differing = (await lakeDifferences(published, lake)).filter((t) => t.onlyFile || t.onlyLake);
  expect(differing).toEqual([]);
}

function lakeOf(result: PublishResult) {
  expect(result.lake?.ok, JSON.stringify(result.lake)).toBe(true);
  return result.lake as Extract<PublishResult['lake'], { ok: true }>;
}

describe('the Parquet lake', () => {
  it('removes a partition whose rows are gone, and the old copy of a merged row that changed day', async () => {
    const { published, working, lake } = paths();
    const wh: Warehouse = await openWarehouse(working, { lake });
    try {
      await wh.loadSlice(replaceDay('run-1', DAY_1, 3, 1));
      await wh.loadSlice(replaceDay('run-1', DAY_2, 2, 10));
      expect(lakeOf(await wh.publish(published)).fullReason).toBe('no lake manifest yet');
      await expectEqual(published, lake);
      expect(Object.keys(readManifest(lake)!.tables.conversations!.partitions).sort()).toEqual([
        `brand_id=7/day=${DAY_1}`,
        `brand_id=7/day=${DAY_2}`,
      ]);

      await wh.loadSlice(replaceDay('run-2', DAY_2, 0, 10));
      const emptied = lakeOf(await wh.publish(published));
      expect(emptied).toMatchObject({ mode: 'incremental', partitionsRemoved: 1 });
      expect(existsSync(join(lake, 'conversations', 'brand_id=7', `day=${DAY_2}`))).toBe(false);
      expect(Object.keys(readManifest(lake)!.tables.conversations!.partitions)).toEqual([`brand_id=7/day=${DAY_1}`]);
      await expectEqual(published, lake);

      // Conversation 1 is now of day 3: day 1's partition is written again without it.
      await wh.loadSlice(mergeRows('run-3', DAY_3, 1, 1));
      expect(lakeOf(await wh.publish(published)).mode).toBe('incremental');
      const partitions = readManifest(lake)!.tables.conversations!.partitions;
      expect(partitions[`brand_id=7/day=${DAY_1}`]?.rows).toBe(2);
      expect(partitions[`brand_id=7/day=${DAY_3}`]?.rows).toBe(1);
      // The manifest tells what the last write changed: the partitions it rewrote carry its publish id.
      const manifest = readManifest(lake)!;
      expect(partitions[`brand_id=7/day=${DAY_1}`]?.publishId).toBe(manifest.publishId);
      expect(manifest.tables.competitors!.partitions).toEqual({});
      await expectEqual(published, lake);
    } finally {
      await wh.close();
    }
  });

  it('is rewritten whole once publishes without it pruned the journal past it', async () => {
    const { published, working, lake } = paths();
    let wh = await openWarehouse(working, { lake });
    await wh.loadSlice(replaceDay('run-1', DAY_1, 3, 1));
    await wh.publish(published);
    await wh.close();

    wh = await openWarehouse(working);
    await wh.loadSlice(replaceDay('run-2', DAY_2, 2, 10));
    await wh.loadSlice(replaceDay('run-2', DAY_3, 2, 20));
    expect((await wh.publish(published)).lake).toBeUndefined();
    await wh.close();

    wh = await openWarehouse(working, { lake });
    try {
      await wh.loadSlice(replaceDay('run-3', DAY_1, 4, 1));
      const rewritten = lakeOf(await wh.publish(published));
      expect(rewritten.mode).toBe('full');
      expect(rewritten.fullReason).toBe('the journal no longer reaches back to the lake');
      await expectEqual(published, lake);
    } finally {
      await wh.close();
    }
  });

  it('that cannot be written leaves the publish done and says why', async () => {
    const { published, working, lake } = paths();
    writeFileSync(lake, 'a file where the lake folder should be');
    const wh = await openWarehouse(working, { lake });
    try {
      await wh.loadSlice(replaceDay('run-1', DAY_1, 3, 1));
      const result = await wh.publish(published);
      expect(result.mode).toBe('full');
      expect(existsSync(published)).toBe(true);
      expect(result.lake).toMatchObject({ ok: false, path: lake });
      expect(result.lake?.ok === false && result.lake.error).toMatch(/is a file, not a folder/);
    } finally {
      await wh.close();
    }
  });
});
