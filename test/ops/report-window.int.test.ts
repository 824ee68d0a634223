import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { addDays } from '../../src/days.js';
import { readReportData } from '../../src/ops/report-data.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';

/** The report's today, given to it: the window never depends on the real date. */
const TODAY = '2026-11-20';
let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => tmp?.remove());

/** A warehouse file whose visibility rows cover `days`, and the report's window read from it without options. */
async function defaultWindow(days: string[]): Promise<{ from: string; to: string }> {
  tmp = tempDir('report-window');
  const path = join(tmp.path, 'bv.duckdb');
  await (await openWarehouse(path)).close();
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    for (const day of days) {
      await connection.run(
        `INSERT INTO visibility_topic_daily (brand_id, "day", topic_id, conversations, mentioned_conversations, _synced_at, _run_id)
         VALUES (1, CAST($1 AS DATE), 1, 10, 4, now(), 'r')`,
        [day],
      );
    }
    const data = await readReportData(connection, path, { today: TODAY });
    return { from: data.from, to: data.to };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("the report's default window", () => {
  it("ends on the newest day before today: today's answers are still coming", async () => {
    const today = TODAY;
    expect(await defaultWindow([addDays(today, -3), addDays(today, -1), today])).toEqual({
      from: addDays(today, -3),
      to: addDays(today, -1),
    });
    expect(await defaultWindow([addDays(today, -9), addDays(today, -5)])).toEqual({
      from: addDays(today, -9),
      to: addDays(today, -5),
    });
  });

  it('ends on today when today is all there is', async () => {
    const today = TODAY;
    expect(await defaultWindow([today])).toEqual({ from: today, to: today });
  });
});
