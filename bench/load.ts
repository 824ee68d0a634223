/**
 * Warehouse load throughput: one slice of 1,000,000 conversation rows loaded through `Warehouse.loadSlice`
 * (stage with the appender, dedupe by key, MERGE in one transaction with state and counters) into an empty
 * file, then the same slice again over the existing rows; against the raw rate of DuckDBDataChunkWriter +
 * appender into an unkeyed table with the same columns, measured in the same run on the same rows.
 * Run alone: `node bin/run-ts.js bench/load.ts [rows]`, or through `npm run bench -- load`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBDataChunkWriter, DuckDBInstance, JSToDuckDBValueConverter, type JS } from '@duckdb/node-api';
import type { BenchResult } from './run.js';
import type { Row } from '../src/warehouse/slice-batch.js';
import { openWarehouse } from '../src/warehouse/warehouse.js';
import { conversationRows, sliceBatch } from '../test/warehouse/batches.js';
import { tempDir } from '../test/support/tmp.js';

const DEFAULT_ROWS = 1_000_000;
const DAY = '2026-11-20';

export async function run(rowCount = DEFAULT_ROWS): Promise<BenchResult[]> {
  const tmp = tempDir('bench-load');
  try {
    const rows = conversationRows(DAY, rowCount);
    const raw = await rawAppenderRate(join(tmp.path, 'raw.duckdb'), rows);

    const wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
    const batch = sliceBatch({ stream: 'conversations', sliceKey: DAY, day: DAY, writes: [{ table: 'conversations', mode: 'merge', rows }] });
    let started = performance.now();
    await wh.loadSlice(batch);
    const intoEmpty = rowCount / ((performance.now() - started) / 1000);
    started = performance.now();
    await wh.loadSlice(batch);
    const overExisting = rowCount / ((performance.now() - started) / 1000);
    const [check] = await wh.query('SELECT count(*) AS n FROM conversations');
    if (check?.n !== rowCount) throw new Error(`expected ${rowCount} rows after the loads, found ${String(check?.n)}`);
    started = performance.now();
    await wh.publish(join(tmp.path, 'bv.duckdb'));
    const publishSeconds = (performance.now() - started) / 1000;
    await wh.close();

    const note = `${rowCount.toLocaleString('en-US')} rows x 15 columns`;
    return [
      { scenario: 'load', metric: 'raw DataChunkWriter + appender, unkeyed table', value: raw, unit: 'rows/s', note },
      { scenario: 'load', metric: 'loadSlice into an empty file (merge)', value: intoEmpty, unit: 'rows/s', note: `${(intoEmpty / raw).toFixed(2)} x raw` },
      { scenario: 'load', metric: 'loadSlice again over the same keys', value: overExisting, unit: 'rows/s', note: `${(overExisting / raw).toFixed(2)} x raw` },
      { scenario: 'load', metric: 'publish the copy (COPY FROM DATABASE + views + rename)', value: publishSeconds, unit: 's', note },
    ];
  } finally {
    tmp.remove();
  }
}

/** The floor: the same rows through the JS converter and DataChunkWriter into a table with no key and no dedupe. */
async function rawAppenderRate(path: string, rows: Row[]): Promise<number> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE raw_conversations (
      brand_id BIGINT, id BIGINT, "day" DATE, "date" TIMESTAMPTZ, model VARCHAR, has_shopping BOOLEAN, mentioned BOOLEAN,
      recommended BOOLEAN, "position" INTEGER, recommendation_position INTEGER, fact_check_passed BOOLEAN, topic_id BIGINT,
      _extra JSON, _synced_at TIMESTAMPTZ, _run_id VARCHAR)`);
    const started = performance.now();
    const appender = await connection.createAppender('raw_conversations');
    const writer = DuckDBDataChunkWriter.forAppender<JS>(appender, { converter: JSToDuckDBValueConverter });
    const syncedAt = new Date();
    const dayDate = new Date(`${DAY}T00:00:00Z`);
    for (const row of rows) {
      writer.appendRow([
        7, row.id as number, dayDate, new Date(row.date as string), row.model as string, row.has_shopping as boolean,
        row.mentioned as boolean, row.recommended as boolean, row.position as number, (row.recommendation_position as number | null) ?? null,
        row.fact_check_passed as boolean, null, row._extra ? JSON.stringify(row._extra) : null, syncedAt, 'run-1',
      ]);
    }
    writer.flush();
    appender.closeSync();
    return rows.length / ((performance.now() - started) / 1000);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run(Number(process.argv[2] ?? DEFAULT_ROWS));
  for (const r of results) {
    const value = r.unit === 'rows/s' ? Math.round(r.value).toLocaleString('en-US') : r.value.toFixed(2);
    process.stdout.write(`${r.metric.padEnd(58)} ${value.padStart(12)} ${r.unit.padEnd(6)} ${r.note ?? ''}\n`);
  }
}
