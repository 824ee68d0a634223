/**
 * The loader's cost per slice when slices are small (the demo's 909 slices of a few rows each): 300 slices of 20
 * conversations, each loaded in its own transaction with its state, as `Warehouse.loadSlice` does for a commit job.
 * Run alone: `npm run bench -- small-slices`.
 */
import { join } from 'node:path';
import { addDays } from '../src/days.js';
import { openWarehouse } from '../src/warehouse/warehouse.js';
import { conversationRows, sliceBatch } from '../test/warehouse/batches.js';
import { tempDir } from '../test/support/tmp.js';
import type { BenchResult } from './run.js';

const SLICES = 300;
const ROWS = 20;

export async function run(): Promise<BenchResult[]> {
  const tmp = tempDir('bench-small');
  const wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
  try {
    const batches = Array.from({ length: SLICES }, (_, i) => {
      const day = addDays('2026-11-20', -i);
      return sliceBatch({ stream: 'conversations', sliceKey: day, day, writes: [{ table: 'conversations', mode: 'replace', scope: { brand_id: 7, day }, rows: conversationRows(day, ROWS, i * ROWS + 1) }] });
    });
    for (const batch of batches.slice(0, 20)) await wh.loadSlice(batch);
    const started = performance.now();
    for (const batch of batches) await wh.loadSlice(batch);
    const ms = (performance.now() - started) / SLICES;
    return [{ scenario: 'small-slices', metric: `loadSlice of a ${ROWS}-row slice with its state`, value: ms, unit: 'ms/slice', note: `${SLICES} slices, each its own transaction` }];
  } finally {
    await wh.close();
    tmp.remove();
  }
}
