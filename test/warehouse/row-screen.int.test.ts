import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { screenWrites } from '../../src/warehouse/load/row-screen.js';
import { planTable, type TablePlan } from '../../src/warehouse/load/table-plan.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { completeState, conversationRows, sliceBatch } from './batches.js';

/**
 * The screen in front of the loader: rows the loader would refuse for the whole slice (outside the scope, a value
 * the column cannot hold, a required column empty, a key again with other content) are set aside one by one with
 * the reason, and what is left loads.
 */

let tmp: ReturnType<typeof tempDir>;
let wh: Warehouse;
let planOf: (table: string) => TablePlan;

beforeEach(async () => {
  tmp = tempDir('row-screen');
  wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
  const plans = new Map(wh.tables().map((info) => [info.name, planTable(info)]));
  planOf = (table) => plans.get(table)!;
});
afterEach(async () => {
  await wh.close();
  tmp.remove();
});

const DAY = '2026-11-20';

describe('screenWrites', () => {
  it('sets aside what the loader would refuse, says why, and the rest loads', async () => {
    const [good, other, tooBig, noDate, outside, sameAgain] = conversationRows(DAY, 6, 1);
    const rows = [
      good!,
      { ...other!, id: 1, mentioned: !good!.mentioned }, // key 1 again with other content: the last one is kept
      { ...tooBig!, position: 2 ** 40 },
      { ...noDate!, date: null },
      { ...outside!, day: '2026-11-30' },
      sameAgain!,
      { ...sameAgain! }, // the same row again: left for the loader, which keeps one
    ];
    const screened = screenWrites(
      [{ table: 'conversations', mode: 'replace', scope: { brand_id: 7, day: DAY }, rows }],
      planOf,
      7,
      'load of test',
    );
    expect(screened.writes[0]!.rows.map((row) => row.id)).toEqual([1, 6, 6]);
    expect(screened.writes[0]!.rows[0]!.mentioned).toBe(!good!.mentioned);
    expect(screened.rejects.map((reject) => reject.issues[0])).toEqual([
      'conversations.position: 1099511627776 does not fit a 32-bit INTEGER',
      'conversations.date: required, but the row has no value',
      `conversations row dated 2026-11-30 outside the slice's window ${DAY}..${DAY}`,
      'conversations: key (brand_id=7, id=1) came again in this slice with other content; the last row of that key is kept',
    ]);
    expect(screened.rejects[0]).toMatchObject({
      raw: { table: 'conversations', row: { id: 3 } },
      source: 'load of test',
    });
    expect(screened.problemCode).toBe('row_invalid');
    expect(screened.problem).toContain("outside the slice's window");
    const loaded = await wh.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: DAY,
        day: DAY,
        writes: screened.writes,
        rejects: screened.rejects,
        state: completeState(),
      }),
    );
    expect(loaded.rowsWritten).toBe(2);
    expect(await wh.query('SELECT count(*)::INTEGER AS n FROM _rejected_records')).toEqual([{ n: 4 }]);
  });

  it('passes clean writes through untouched', () => {
    const rows = conversationRows(DAY, 50, 1);
    const screened = screenWrites([{ table: 'conversations', mode: 'merge', rows }], planOf, 7, 'x');
    expect(screened).toMatchObject({ rejects: [], problem: null, problemCode: null });
    expect(screened.writes[0]!.rows).toBe(rows);
  });
});
